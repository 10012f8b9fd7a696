"""`catalog import` and `catalog check` on a real-world schema (DVD-rental-like, tenant =
store): types, partitions, views, and tenancy proposed along foreign keys, fail-closed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest
import yaml

from orquestra.core.database import embedded_server
from orquestra.core.settings import Settings
from orquestra.ddl_catalog import CatalogError, load_catalog
from orquestra.ddl_catalog.check import check_catalog
from orquestra.ddl_catalog.importer import import_schema, review_lines
from tests.integration.rental_schema import create_rental_database

SCHEMAS = ("public", "dvd")
"""`dvd` is not on the default search_path: its own types must still resolve."""


@pytest.fixture(scope="module", params=SCHEMAS)
async def rental(request: pytest.FixtureRequest, settings: Settings) -> AsyncIterator[tuple]:
    """A connection to a fresh rental database, and the schema holding the tables."""
    server_url = embedded_server(settings.data_dir).get_uri()  # type: ignore[attr-defined]
    url = await create_rental_database(server_url, f"rental_import_{request.param}", request.param)
    conn = await asyncpg.connect(url)
    try:
        yield conn, request.param
    finally:
        await conn.close()


async def _imported_catalog(conn, schema: str, folder: Path, **options):
    result = await import_schema(conn, schema, system=schema, tenant_column="store_id", **options)
    (folder / "systems").mkdir(parents=True, exist_ok=True)
    (folder / "systems" / f"{schema}.yaml").write_text(result.text, encoding="utf-8")
    return result


async def test_tenancy_follows_foreign_keys(rental, tmp_path: Path) -> None:
    conn, schema = rental
    result = await _imported_catalog(conn, schema, tmp_path)
    catalog = load_catalog(tmp_path)
    tenancy = {name: table.tenancy for name, table in catalog.tables.items()}
    assert tenancy == {
        "store": "column",
        "customer": "column",
        "inventory": "column",
        "rental": "via",
        "payment": "via",
        "note": "via",  # keys into rental and film: never shared
        "feedback": "via",
        "film": "shared",
        "language": "shared",
    }
    assert catalog.table("rental").tenant_via.model_dump() == {
        "parent": "inventory",
        "columns": {"inventory_id": "inventory_id"},
    }
    chain = [t.name for t in catalog.tenant_chain("payment")]
    assert chain == ["payment", "rental", "inventory"]
    assert "  # REVIEW tenant_via: payment → rental → inventory" in result.text
    # two paths: the shortest is chosen, the other named for a person to confirm
    assert catalog.table("feedback").tenant_via.parent == "customer"
    assert "feedback → customer (on customer_id = customer.customer_id); not chosen: " in (
        "\n".join(review_lines(result))
    )
    assert "not chosen: feedback → rental → inventory" in result.text
    # and whether the choice matters, measured on the rows
    disagreement = (
        "not chosen, feedback → rental → inventory: ANOTHER tenant on 1 of 2 sampled rows"
    )
    assert f"  {disagreement}" in review_lines(result)
    assert f"  #   {disagreement}" in result.text


async def test_no_table_keyed_into_tenant_data_is_proposed_shared(rental, tmp_path: Path) -> None:
    conn, schema = rental
    await _imported_catalog(conn, schema, tmp_path)
    catalog = load_catalog(tmp_path)
    keys = await conn.fetch(
        """SELECT src.relname AS source, dst.relname AS target FROM pg_constraint f
           JOIN pg_class src ON src.oid = f.conrelid JOIN pg_class dst ON dst.oid = f.confrelid
           WHERE f.contype = 'f' AND src.relnamespace = $1::regnamespace""",
        schema,
    )
    tenant = {name for name, table in catalog.tables.items() if not table.shared}
    keyed_into_tenant = {k["source"] for k in keys if k["target"] in tenant}
    assert keyed_into_tenant >= {"note", "rental", "feedback", "customer", "inventory"}
    assert keyed_into_tenant.isdisjoint({t.name for t in catalog.tables.values() if t.shared})


async def test_types_arrays_and_generated_columns(rental, tmp_path: Path) -> None:
    conn, schema = rental
    result = await _imported_catalog(conn, schema, tmp_path)
    catalog = load_catalog(tmp_path)
    rating = catalog.types["mpaa_rating"]
    assert (rating.kind, rating.values) == ("enum", ("G", "PG", "PG-13", "R", "NC-17"))
    assert (catalog.types["year"].kind, catalog.types["year"].base) == ("domain", "integer")
    film = catalog.table("film")
    assert list(film.column("rating").meta.values) == ["G", "PG", "PG-13", "R", "NC-17"]
    assert film.column("rating").meta.description == "Age rating"
    assert film.meta.description == "Films the chain rents out"
    types = {c.name: c.type_sql for c in film.columns}
    assert (types["release_year"], types["special_features"], types["fulltext"]) == (
        "year",
        "text[]",
        "tsvector",
    )
    assert "title_upper       text GENERATED ALWAYS AS (upper(title)) STORED" in result.text
    assert not catalog.warnings or all("has no metadata" not in w for w in catalog.warnings)


async def test_partitions_fold_into_their_table(rental, tmp_path: Path) -> None:
    conn, schema = rental
    result = await _imported_catalog(conn, schema, tmp_path)
    catalog = load_catalog(tmp_path)
    assert not any(name.startswith("payment_p") for name in catalog.tables)
    assert result.partitions == {"payment": ("payment_p2022_01", "payment_p2022_02")}
    payment = catalog.table("payment")
    assert payment.primary_key == ("payment_date", "payment_id")
    assert [j.model_dump() for j in payment.meta.joins] == [
        {"to": "rental", "on": {"rental_id": "rental_id"}, "description": ""}
    ]
    assert ") PARTITION BY RANGE (payment_date);" in result.text
    assert "CREATE INDEX payment_rental_idx ON payment (rental_id);" in result.text


async def test_views_only_when_asked_and_undecided_without_the_tenant(
    rental, tmp_path: Path
) -> None:
    conn, schema = rental
    plain = await import_schema(conn, schema, system=schema, tenant_column="store_id")
    assert {"film_list", "sales_by_store"}.isdisjoint(plain.tables)
    result = await _imported_catalog(conn, schema, tmp_path, views=True)
    assert set(result.views) == {"film_list", "sales_by_store"}
    assert list(result.tenancy.undecided) == ["film_list"]
    assert "sales_by_store" in result.tenancy.roots
    with pytest.raises(CatalogError, match="declare exactly one of tenant_column"):
        load_catalog(tmp_path)
    path = tmp_path / "systems" / f"{schema}.yaml"
    document = yaml.safe_load(path.read_text())
    document["tables"]["film_list"]["tenant_column"] = None
    document["tables"]["film_list"]["shared"] = True
    path.write_text(yaml.safe_dump(document, allow_unicode=True, sort_keys=False))
    catalog = load_catalog(tmp_path)
    assert await check_catalog(conn, catalog) == []


async def test_check_is_clean_and_finds_type_and_partition_drift(rental, tmp_path: Path) -> None:
    conn, schema = rental
    await _imported_catalog(conn, schema, tmp_path)
    assert await check_catalog(conn, load_catalog(tmp_path)) == []
    path = tmp_path / "systems" / f"{schema}.yaml"
    text = path.read_text()
    path.write_text(
        text.replace("'R', 'NC-17');", "'R', 'NC-17', 'X');")
        .replace(") PARTITION BY RANGE (payment_date);", ");")
        .replace("AS integer CHECK", "AS bigint CHECK")
    )
    drifts = await check_catalog(conn, load_catalog(tmp_path))
    assert sorted(d.code for d in drifts) == [
        "DOMAIN_BASE_MISMATCH",
        "ENUM_VALUES_MISMATCH",
        "PARTITIONING_MISMATCH",
    ]
    enum = next(d for d in drifts if d.code == "ENUM_VALUES_MISMATCH")
    assert enum.where.line == text[: text.index("CREATE TYPE mpaa_rating")].count("\n") + 1


async def test_without_the_tenant_column_nothing_is_proposed(rental) -> None:
    conn, schema = rental
    result = await import_schema(conn, schema, system=schema, tenant_column="tenant_id")
    assert result.tenancy.shared == () and result.tenancy.via == {}
    assert set(result.tenancy.undecided) == set(result.tables)
    assert "pass --tenant-column" in next(iter(result.tenancy.undecided.values()))


async def test_check_refuses_a_shared_table_the_database_keys_into_tenant_data(
    rental, tmp_path: Path
) -> None:
    """A hand-edited catalog that calls `note` shared and drops its join: the loader cannot
    see the key, the database still has it."""
    conn, schema = rental
    await _imported_catalog(conn, schema, tmp_path)
    path = tmp_path / "systems" / f"{schema}.yaml"
    document = yaml.safe_load(path.read_text())
    note = document["tables"]["note"]
    del note["tenant_via"], note["joins"]
    note["shared"] = True
    path.write_text(yaml.safe_dump(document, allow_unicode=True, sort_keys=False))
    drifts = await check_catalog(conn, load_catalog(tmp_path))
    assert [d.code for d in drifts] == ["SHARED_REFERENCES_TENANT"]
    assert "keys it (rental_id) into rental" in drifts[0].message
    note["shared_because"] = "notes are public reviews"
    path.write_text(yaml.safe_dump(document, allow_unicode=True, sort_keys=False))
    assert await check_catalog(conn, load_catalog(tmp_path)) == []


async def test_an_empty_or_missing_schema_is_an_error(rental) -> None:
    conn, _ = rental
    with pytest.raises(CatalogError) as error:
        await import_schema(conn, "no_such_schema", system="x", tenant_column="store_id")
    assert error.value.code == "IMPORT_SCHEMA_EMPTY"
