"""The clinics sample deployment on real PostgreSQL: catalog, generator, eval gold SQL, tenancy.

The sample is the session's clinics database (tests/conftest.py `clinics_db`: its own
database on the embedded PostgreSQL, loaded once as `orquestra db init --deployment clinics`
would, shared with the suites that run on both deployments), so it never meets the
logistics demo. Tenancy through parents is checked against an oracle built from the
catalog alone: each child row's unit is found by joining up its parent chain as the owner.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import asyncpg
import pytest

from orquestra.core.database import admin_url, agent_url
from orquestra.core.deployment import load_deployment
from orquestra.core.settings import Settings
from orquestra.ddl_catalog.knowledge import load_examples
from orquestra.ddl_catalog.loader import load_catalog
from orquestra.ddl_catalog.model import Catalog
from orquestra.guards.sql_guard import guard_sql
from orquestra.guards.table_policy import GuardPolicy
from orquestra.guards.tenant_query import ExecutionLimits, run_as_tenant
from orquestra.offline.lexicon import lexicon_for
from orquestra.offline.parser import parse
from orquestra.offline.sql import build_sql
from tests.deployment_cases import chain_join_sql

REPO = Path(__file__).resolve().parents[2]
DATASET = REPO / "evals" / "datasets" / "clinics" / "project.jsonl"
UNITS = ("201", "202", "203", "204", "205")
NO_CAP = ExecutionLimits(row_cap=0)
GOLD_CASES = [
    case
    for case in map(json.loads, DATASET.read_text(encoding="utf-8").splitlines())
    if case.get("gold_sql")
]


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(load_deployment("clinics").catalog_dir)


@pytest.fixture(scope="module")
def policy(catalog: Catalog) -> GuardPolicy:
    return GuardPolicy.from_catalog(catalog)


@pytest.fixture(scope="module")
def clinics(clinics_settings: Settings, clinics_db) -> Settings:
    """The clinics sample at scale 1, in its own database on the embedded server."""
    assert clinics_db.scale == 1.0  # the dataset's tracking cases name scale-1 reports
    return clinics_settings


@pytest.fixture
async def owner(clinics: Settings):
    conn = await asyncpg.connect(admin_url(clinics))
    try:
        yield conn
    finally:
        await conn.close()


@pytest.fixture
async def agent_conn(clinics: Settings):
    conn = await asyncpg.connect(agent_url(clinics))
    try:
        yield conn
    finally:
        await conn.close()


def test_catalog_declares_every_kind_of_tenancy(catalog: Catalog) -> None:
    kinds = {name: table.tenancy for name, table in catalog.tables.items()}
    assert sorted(n for n, k in kinds.items() if k == "shared") == ["especialidades", "tipos_exame"]
    via = sorted(n for n, k in kinds.items() if k == "via")
    assert via == ["apontamentos_revisao", "laudo_achados", "plantoes", "revisoes_qualidade"]
    chain = [t.name for t in catalog.tenant_chain("apontamentos_revisao")]
    assert chain == ["apontamentos_revisao", "revisoes_qualidade", "laudos"]
    assert len(catalog.table("plantoes").tenant_via.columns) == 2  # a composite key
    assert len(catalog.glossary) >= 12 and sum(1 for t in catalog.glossary if t.metric) >= 5
    assert len(load_examples(catalog_dir := load_deployment("clinics").catalog_dir)) >= 12
    assert len(list((catalog_dir / "docs").glob("*.md"))) >= 4


def test_same_seed_same_rows_and_another_seed_other_rows() -> None:
    from orquestra.ddl_catalog.demo import generate_sample

    first, again, other = (
        generate_sample("clinics", seed, 0.2, date(2026, 6, 30)) for seed in (7, 7, 8)
    )
    assert first.checksums() == again.checksums()
    assert first.checksums()["laudos"] != other.checksums()["laudos"]


async def test_rows_fit_the_ddl_and_units_are_unequal(
    clinics: Settings, catalog: Catalog, owner: asyncpg.Connection
) -> None:
    for name in catalog.tables:
        assert await owner.fetchval(f"SELECT count(*) FROM {name}") > 0, name
    exams = dict(await owner.fetch("SELECT cod_unidade, count(*) FROM exames GROUP BY 1"))
    assert set(exams) == {int(u) for u in UNITS}
    assert exams[201] > 1.5 * exams[202] > 1.5 * exams[204] and exams[201] >= 5 * exams[205]


async def test_report_numbers_collide_across_units(owner: asyncpg.Connection) -> None:
    """The demo's trap: every unit has its own laudo 5012."""
    units = await owner.fetch("SELECT cod_unidade FROM laudos WHERE num_laudo = 5012 ORDER BY 1")
    assert [str(r["cod_unidade"]) for r in units] == list(UNITS)


