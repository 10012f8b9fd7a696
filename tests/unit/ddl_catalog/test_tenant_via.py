"""Catalog tenancy through parents: what loads, and every way a chain or a sharing is refused
with a code naming the file and the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from orquestra.ddl_catalog import CatalogError, load_catalog
from orquestra.ddl_catalog.render import render_table
from orquestra.guards.table_policy import GuardPolicy, ParentLink, TablePolicy

DDL = """\
system: rental
schema: public
ddl: |
  CREATE TABLE stores (store_id integer PRIMARY KEY, name text);
  CREATE TABLE inventory (inventory_id integer PRIMARY KEY, store_id integer, film_id integer);
  CREATE TABLE rentals (rental_id bigint PRIMARY KEY, inventory_id integer, customer_id integer);
  CREATE TABLE payments (payment_id bigint PRIMARY KEY, rental_id bigint, amount numeric(5,2));
  CREATE TABLE notes (rental_id bigint, customer_id integer, body text);
  CREATE TABLE films (film_id integer PRIMARY KEY, title text);
  CREATE TABLE film_stock (film_id integer, inventory_id integer REFERENCES inventory);
tables:
  stores: {tenant_column: store_id}
  inventory: {tenant_column: store_id}
  rentals:
    tenant_via: {parent: inventory, columns: {inventory_id: inventory_id}}
  payments:
    tenant_via: {parent: rentals, columns: {rental_id: rental_id}}
  notes:
    tenant_via: {parent: rentals, columns: {rental_id: rental_id, customer_id: customer_id}}
  films: {shared: true}
  film_stock: {shared: true, shared_because: "stock levels are public in every store"}
