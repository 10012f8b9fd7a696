"""Layer 2 alone for tables scoped through parents (`tenant_via`): golden rewrites, the final
check refusing every tampered chain, and policy files whose chains cannot end at a tenant."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from pglast.stream import RawStream

from orquestra.guards import GuardPolicy, GuardRejection, guard_sql
from orquestra.guards.rewrite import cap_rows, filter_tenant_tables, verify_filters
from orquestra.guards.validate import parse_one

HERE = Path(__file__).parent
CASES = yaml.safe_load((HERE / "via_rewrite_cases.yaml").read_text(encoding="utf-8"))
CHAIN = (
    "SELECT rentals.rental_id FROM public.rentals WHERE rentals.inventory_id IN "
    "(SELECT inventory.inventory_id FROM public.inventory WHERE inventory.store_id = $1)"
)


@pytest.fixture(scope="module")
def policy() -> GuardPolicy:
    return GuardPolicy.from_file(HERE / "via_policy.yaml")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_rewrite_through_parents(case: dict, policy: GuardPolicy) -> None:
    statement = cap_rows(filter_tenant_tables(parse_one(case["sql"]), policy), 100)
    output = RawStream()(statement)
    assert output == case["expected"]
    assert verify_filters(parse_one(output), policy)


def test_guarded_output_passes_every_layer(policy: GuardPolicy) -> None:
    guarded = guard_sql("SELECT count(*) FROM audit.audit_lines", policy, "7", max_rows=0)
    assert guarded.params == ["7"]
    assert guarded.sql.count("$1") == 1


@pytest.mark.parametrize(
    "tampered",
    [
        # the child read bare, or with its semi-join dropped or loosened
        "SELECT * FROM public.payments",
        f"SELECT * FROM (SELECT * FROM public.payments WHERE payments.rental_id IN ({CHAIN}) "
        "OR true) AS p",
        f"SELECT * FROM (SELECT * FROM public.payments WHERE payments.rental_id NOT IN ({CHAIN}))"
        " AS p",
        f"SELECT * FROM (SELECT * FROM public.payments WHERE payments.rental_id = ANY ({CHAIN}))"
        " AS p",
        # the semi-join on the wrong column, to the wrong parent column, or the wrong parent
        f"SELECT * FROM (SELECT * FROM public.payments WHERE payments.payment_id IN ({CHAIN})) "
        "AS p",
        "SELECT * FROM (SELECT * FROM public.payments WHERE payments.rental_id IN (SELECT "
        "rentals.customer_id FROM public.rentals WHERE rentals.inventory_id IN (SELECT "
        "inventory.inventory_id FROM public.inventory WHERE inventory.store_id = $1))) AS p",
        "SELECT * FROM (SELECT * FROM public.payments WHERE payments.rental_id IN (SELECT "
        "inventory.inventory_id FROM public.inventory WHERE inventory.store_id = $1)) AS p",
        # a parent in the chain left unrestricted, restricted loosely, or aliased
        "SELECT * FROM (SELECT * FROM public.payments WHERE payments.rental_id IN (SELECT "
        "rentals.rental_id FROM public.rentals)) AS p",
        "SELECT * FROM (SELECT * FROM public.payments WHERE payments.rental_id IN (SELECT "
        "rentals.rental_id FROM public.rentals WHERE rentals.inventory_id IN (SELECT "
        "inventory.inventory_id FROM public.inventory WHERE inventory.store_id = $1 OR true)))"
        " AS p",
        "SELECT * FROM (SELECT * FROM public.payments WHERE payments.rental_id IN (SELECT "
        "r.rental_id FROM public.rentals r WHERE r.inventory_id IN (SELECT "
        "inventory.inventory_id FROM public.inventory WHERE inventory.store_id = $1))) AS p",
        # a limited or distinct parent set (not the chain's shape), a composite key half-matched
        "SELECT * FROM (SELECT * FROM public.payments WHERE payments.rental_id IN (SELECT "
        "rentals.rental_id FROM public.rentals WHERE rentals.inventory_id IN (SELECT "
        "inventory.inventory_id FROM public.inventory WHERE inventory.store_id = $1) LIMIT 1))"
        " AS p",
        f"SELECT * FROM (SELECT * FROM public.rental_notes WHERE rental_notes.rental_id IN "
        f"({CHAIN})) AS n",
    ],
)
def test_final_verification_refuses_a_tampered_chain(tampered: str, policy: GuardPolicy) -> None:
    with pytest.raises(GuardRejection) as caught:
        verify_filters(parse_one(tampered), policy)
    assert caught.value.code == "GUARD_INTERNAL"


@pytest.mark.parametrize(
    ("tables", "says"),
    [
        ("a: {tenant_via: {parent: b, columns: {x: y}}}\n  b: {shared: true}", "shared table b"),
        ("a: {tenant_via: {parent: nowhere, columns: {x: y}}}", "unknown table nowhere"),
        (
            "a: {tenant_via: {parent: b, columns: {x: y}}}\n"
            "  b: {tenant_via: {parent: a, columns: {y: x}}}",
            "circle",
        ),
        ("a: {tenant_via: {parent: b, columns: {}}}\n  b: {tenant_column: t}", "columns"),
        ("a: {tenant_via: {parent: b, columns: {x: y}}, tenant_column: t}", "exactly one"),
    ],
)
def test_a_policy_file_whose_chain_cannot_reach_a_tenant_is_refused(
    tmp_path: Path, tables: str, says: str
) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(f"tables:\n  {tables}\n")
    with pytest.raises(GuardRejection) as caught:
        GuardPolicy.from_file(path)
    assert caught.value.code == "GUARD_POLICY_INVALID"
    assert says in caught.value.message