@pytest.mark.parametrize("case", GOLD_CASES, ids=[c["id"] for c in GOLD_CASES])
async def test_gold_sql_runs_guarded_and_returns_rows(
    case: dict, policy: GuardPolicy, agent_conn: asyncpg.Connection
) -> None:
    guarded = guard_sql(case["gold_sql"], policy, case["tenant"])
    result = await run_as_tenant(
        agent_conn, guarded.sql, guarded.params, tenant=case["tenant"], limits=NO_CAP
    )
    assert result.rows, case["id"]
    assert any(value is not None for value in result.rows[0]), case["id"]


async def test_offline_rows_name_their_references_and_keep_empty_ones(
    catalog: Catalog, policy: GuardPolicy, agent_conn: asyncpg.Connection
) -> None:
    """The offline model shows a reference's name beside its code; a reference that may be
    empty (an exam not yet performed has no technician) is joined outer, so the newest
    scheduled exams are all there, their technician empty and their patient named."""
    question = "os 10 exames agendados mais recentes"
    intent = parse(question, catalog, lexicon_for(catalog), date(2026, 6, 30))
    guarded = guard_sql(build_sql(intent, catalog, "2026-06-30"), policy, "201")
    result = await run_as_tenant(
        agent_conn, guarded.sql, guarded.params, tenant="201", limits=NO_CAP
    )
    rows = [dict(zip(result.columns, row, strict=True)) for row in result.rows]
    assert len(rows) == 10
    assert all(row["cod_tecnico"] is None and row["nome_tecnico"] is None for row in rows)
    assert all(row["nome_paciente"] and row["descricao_tipo_exame"] for row in rows)


async def test_every_example_passes_the_guard_and_runs(
    catalog: Catalog, policy: GuardPolicy, agent_conn: asyncpg.Connection
) -> None:
    for example in load_examples(load_deployment("clinics").catalog_dir):
        guarded = guard_sql(example.sql, policy, "201")
        await run_as_tenant(agent_conn, guarded.sql, guarded.params, tenant="201", limits=NO_CAP)


async def test_via_tables_are_scoped_in_layer_two_and_in_layer_three_alone(
    catalog: Catalog,
    policy: GuardPolicy,
    owner: asyncpg.Connection,
    agent_conn: asyncpg.Connection,
) -> None:
    """Each unit sees exactly its own children, through the guard and through row-level
    security alone; no row is visible to two units and none is lost."""
    via = [name for name, table in catalog.tables.items() if table.tenancy == "via"]
    for name in via:
        expected = {r["tenant"]: r["n"] for r in await owner.fetch(chain_join_sql(catalog, name))}
        assert sum(expected.values()) == await owner.fetchval(f"SELECT count(*) FROM {name}")
        for unit in UNITS:
            sql = f"SELECT count(*) FROM {name}"
            guarded = guard_sql(sql, policy, unit)
            layer_two = await run_as_tenant(
                agent_conn, guarded.sql, guarded.params, tenant=unit, limits=NO_CAP
            )
            layer_three = await run_as_tenant(agent_conn, sql, [], tenant=unit, limits=NO_CAP)
            want = expected.get(unit, 0)
            assert layer_two.rows[0][0] == layer_three.rows[0][0] == want, (name, unit)


async def test_another_units_child_row_is_invisible(
    catalog: Catalog, policy: GuardPolicy, owner: asyncpg.Connection, agent_conn
) -> None:
    """A finding of unit 201's laudo 5012, asked for by key as unit 202, is not there."""
    key = await owner.fetchval(
        "SELECT id_laudo FROM laudos WHERE cod_unidade = 201 AND num_laudo = 5012"
    )
    sql = f"SELECT item FROM laudo_achados WHERE id_laudo = {key}"
    for unit, visible in (("201", True), ("202", False)):
        guarded = guard_sql(sql, policy, unit)
        through_guard = await run_as_tenant(
            agent_conn, guarded.sql, guarded.params, tenant=unit, limits=NO_CAP
        )
        raw = await run_as_tenant(agent_conn, sql, [], tenant=unit, limits=NO_CAP)
        assert bool(through_guard.rows) is visible and bool(raw.rows) is visible, unit
