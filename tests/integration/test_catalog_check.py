"""`catalog check` and `catalog import` against the live demo database."""

from __future__ import annotations

from pathlib import Path

import asyncpg
import pytest
import yaml

from orquestra.ddl_catalog import load_catalog
from orquestra.ddl_catalog.check import check_catalog
from orquestra.ddl_catalog.importer import import_schema
from tests.catalog_copies import catalog_copy, edit


async def test_demo_catalog_is_clean(demo_db, conn: asyncpg.Connection) -> None:
    assert await check_catalog(conn, load_catalog()) == []


async def test_check_leaves_nothing_behind(demo_db, conn: asyncpg.Connection) -> None:
    await check_catalog(conn, load_catalog())
    scratch = await conn.fetchval(
        "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'orquestra_catalog_check%'"
    )
    assert scratch == 0


@pytest.mark.parametrize(
    ("old", "new", "code"),
    [
        ("valor_nota       numeric(14,2)", "valor_nota       numeric(12,2)", "TYPE_MISMATCH"),
        ("motivo_bloqueio  text,", "motivo_bloqueio  text NOT NULL,", "NULLABILITY_MISMATCH"),
        (
            "cfop             text           NOT NULL,",
            "cfop             text           NOT NULL,\n      natureza text,",
            "COLUMN_MISSING",
        ),
    ],
)
async def test_broken_copy_reports_the_drift_at_its_line(
    demo_db, conn: asyncpg.Connection, tmp_path: Path, old: str, new: str, code: str
) -> None:
    folder = catalog_copy(tmp_path)
    path = folder / "systems" / "fiscal.yaml"
    line = edit(path, old, new)
    if code == "COLUMN_MISSING":
        line += 1
    drifts = await check_catalog(conn, load_catalog(folder))
    assert [(d.code, d.where.file.name, d.where.line) for d in drifts] == [
        (code, "fiscal.yaml", line)
    ]


async def test_dropped_column_and_renamed_table_and_broken_join(
    demo_db, conn: asyncpg.Connection, tmp_path: Path
) -> None:
    folder = catalog_copy(tmp_path)
    fiscal = folder / "systems" / "fiscal.yaml"
    edit(fiscal, "      cfop             text           NOT NULL,\n", "")
    edit(fiscal, "      cfop:\n", "      cfop_removed:\n")
    text = fiscal.read_text()
    # metadata for the dropped column must go too; the loader insists
    start = text.index("      cfop_removed:\n")
    end = text.index("      status:\n", start)
    fiscal.write_text(text[:start] + text[end:])
    financeiro = folder / "systems" / "financeiro.yaml"
    edit(financeiro, "CREATE TABLE titulos (", "CREATE TABLE titulos_a_receber (")
    edit(financeiro, "\n  titulos:\n", "\n  titulos_a_receber:\n")
    financeiro.write_text(financeiro.read_text().replace("ON titulos (", "ON titulos_a_receber ("))
    glossary = folder / "glossary.yaml"
    glossary.write_text(glossary.read_text().replace("titulos", "titulos_a_receber"))
    catalog = load_catalog(folder)
    codes = sorted(d.code for d in await check_catalog(conn, catalog))
    assert "COLUMN_EXTRA" in codes  # cfop exists in the database only
    assert "TABLE_MISSING" in codes  # titulos_a_receber does not exist
    assert "JOIN_BROKEN" in codes  # joins from the missing table have no columns
    assert "METRIC_BROKEN" in codes  # título vencido now reads a missing table


async def test_imported_catalog_round_trips(
    demo_db, conn: asyncpg.Connection, tmp_path: Path
) -> None:
    result = await import_schema(conn, "public", system="public", tenant_column="cod_fornecedor")
    # the one table without the tenant column has no key into tenant data: proposed shared
    assert result.tenancy.shared == ("transportadoras",)
    assert result.undecided == []
    (tmp_path / "systems").mkdir()
    (tmp_path / "systems" / "public.yaml").write_text(result.text)
    imported = load_catalog(tmp_path)
    demo = load_catalog()
    assert set(imported.tables) == set(demo.tables)
    for name, table in demo.tables.items():
        assert imported.table(name).column_names == table.column_names
        assert imported.table(name).primary_key == table.primary_key
        assert imported.table(name).tenancy == table.tenancy
    assert sum(len(s.index_ddl) for s in imported.systems) == sum(
        len(s.index_ddl) for s in demo.systems
    )
    assert await check_catalog(conn, imported) == []


async def test_import_keeps_comments_and_foreign_keys(db_url: str, tmp_path: Path) -> None:
    conn = await asyncpg.connect(db_url)
    try:
        await conn.execute(
            """CREATE SCHEMA IF NOT EXISTS erp;
               CREATE TABLE IF NOT EXISTS erp."Order" (id int PRIMARY KEY, cod_fornecedor int);
               CREATE TABLE IF NOT EXISTS erp.line (order_id int REFERENCES erp."Order"(id),
                                                    cod_fornecedor int NOT NULL, qty int);
               COMMENT ON TABLE erp.line IS 'Order lines';
               COMMENT ON COLUMN erp.line.qty IS 'Units ordered';"""
        )
        result = await import_schema(conn, "erp", system="erp", tenant_column="cod_fornecedor")
    finally:
        await conn.close()
    assert result.undecided == []
    text = result.text
    document = yaml.safe_load(text)
    assert 'CREATE TABLE "Order"' in document["ddl"]
    line = document["tables"]["line"]
    assert line["description"] == "Order lines"
    assert line["columns"]["qty"]["description"] == "Units ordered"
    assert line["joins"] == [{"to": "Order", "on": {"order_id": "id"}}]
    (tmp_path / "systems").mkdir()
    (tmp_path / "systems" / "erp.yaml").write_text(text)
    assert set(load_catalog(tmp_path).tables) == {"Order", "line"}
