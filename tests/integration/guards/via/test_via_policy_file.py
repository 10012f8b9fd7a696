"""The rental chain's tenancy as a guard policy file, and the catalog that must fail closed.

The hand-written policy file must scope every table exactly as the catalog does; the
`orquestra guard rewrite --policy FILE` path must produce SQL that, run on the database,
returns the store's own rows; and a catalog sharing a table keyed into tenant data without
saying why is refused.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from pathlib import Path

import asyncpg
import pytest

from orquestra.ddl_catalog import Catalog, load_catalog
from orquestra.ddl_catalog.loader import CatalogError
from orquestra.guards import GuardPolicy
from orquestra.guards.tenant_query import run_as_tenant
from tests.integration.guards.conftest import multiset
from tests.integration.guards.via.conftest import (
    CATALOG_DIR,
    LIMITS,
    POLICY_FILE,
    run_on_copy,
)

REPO = Path(__file__).resolve().parents[4]
CHAIN_QUERY = (
    "SELECT p.payment_id, p.amount, n.body FROM payment p "
    "LEFT JOIN rental_note n ON n.rental_id = p.rental_id"
)


def test_the_policy_file_scopes_every_table_as_the_catalog(via_catalog: Catalog) -> None:
    assert GuardPolicy.from_file(POLICY_FILE).tables == GuardPolicy.from_catalog(via_catalog).tables


def test_tenancy_is_only_on_root_tables(via_catalog: Catalog) -> None:
    kinds = {name: table.tenancy for name, table in via_catalog.tables.items()}
    assert {n for n, k in kinds.items() if k == "via"} == {
        "rental",
        "payment",
        "rental_note",
        "supply_line",
    }
    assert [t.name for t in via_catalog.tenant_chain("payment")] == [
        "payment",
        "rental",
        "inventory",
    ]


def test_sharing_a_table_keyed_into_tenant_data_needs_a_reason(tmp_path: Path) -> None:
    shutil.copytree(CATALOG_DIR, tmp_path / "catalog")
    films = tmp_path / "catalog" / "systems" / "films.yaml"
    text = films.read_text(encoding="utf-8")
    films.write_text(
        "\n".join(line for line in text.splitlines() if "shared_because" not in line) + "\n",
        encoding="utf-8",
    )
    with pytest.raises(CatalogError) as refused:
        load_catalog(tmp_path / "catalog")
    assert refused.value.code == "CATALOG_SHARED_REFERENCES_TENANT"
    assert "picked_by_store" in refused.value.message


@pytest.mark.parametrize("tenant", ["1", "3"])
async def test_rewrite_command_with_the_policy_file(
    tenant: str, owner: asyncpg.Connection, tmp_path: Path
) -> None:
    process = await asyncio.create_subprocess_exec(
        *[
            str(Path(sys.executable).parent / "orquestra"),
            "guard",
            "rewrite",
            "--policy",
            str(POLICY_FILE),
        ],
        *["--tenant", tenant, "--max-rows", "0"],
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=REPO,
        env={**os.environ, "ORQUESTRA_DATA_DIR": str(tmp_path)},
    )
    stdout, stderr = await asyncio.wait_for(process.communicate(CHAIN_QUERY.encode()), 120)
    assert process.returncode == 0, stderr.decode()
    out = json.loads(stdout)
    assert out["params"] == [tenant]
    assert "public.inventory WHERE inventory.store_id = $1" in out["sql"]
    result = await run_as_tenant(owner, out["sql"], out["params"], tenant=tenant, limits=LIMITS)
    expected = multiset(await run_on_copy(owner, CHAIN_QUERY, tenant))
    assert multiset(result.rows) == expected and sum(expected.values()) > 0
