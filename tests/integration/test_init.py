"""`orquestra init` end to end: a separate process, a real database of its own, a folder
that loads and checks, and never an overwrite."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import asyncpg
import pytest

from orquestra.core.database import embedded_server
from orquestra.core.deployment import load_deployment
from orquestra.core.settings import Settings
from orquestra.ddl_catalog import load_catalog
from orquestra.ddl_catalog.check import check_catalog
from orquestra.ddl_catalog.knowledge import load_examples
from tests.databases import fresh_database
from tests.integration.rental_schema import create_rental_database

ORQUESTRA = str(Path(sys.executable).parent / "orquestra")
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
async def rental_url(settings: Settings) -> str:
    server_url = embedded_server(settings.data_dir).get_uri()  # type: ignore[attr-defined]
    return await create_rental_database(server_url, "rental_init")


def orquestra(url: str, data_dir: Path, *args: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "DATABASE_URL": url, "ORQUESTRA_DATA_DIR": str(data_dir)}
    return subprocess.run(
        [ORQUESTRA, *args], capture_output=True, text=True, env=environment, cwd=REPO, timeout=300
    )


def init(folder: Path, url: str, data_dir: Path, *options: str) -> subprocess.CompletedProcess:
    return orquestra(url, data_dir, "init", str(folder), "--schema", "public", *options)


async def test_init_writes_a_folder_that_loads_and_checks(
    rental_url: str, data_dir: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "rental"
    result = init(folder, rental_url, data_dir, "--tenant-column", "store_id")
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "tenant_via (confirm the path): payment → rental → inventory" in out
    assert "shared by every tenant (confirm): film, language" in out
    assert "partitioned payment: folded 2 partitions" in out
    assert "without a description" in out
    assert "catalog check clean" in out
    deployment = load_deployment(folder)
    assert deployment.profile.tenant_label("en") == "store"
    catalog = load_catalog(deployment.catalog_dir)
    assert catalog.glossary == ()
    assert load_examples(deployment.catalog_dir) == []
    assert (deployment.catalog_dir / "docs").is_dir()
    assert catalog.table("payment").tenancy == "via"
    conn = await asyncpg.connect(rental_url)
    try:
        assert await check_catalog(conn, catalog) == []
    finally:
        await conn.close()
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    again = init(folder, rental_url, data_dir, "--tenant-column", "store_id")
    assert again.returncode == 2
    assert "error [INIT_DIR_NOT_EMPTY]" in again.stderr
    assert "Traceback" not in again.stdout + again.stderr
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before


def test_init_says_what_to_decide_when_tenancy_is_open(
    rental_url: str, data_dir: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "with-views"
    result = init(folder, rental_url, data_dir, "--tenant-column", "store_id", "--views")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "NO TENANCY, decide: film_list" in result.stdout
    assert "the catalog does not load yet" in result.stdout
    assert (folder / "catalog" / "systems" / "public.yaml").is_file()


def test_catalog_import_writes_the_file_and_prints_the_review(
    rental_url: str, data_dir: Path, tmp_path: Path
) -> None:
    args = ("catalog", "import", "--schema", "public", "--tenant-column", "store_id")
    result = orquestra(rental_url, data_dir, *args, "--out", str(tmp_path / "systems"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "tenant_via (confirm the path): rental → inventory" in result.stdout
    assert load_catalog(tmp_path).table("rental").tenant_via.parent == "inventory"
    again = orquestra(rental_url, data_dir, *args, "--out", str(tmp_path / "systems"))
    assert again.returncode == 2 and "error [FILE_EXISTS]" in again.stderr


PERSONAL_SCHEMA_SQL = """
CREATE DOMAIN account_code AS text CHECK (VALUE <> '529.982.247-25');
CREATE TABLE account (
    account_id integer PRIMARY KEY,
    tenant_id integer NOT NULL,
    code account_code,
    contact text,
    status text NOT NULL,
    hotline text GENERATED ALWAYS AS (CASE WHEN status = 'vip' THEN '(11) 3456-7890' END) STORED
);
COMMENT ON TABLE account IS 'Accounts of each tenant; ask maria.silva@example.com';
COMMENT ON COLUMN account.contact IS 'Escalations: ana.souza@example.com or +55 11 98765-4321';
COMMENT ON COLUMN account.status IS 'Open since 2024-01-15; CFOP 5102; limit R$ 1.234,56';
CREATE INDEX account_vip_idx ON account (status) WHERE contact <> 'vip.client@example.org';
CREATE INDEX account_open_idx ON account (status) WHERE status <> 'closed';
"""
"""A DBA's schema text holding personal data: comments, an index predicate, a generated
column and a domain check; one comment and one predicate hold none (kept as written)."""
PERSONAL_VALUES = (
    "maria.silva@example.com",
    "ana.souza@example.com",
    "98765-4321",
    "vip.client@example.org",
    "3456-7890",
    "529.982.247-25",
)


@pytest.fixture(scope="module")
async def personal_url(settings: Settings) -> str:
    server_url = embedded_server(settings.data_dir).get_uri()  # type: ignore[attr-defined]
    url = await fresh_database(server_url, "init_personal_data")
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(PERSONAL_SCHEMA_SQL)
    finally:
        await conn.close()
    return url


def test_init_leaves_personal_data_out_of_the_catalog_and_lists_it(
    personal_url: str, data_dir: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "accounts"
    result = init(folder, personal_url, data_dir, "--tenant-column", "tenant_id")
    assert result.returncode == 0, result.stdout + result.stderr
    written = "\n".join(p.read_text(encoding="utf-8") for p in folder.rglob("*") if p.is_file())
    for value in PERSONAL_VALUES:
        assert value not in written
        assert value not in result.stdout + result.stderr
    listed = [line for line in result.stdout.splitlines() if "personal data, not copied" in line]
    assert any(
        "account: column contact comment — e-mail address, phone number:"
        " 'Escalations: <e-mail address> or <phone number>'" in line
        for line in listed
    )
    assert any("account: table comment — e-mail address" in line for line in listed)
    assert any(
        "account: index account_vip_idx predicate — e-mail address" in line for line in listed
    )
    assert any(
        "account: column hotline generated expression — phone number" in line for line in listed
    )
    assert any("domain account_code CHECK — document number (CPF)" in line for line in listed)
    assert len(listed) == 5
    assert (
        "REVIEW personal data not copied (e-mail address, phone number): column contact" in written
    )
    catalog = load_catalog(folder / "catalog")
    table = catalog.table("account")
    assert table.meta.description == ""
    assert table.column("contact").meta.description == ""
    assert (
        table.column("status").meta.description
        == "Open since 2024-01-15; CFOP 5102; limit R$ 1.234,56"
    )
    indexes = " ".join(catalog.systems[0].index_ddl)
    assert "account_open_idx" in indexes and "account_vip_idx" not in indexes


def test_catalog_import_leaves_out_the_same_text(
    personal_url: str, data_dir: Path, tmp_path: Path
) -> None:
    args = ("catalog", "import", "--schema", "public", "--tenant-column", "tenant_id")
    result = orquestra(personal_url, data_dir, *args, "--out", str(tmp_path / "systems"))
    assert result.returncode == 0, result.stdout + result.stderr
    written = (tmp_path / "systems" / "public.yaml").read_text(encoding="utf-8")
    assert not [value for value in PERSONAL_VALUES if value in written]
    assert result.stdout.count("personal data, not copied") == 5
