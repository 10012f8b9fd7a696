"""Profiling at import (`ddl_catalog.profiling`), on real databases: values, kinds, words,
comments, language, glossary drafts — and never one tenant's value in what `init` writes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from itertools import pairwise
from pathlib import Path
from typing import Any

import asyncpg
import pytest
import yaml

from orquestra.core.database import embedded_server
from orquestra.core.deployment import load_deployment
from orquestra.core.settings import Settings
from orquestra.ddl_catalog import load_catalog
from orquestra.ddl_catalog import profiling as profiling_module
from orquestra.ddl_catalog.importer import SchemaImport, import_schema, review_lines
from orquestra.ddl_catalog.model import Catalog, base_type
from orquestra.ddl_catalog.naming import TEXT_TYPES
from tests.databases import fresh_database
from tests.schemas import load_schema

ORQUESTRA = str(Path(sys.executable).parent / "orquestra")
REPO = Path(__file__).resolve().parents[2]

SHOPS_SQL = """
CREATE DOMAIN money_amount AS numeric(12,2) CHECK (VALUE >= 0);
CREATE TABLE tenant (tenant_id integer PRIMARY KEY, name text NOT NULL);
CREATE TABLE shop (
    shop_id integer PRIMARY KEY,
    tenant_id integer NOT NULL REFERENCES tenant,
    category text NOT NULL,
    status text NOT NULL,
    company text,
    notes text,
    "custJoinDt" varchar(8),
    "totalAmt" numeric(12,2)
);
COMMENT ON TABLE shop IS 'Shops of each tenant';
COMMENT ON COLUMN shop.status IS 'Where the shop stands';
CREATE TABLE sale (
    sale_id integer PRIMARY KEY,
    shop_id integer NOT NULL REFERENCES shop,
    channel text NOT NULL,
    sold_on date NOT NULL,
    amount money_amount NOT NULL
);
CREATE TABLE country (country_code text PRIMARY KEY, name text NOT NULL);
INSERT INTO tenant SELECT g, 'Tenant number ' || g FROM generate_series(1, 5) g;
INSERT INTO shop SELECT g, 1 + g % 5, CASE WHEN g % 2 = 0 THEN 'SHOES' ELSE 'BAGS' END, 'OPEN',
    'Company of tenant ' || (1 + g % 5), NULL, '20240101', 10 FROM generate_series(1, 40) g;
INSERT INTO shop VALUES
    (41, 1, 'ACME PRIVATE LINE', 'HELD FOR ACME', 'Acme Widgets Ltd', 'call Joe', '2024', 5);
INSERT INTO sale SELECT g, 1 + g % 40, CASE WHEN g % 3 = 0 THEN 'ONLINE' ELSE 'STORE' END,
    DATE '2024-01-01' + g % 30, 9.5 FROM generate_series(1, 400) g;
INSERT INTO sale VALUES (401, 41, 'ACME KIOSK', DATE '2024-02-01', 1), (402, 41, 'ACME KIOSK',
    DATE '2024-02-02', 1);
