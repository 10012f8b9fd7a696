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
    assert "partitioned payment: folded 2 partition(s)" in out
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