"""


def write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "systems").mkdir(exist_ok=True)
    (tmp_path / "systems" / "rental.yaml").write_text(text, encoding="utf-8")
    return tmp_path


def refused(tmp_path: Path, old: str, new: str) -> CatalogError:
    assert DDL.count(old) == 1, old
    with pytest.raises(CatalogError) as caught:
        load_catalog(write(tmp_path, DDL.replace(old, new)))
    return caught.value


def test_chains_load_and_end_at_the_tenant_column(tmp_path: Path) -> None:
    catalog = load_catalog(write(tmp_path, DDL))
    assert [t.name for t in catalog.tenant_chain("payments")] == [
        "payments",
        "rentals",
        "inventory",
    ]
    assert catalog.tenant_chain("films") == ()
    assert catalog.table("notes").tenancy == "via"
    assert catalog.table("stores").tenancy == "column"
    assert catalog.table("film_stock").tenancy == "shared"
    policy = GuardPolicy.from_catalog(catalog).tables
    assert policy["payments"] == TablePolicy(
        "payments", "public", None, ParentLink("rentals", (("rental_id", "rental_id"),))
    )
    # notes match rentals on a pair that contains its key: each note has one rental at most
    assert not [w for w in catalog.warnings if "tenant_via" in w]
    assert "-- Each row belongs to its rentals row (rental_id = rentals.rental_id)." in (
        render_table(catalog.table("payments"))
    )


@pytest.mark.parametrize(
    ("old", "new", "code", "says"),
    [
        (
            "{parent: rentals, columns: {rental_id: rental_id}}",
            "{parent: rental, columns: {rental_id: rental_id}}",
            "CATALOG_TENANT_VIA",
            "unknown table rental",
        ),
        (
            "{parent: rentals, columns: {rental_id: rental_id}}",
            "{parent: films, columns: {rental_id: film_id}}",
            "CATALOG_TENANT_VIA",
            "films, which is shared",
        ),
        (
            "{parent: rentals, columns: {rental_id: rental_id}}",
            "{parent: rentals, columns: {rental: rental_id}}",
            "CATALOG_TENANT_VIA",
            "uses rental, which is not a column of payments",
        ),
        (
            "{parent: rentals, columns: {rental_id: rental_id}}",
            "{parent: rentals, columns: {rental_id: id}}",
            "CATALOG_TENANT_VIA",
            "rentals.id, which does not exist",
        ),
        (
            "{parent: rentals, columns: {rental_id: rental_id}}",
            "{parent: stores, columns: {amount: store_id}}",
            "CATALOG_TENANT_VIA",
            "of another type (integer vs numeric)",
        ),
        (
            "inventory: {tenant_column: store_id}",
            "inventory: {tenant_via: {parent: payments, columns: {inventory_id: payment_id}}}",
            "CATALOG_TENANT_VIA_CYCLE",
            "circle",
        ),
        (
            "inventory: {tenant_column: store_id}",
            "inventory: {tenant_column: store_id, shared: true}",
            "CATALOG_INVALID",
            "exactly one of",
        ),
        (
            "films: {shared: true}",
            "films: {tenant_column: film_id, shared_because: x}",
            "CATALOG_INVALID",
            "shared_because explains a shared table",
        ),
    ],
)
def test_a_broken_chain_is_refused(
    tmp_path: Path, old: str, new: str, code: str, says: str
) -> None:
    error = refused(tmp_path, old, new)
    assert error.code == code
    assert says in error.message
    assert "rental.yaml:" in error.message


def test_a_link_on_a_column_that_is_not_unique_is_refused(tmp_path: Path) -> None:
    # A payment matched on the customer would belong to every store the customer rented at.
    error = refused(
        tmp_path,
        "{parent: rentals, columns: {rental_id: rental_id}}",
        "{parent: rentals, columns: {rental_id: customer_id}}",
    )
    assert error.code == "CATALOG_TENANT_VIA_NOT_UNIQUE"
    assert "rental.yaml:" in error.message and "(customer_id)" in error.message
    assert "visible to each" in error.message


@pytest.mark.parametrize(
    "unique",
    [
        "CREATE TABLE rentals (rental_id bigint PRIMARY KEY, inventory_id integer,"
        " customer_id integer UNIQUE);",
        "CREATE TABLE rentals (rental_id bigint PRIMARY KEY, inventory_id integer,"
        " customer_id integer, UNIQUE (customer_id));",
        "CREATE TABLE rentals (rental_id bigint PRIMARY KEY, inventory_id integer,"
        " customer_id integer);\n  CREATE UNIQUE INDEX ON rentals (customer_id);",
    ],
)
def test_a_link_on_a_declared_unique_key_loads(tmp_path: Path, unique: str) -> None:
    text = DDL.replace(
        "CREATE TABLE rentals (rental_id bigint PRIMARY KEY, inventory_id integer,"
        " customer_id integer);",
        unique,
    ).replace(
        "{parent: rentals, columns: {rental_id: rental_id}}",
        "{parent: rentals, columns: {rental_id: customer_id}}",
    )
    catalog = load_catalog(write(tmp_path, text))
    assert ("customer_id",) in catalog.table("rentals").unique_keys


def test_a_partial_unique_index_makes_nothing_unique(tmp_path: Path) -> None:
    text = DDL.replace(
        "customer_id integer);\n  CREATE TABLE payments",
        "customer_id integer);\n  CREATE UNIQUE INDEX ON rentals (customer_id) WHERE"
        " customer_id > 0;\n  CREATE TABLE payments",
    ).replace(
        "{parent: rentals, columns: {rental_id: rental_id}}",
        "{parent: rentals, columns: {rental_id: customer_id}}",
    )
    with pytest.raises(CatalogError) as caught:
        load_catalog(write(tmp_path, text))
    assert caught.value.code == "CATALOG_TENANT_VIA_NOT_UNIQUE"


def test_a_shared_table_with_a_key_into_tenant_data_must_say_why(tmp_path: Path) -> None:
    error = refused(
        tmp_path,
        '{shared: true, shared_because: "stock levels are public in every store"}',
        "{shared: true}",
    )
    assert error.code == "CATALOG_SHARED_REFERENCES_TENANT"
    assert "film_stock is shared but its key (inventory_id) → inventory" in error.message
    assert "tenant_via" in error.message and "shared_because" in error.message


def test_a_declared_join_onto_a_tenant_key_counts_as_a_foreign_key(tmp_path: Path) -> None:
    text = DDL.replace(
        "  films: {shared: true}",
        "  films:\n    shared: true\n    joins: [{to: rentals, 'on': {film_id: rental_id}}]",
    ).replace("CREATE TABLE films (film_id integer", "CREATE TABLE films (film_id bigint")
    with pytest.raises(CatalogError) as caught:
        load_catalog(write(tmp_path, text))
    assert caught.value.code == "CATALOG_SHARED_REFERENCES_TENANT"
    assert "films is shared but its key (film_id) → rentals" in caught.value.message


def test_a_join_to_a_tenant_table_that_is_not_its_key_is_no_foreign_key(tmp_path: Path) -> None:
    text = DDL.replace(
        "  films: {shared: true}",
        "  films:\n    shared: true\n    joins: [{to: inventory, 'on': {film_id: film_id}}]",
    )
    assert load_catalog(write(tmp_path, text)).table("films").shared


def test_the_demo_catalog_shares_nothing_keyed_into_tenant_data() -> None:
    catalog = load_catalog()
    for name in (t.name for t in catalog.tables.values() if t.shared):
        assert catalog.table(name).meta.shared_because is None