INSERT INTO country VALUES ('BR', 'Brazil'), ('PT', 'Portugal'), ('US', 'United States');
"""
"""Five tenants' shops: categories, statuses and channels every tenant has, and one tenant's
own category, status, channel, company names and notes, which must never be written."""
ONE_TENANTS = (
    "ACME PRIVATE LINE",
    "HELD FOR ACME",
    "Acme Widgets Ltd",
    "ACME KIOSK",
    "call Joe",
    "Company of tenant 1",
    "Tenant number 1",
)


@pytest.fixture(scope="module")
def server_url(settings: Settings) -> str:
    return embedded_server(settings.data_dir).get_uri()  # type: ignore[attr-defined,no-any-return]


@pytest.fixture(scope="module")
async def shops(server_url: str) -> str:
    url = await fresh_database(server_url, "profiling_shops")
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(SHOPS_SQL)
    finally:
        await conn.close()
    return url


async def imported(url: str, tenant_column: str | None) -> SchemaImport:
    conn = await asyncpg.connect(url)
    try:
        return await import_schema(conn, "public", system="public", tenant_column=tenant_column)
    finally:
        await conn.close()


def columns_of(result: SchemaImport) -> dict[str, dict[str, Any]]:
    """`table.column` → its entry in the written system file."""
    tables = yaml.safe_load(result.text)["tables"]
    return {f"{t}.{c}": meta for t, entry in tables.items() for c, meta in entry["columns"].items()}


async def test_common_values_are_written_and_one_tenants_never(shops: str) -> None:
    result = await imported(shops, "tenant_id")
    columns = columns_of(result)
    assert list(columns["shop.category"]["values"]) == ["BAGS", "SHOES"]
    assert list(columns["shop.status"]["values"]) == ["OPEN"]
    assert list(columns["sale.channel"]["values"]) == ["STORE", "ONLINE"]  # via shop's tenant
    assert "values" not in columns["shop.company"]  # every company is one tenant's
    assert list(columns["country.name"]["values"]) == ["Brazil", "Portugal", "United States"]
    review = "\n".join(review_lines(result))
    for value in ONE_TENANTS:
        assert value not in result.text and value not in review
    assert result.profile.left_out == {
        "shop.category": 1,
        "shop.status": 1,
        "shop.company": 6,
        "sale.channel": 1,
    }
    assert "values left out, held by fewer than 3 tenants (or 20% of them): " in review
    assert "values read from tables proposed shared (if one holds tenant rows" in review


async def test_kinds_words_and_comments(shops: str) -> None:
    result = await imported(shops, "tenant_id")
    tables = yaml.safe_load(result.text)["tables"]
    shop, columns = tables["shop"], columns_of(result)
    assert shop["description"] == "Shops of each tenant"
    assert columns["shop.status"]["description"] == "Where the shop stands"
    joined = columns["shop.custJoinDt"]
    assert joined["description_en"] == "cust join date"
    assert joined["synonyms"] == {"pt": [], "en": ["cust join date"]}
    assert joined["kind"] == "date"  # a date kept as text, by its name's words
    # an amount by its name, and one whose type is a domain over numeric
    assert (columns["shop.totalAmt"]["kind"], columns["sale.amount"]["kind"]) == ("amount",) * 2
    assert columns["sale.sold_on"]["kind"] == "date"
    assert columns["shop.tenant_id"]["kind"] == "identifier"
    assert columns["sale.shop_id"]["kind"] == "identifier"
    assert "kind" not in columns["shop.category"]
    assert columns["shop.status"]["synonyms"] == {"pt": [], "en": []}  # nothing to add
    assert result.profile.language == "en"


async def test_a_slow_table_is_listed_never_guessed(
    shops: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn = await asyncpg.connect(shops)
    try:
        await conn.execute(
            "CREATE OR REPLACE VIEW slow_kind AS"
            " SELECT k AS kind FROM (VALUES ('a'), ('a'), ('b'), ('b')) AS v(k),"
            " LATERAL (SELECT pg_sleep(0.2)) AS s"
        )
        monkeypatch.setattr(profiling_module, "TIMEOUT_MS", 100)
        result = await import_schema(conn, "public", system="p", tenant_column=None, views=True)
    finally:
        await conn.execute("DROP VIEW slow_kind")
        await conn.close()
    assert result.profile.not_read == {"slow_kind": "reading a sample took longer than 0.1 s"}
    assert "values" not in columns_of(result)["slow_kind.kind"]
    assert "not profiled: slow_kind: reading a sample took longer than 0.1 s" in review_lines(
        result
    )


async def test_a_large_table_is_sampled(shops: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(profiling_module, "SAMPLE_ROWS", 50)
    conn = await asyncpg.connect(shops)
    try:
        await conn.execute("ANALYZE sale")
    finally:
        await conn.close()
    result = await imported(shops, "tenant_id")
    assert "sale" in result.profile.sampled
    assert "profiled on a sample of 50 rows: " in "\n".join(review_lines(result))


async def test_a_portuguese_schema_drafts_a_portuguese_profile(
    server_url: str, tmp_path: Path, data_dir: Path
) -> None:
    url = await fresh_database(server_url, "profiling_pt")
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(
            "CREATE TABLE pedido (cod_pedido integer PRIMARY KEY, dt_emissao date,"
            " vlr_total numeric(12,2), situacao text, qtd_itens integer);"
            "COMMENT ON TABLE pedido IS 'Pedidos feitos pelos clientes da loja';"
            "INSERT INTO pedido SELECT g, DATE '2024-01-01' + g, 10 * g,"
            " CASE WHEN g % 2 = 0 THEN 'ABERTO' ELSE 'FECHADO' END, g FROM generate_series(1, 20) g"
        )
    finally:
        await conn.close()
    folder = tmp_path / "loja"
    result = orquestra(url, data_dir, "init", str(folder), "--schema", "public", "--no-tenancy")
    assert result.returncode == 0, result.stdout + result.stderr
    profile = load_deployment(folder).profile
    assert (profile.default_language, profile.languages[0]) == ("pt", "pt")
    columns = yaml.safe_load((folder / "catalog" / "systems" / "public.yaml").read_text())
    vlr = columns["tables"]["pedido"]["columns"]["vlr_total"]
    assert (vlr["description"], vlr["synonyms"]["pt"], vlr["kind"]) == (
        "valor total",
        ["valor total"],
        "amount",
    )
    catalog = load_catalog(folder / "catalog")
    assert [t.term for t in catalog.drafts] == ["pedido valor total", "quantidade de pedido"]
    assert catalog.glossary == ()


def orquestra(url: str, data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "DATABASE_URL": url, "ORQUESTRA_DATA_DIR": str(data_dir)}
    return subprocess.run(
        [ORQUESTRA, *args], capture_output=True, text=True, env=environment, cwd=REPO, timeout=300
    )


async def test_northwind_without_tenants_gets_its_values(
    server_url: str, tmp_path: Path, data_dir: Path
) -> None:
    url, _ = await load_schema(server_url, "northwind", "profiling_northwind", foreign_keys=False)
    folder = tmp_path / "northwind"
    result = orquestra(url, data_dir, "init", str(folder), "--schema", "public", "--no-tenancy")
    assert result.returncode == 0, result.stdout + result.stderr
    catalog = load_catalog(folder / "catalog")
    orders, customers = catalog.table("orders"), catalog.table("customers")
    assert {"Germany", "USA", "Brazil", "France"} <= set(orders.column("ship_country").meta.values)
    assert {"Germany", "USA", "Mexico"} <= set(customers.column("country").meta.values)
    assert "Beverages" in catalog.table("categories").column("category_name").meta.values
    for name in ("company_name", "contact_name", "phone", "address", "city"):
        assert not customers.column(name).meta.values, name  # names, contacts, one-offs
    assert orders.column("freight").meta.kind == "amount"
    assert orders.column("order_date").meta.kind == "date"
    assert "total freight" in [t.term for t in catalog.drafts] and catalog.glossary == ()
    checked = orquestra(url, data_dir, "catalog", "check", "--catalog", str(folder / "catalog"))
    assert "drafts to confirm (draft: true)" in checked.stdout, checked.stdout + checked.stderr


async def test_chinook_init_writes_no_value_of_one_tenant(
    server_url: str, tmp_path: Path, data_dir: Path
) -> None:
    url, _ = await load_schema(server_url, "chinook", "profiling_chinook")
    folder = tmp_path / "chinook"
    result = orquestra(
        url,
        data_dir,
        "init",
        str(folder),
        "--schema",
        "public",
        "--tenant-column",
        "support_rep_id",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    catalog = load_catalog(folder / "catalog")
    assert catalog.table("invoice_line").tenant_via.parent == "invoice"
    assert {"USA", "Canada"} <= set(catalog.table("customer").column("country").meta.values)
    conn = await asyncpg.connect(url)
    try:
        own = await one_tenants_values(conn, catalog)
    finally:
        await conn.close()
    assert len(own) > 200  # names, e-mails, companies, cities, one country or another
    assert_nothing_written(folder, result.stdout + result.stderr, own, catalog)


async def test_chinook_without_foreign_keys_writes_no_value_of_one_tenant(
    server_url: str, tmp_path: Path
) -> None:
    url, _ = await load_schema(server_url, "chinook", "profiling_chinook_no_fk", foreign_keys=False)
    result = await imported(url, "support_rep_id")
    (tmp_path / "systems").mkdir()
    (tmp_path / "systems" / "public.yaml").write_text(result.text, encoding="utf-8")
    catalog = load_catalog(tmp_path)
    assert catalog.table("invoice").tenancy == "via"  # through a proposed join
    conn = await asyncpg.connect(url)
    try:
        own = await one_tenants_values(conn, catalog)
    finally:
        await conn.close()
    assert_nothing_written(tmp_path, "\n".join(review_lines(result)), own, catalog)


async def one_tenants_values(conn: asyncpg.Connection, catalog: Catalog) -> set[str]:
    """Every text value of a tenant table found in one tenant's rows only, except those a
    shared table holds too (every tenant reads a shared table)."""
    own: set[str] = set()
    shared: set[str] = set()
    for table in catalog.tables.values():
        texts = [c.name for c in table.columns if base_type(c.type_sql) in TEXT_TYPES]
        chain = catalog.tenant_chain(table.name)
        for column in texts:
            if not chain:
                rows = await conn.fetch(
                    f'SELECT DISTINCT "{column}"::text AS v FROM "{table.name}"'
                )
                shared |= {r["v"] for r in rows if r["v"]}
                continue
            joins, last = "", "t0"
            for hop, (child, parent) in enumerate(pairwise(chain), start=1):
                assert child.tenant_via is not None
                on = " AND ".join(
                    f't{hop}."{p}" = t{hop - 1}."{c}"' for c, p in child.tenant_via.columns.items()
                )
                joins += f' JOIN "{parent.name}" t{hop} ON {on}'
                last = f"t{hop}"
            rows = await conn.fetch(
                f'SELECT t0."{column}"::text AS v FROM "{table.name}" t0{joins}'
                f' GROUP BY 1 HAVING count(DISTINCT {last}."{chain[-1].tenant_column}") = 1'
            )
            own |= {r["v"] for r in rows if r["v"]}
    return own - shared


def assert_nothing_written(folder: Path, output: str, own: set[str], catalog: Catalog) -> None:
    """No written file (nor what the command printed) holds one of `own`: as a word in any
    text when it is long enough to tell, and never as an enumerated value."""
    written = {p: p.read_text(encoding="utf-8") for p in folder.rglob("*") if p.is_file()}
    written[Path("<output>")] = output
    for value in (v for v in own if len(v) >= 4 and any(ch.isalpha() for ch in v)):
        pattern = re.compile(rf"(?<!\w){re.escape(value)}(?!\w)")
        for path, text in written.items():
            assert not pattern.search(text), f"{value!r} of one tenant is in {path}"
    for table in catalog.tables.values():
        for column in table.columns:
            assert not set(column.meta.values) & own, f"{table.name}.{column.name}"
