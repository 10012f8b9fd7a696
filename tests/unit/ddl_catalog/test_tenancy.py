"""Tenancy proposed from foreign keys: deterministic, shortest path, never shared by guess."""

from __future__ import annotations

from orquestra.ddl_catalog.tenancy import Key, describe_via, propose_tenancy


def key(table: str, target: str, column: str, *, not_null: bool = True) -> Key:
    return Key(table, (column,), target, (column,), not_null)


TABLES = {
    "store": ("store_id",),
    "inventory": ("inventory_id", "store_id"),
    "rental": ("rental_id", "inventory_id", "customer_id"),
    "customer": ("customer_id", "store_id"),
    "payment": ("payment_id", "rental_id", "customer_id"),
    "film": ("film_id",),
}


def test_shortest_path_wins_and_the_others_are_named() -> None:
    keys = [
        key("payment", "rental", "rental_id"),
        key("payment", "customer", "customer_id"),
        key("rental", "inventory", "inventory_id"),
        key("rental", "customer", "customer_id"),
    ]
    proposal = propose_tenancy(TABLES, keys, "store_id")
    assert proposal.roots == ("customer", "inventory", "store")
    assert proposal.via["payment"].path == ("payment", "customer")
    assert proposal.via["payment"].alternatives == (("payment", "rental", "customer"),)
    # a tie in hops: the NOT NULL key first, then the parent's name
    assert proposal.via["rental"].key.target == "customer"
    assert describe_via(proposal.via["rental"]) == (
        "rental → customer (on customer_id = customer.customer_id); not chosen: rental → inventory"
    )
    assert proposal.shared == ("film",)


def test_a_nullable_key_loses_a_tie() -> None:
    keys = [
        key("rental", "customer", "customer_id", not_null=False),
        key("rental", "inventory", "inventory_id"),
    ]
    proposal = propose_tenancy(TABLES, keys, "store_id")
    assert proposal.via["rental"].key.target == "inventory"


def test_a_not_null_path_beats_a_shorter_nullable_one() -> None:
    keys = [
        key("payment", "customer", "customer_id", not_null=False),
        key("payment", "rental", "rental_id"),
        key("rental", "inventory", "inventory_id"),
    ]
    proposal = propose_tenancy(TABLES, keys, "store_id")
    assert proposal.via["payment"].path == ("payment", "rental", "inventory")
    assert proposal.via["payment"].alternatives == (("payment", "customer"),)


def test_key_outside_the_import_leaves_a_table_undecided() -> None:
    tables = {**TABLES, "log": ("log_id", "user_id")}
    proposal = propose_tenancy(tables, [key("log", "auth.users", "user_id")], "store_id")
    assert "log" not in proposal.shared
    assert "auth.users" in proposal.undecided["log"]


def test_cycles_and_self_references_terminate() -> None:
    tables = {"a": ("id", "b_id"), "b": ("id", "a_id"), "t": ("id", "tenant", "a_id")}
    keys = [key("a", "b", "b_id"), key("b", "a", "a_id"), key("a", "a", "id")]
    proposal = propose_tenancy(tables, keys, "tenant")
    assert proposal.roots == ("t",)
    assert proposal.shared == ("a", "b")  # no key reaches tenant data


def test_views_without_the_tenant_column_are_never_shared() -> None:
    tables = {**TABLES, "film_list": ("film_id",)}
    proposal = propose_tenancy(tables, [], "store_id", views=frozenset({"film_list"}))
    assert "film_list" in proposal.undecided
    assert "film_list" not in proposal.shared


def test_no_tenant_column_anywhere_decides_nothing() -> None:
    proposal = propose_tenancy(TABLES, [], "tenant_id")
    assert (proposal.roots, proposal.shared, proposal.via) == ((), (), {})
    assert set(proposal.undecided) == set(TABLES)
