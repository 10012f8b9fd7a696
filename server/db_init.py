"""`orquestra db init`: the active deployment's schema, sample data and policies, at once.

Tables come from the deployment's catalog DDL, rows from the sample-data generator its
profile names (`sample_data`) through binary COPY, indexes after the data. Everything happens
in a single transaction under an advisory lock, so a failure leaves nothing half-written and
two processes never load at once. A small `orquestra_internal.demo_dataset` row records what
was loaded (deployment, seed, scale, the generator's data version, counts); a sample an older
generator loaded is reloaded, at its own seed and scale, so nobody keeps answering from rows
the code no longer makes.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import date

import asyncpg

from orquestra.core.database import connect, ensure_database
from orquestra.core.deployment import Deployment
from orquestra.core.errors import OrquestraError
from orquestra.core.settings import Settings
from orquestra.ddl_catalog import Catalog, load_catalog
from orquestra.ddl_catalog.demo import DemoData, SampleDataError, generate_sample, sample_version
from orquestra.deployments import DEFAULT_DEPLOYMENT
from orquestra.server.db_policies import statements_for

INIT_LOCK_KEY = 7_460_001
"""Advisory lock id that serialises `db init` across processes."""
META_SCHEMA = "orquestra_internal"


class DatabaseNotEmpty(OrquestraError):
    """Catalog tables exist that Orquestra did not load; refuse to overwrite them."""

    code = "DB_NOT_EMPTY"

    def __init__(self, message: str, code: str = "DB_NOT_EMPTY") -> None:
        super().__init__(code, message)


@dataclass
class InitReport:
    """What `db init` found or did."""

    loaded: bool
    """False when the data was already there and nothing was changed."""
    deployment: str
    """The deployment whose sample data this is."""
    seed: int
    scale: float
    reference_date: date
    row_counts: dict[str, int]
    tenant_rows: dict[str, int]
    """Rows per tenant code in the tables that carry the tenant column."""
    tenants: dict[str, str] = field(default_factory=dict)
    """Tenant code → name, when the catalog names the tenants' own table."""
    data_version: int = 1
    """The generator's `DATA_VERSION` the rows were made by."""
    replaced_version: int | None = None
    """When the rows were reloaded because an older generator had made them: its version."""
    seconds: float = 0.0
    generate_seconds: float = 0.0
    """Of `seconds`, the time spent generating rows in Python (the rest is PostgreSQL)."""

    @property
    def total_rows(self) -> int:
        return sum(self.row_counts.values())


async def init_database(
    settings: Settings, *, scale: float | None = None, reset: bool = False
) -> InitReport:
    """Create the deployment's schema and sample data unless already there (`reset` reloads)."""
    started = time.perf_counter()
    deployment = settings.active_deployment
    sample = _sample_data_name(deployment)
    catalog = load_catalog(settings.catalog_folder)
    url = await ensure_database(settings)
    conn = await connect(url)
    try:
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", INIT_LOCK_KEY)
            existing = await _existing_report(conn)
            _refuse_other_deployment(existing, deployment, reset=reset)
            version = sample_version(sample)
            outdated = existing is not None and existing.data_version != version
            if existing is not None and not reset and not outdated:
                await _apply_policies(conn, catalog, settings)
                return existing
            await _drop_or_refuse(conn, catalog, reset=reset, ours=existing is not None)
            kept = existing if outdated and not reset else None  # regenerated as it was
            seed = kept.seed if kept else settings.demo_seed
            if scale is None:
                scale = kept.scale if kept else settings.demo_scale
            generating = time.perf_counter()
            data = generate_sample(sample, seed, scale, settings.reference_date)
            generated = time.perf_counter() - generating
            await _create_and_load(conn, catalog, data)
            await _apply_policies(conn, catalog, settings)
            report = _report(settings, catalog, seed, scale, data)
            report.data_version = version
            report.replaced_version = existing.data_version if outdated and existing else None
            report.generate_seconds = generated
            await _record(conn, report, data)
    finally:
        await conn.close()
    report.seconds = time.perf_counter() - started
    return report


def _sample_data_name(deployment: Deployment) -> str:
    """The generator the deployment's profile names; a clear error when it names none."""
    if deployment.profile.sample_data is None:
        raise SampleDataError(
            "DEPLOYMENT_NO_SAMPLE_DATA",
            f"deployment {deployment.name!r} ({deployment.root}) has no sample data to load:"
            " point DATABASE_URL at its own database instead (`db init` only loads samples)",
        )
    return deployment.profile.sample_data


def _refuse_other_deployment(
    existing: InitReport | None, deployment: Deployment, *, reset: bool
) -> None:
    """One database holds one deployment's sample: another's is replaced only on `--reset`."""
    if existing is None or reset or existing.deployment == deployment.name:
        return
    raise DatabaseNotEmpty(
        f"this database holds the {existing.deployment!r} deployment's sample data, not"
        f" {deployment.name!r}'s; set ORQUESTRA_DATABASE_NAME to another database, or run"
        " `orquestra db init --reset` to replace it",
        code="DB_OTHER_DEPLOYMENT",
    )


async def _existing_report(conn: asyncpg.Connection) -> InitReport | None:
    await conn.execute(f"CREATE SCHEMA IF NOT EXISTS {META_SCHEMA}")
    await conn.execute(
        f"""CREATE TABLE IF NOT EXISTS {META_SCHEMA}.demo_dataset (
            id boolean PRIMARY KEY DEFAULT true CHECK (id),
            seed bigint NOT NULL, scale double precision NOT NULL,
            reference_date date NOT NULL, row_counts jsonb NOT NULL,
            tenant_rows jsonb NOT NULL, tenants jsonb NOT NULL, checksums jsonb NOT NULL,
            loaded_at timestamptz NOT NULL DEFAULT now())"""
    )
    # Rows written before deployments existed are the default deployment's.
    await conn.execute(
        f"ALTER TABLE {META_SCHEMA}.demo_dataset"
        f" ADD COLUMN IF NOT EXISTS deployment text NOT NULL DEFAULT '{DEFAULT_DEPLOYMENT}'"
    )
    # Rows written before versions were recorded were made by each generator's version 1.
    await conn.execute(
        f"ALTER TABLE {META_SCHEMA}.demo_dataset"
        " ADD COLUMN IF NOT EXISTS data_version integer NOT NULL DEFAULT 1"
    )
    row = await conn.fetchrow(f"SELECT * FROM {META_SCHEMA}.demo_dataset")
    if row is None:
        return None
    return InitReport(
        loaded=False,
        deployment=row["deployment"],
        seed=row["seed"],
        scale=row["scale"],
        reference_date=row["reference_date"],
        row_counts=json.loads(row["row_counts"]),
        tenant_rows=json.loads(row["tenant_rows"]),
        tenants=json.loads(row["tenants"]),
        data_version=row["data_version"],
    )


async def _drop_or_refuse(
    conn: asyncpg.Connection, catalog: Catalog, *, reset: bool, ours: bool
) -> None:
    present = await conn.fetch(
        "SELECT schemaname, tablename FROM pg_tables WHERE (schemaname, tablename) IN "
        "(SELECT * FROM unnest($1::text[], $2::text[]))",
        [t.db_schema for t in catalog.tables.values()],
        list(catalog.tables),
    )
    if present and not (reset or ours):
        names = ", ".join(f"{r['schemaname']}.{r['tablename']}" for r in present)
        raise DatabaseNotEmpty(
            f"tables of the catalog already exist and were not loaded by Orquestra "
            f"({names}); run `orquestra db init --reset` to replace them"
        )
    for row in present:
        await conn.execute(f'DROP TABLE "{row["schemaname"]}"."{row["tablename"]}" CASCADE')
    await conn.execute(f"DELETE FROM {META_SCHEMA}.demo_dataset")


async def _create_and_load(conn: asyncpg.Connection, catalog: Catalog, data: DemoData) -> None:
    for system in catalog.systems:
        await conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{system.db_schema}"')
        await conn.execute(f'SET LOCAL search_path TO "{system.db_schema}"')
        for statement in system.table_ddl:
            await conn.execute(statement)
    for name, table in catalog.tables.items():
        await conn.copy_records_to_table(
            name,
            records=data.tables[name],
            columns=list(table.column_names),
            schema_name=table.db_schema,
        )
    for system in catalog.systems:
        await conn.execute(f'SET LOCAL search_path TO "{system.db_schema}"')
        for statement in system.index_ddl:
            await conn.execute(statement)
    await conn.execute("RESET search_path")
    for table in catalog.tables.values():
        await conn.execute(f'ANALYZE "{table.db_schema}"."{table.name}"')


async def _apply_policies(conn: asyncpg.Connection, catalog: Catalog, settings: Settings) -> None:
    """Layer 3 of the guard: in the embedded database (Orquestra owns it) agent role, grants,
    row-level security and the database-wide hardening; on `DATABASE_URL` the least-intrusive
    statements of `orquestra db policies` (server/db_policies.py)."""
    database = await conn.fetchval("SELECT current_database()")
    for statement in statements_for(catalog, settings, database):
        await conn.execute(statement.sql)


def _report(
    settings: Settings, catalog: Catalog, seed: int, scale: float, data: DemoData
) -> InitReport:
    per_tenant: Counter[str] = Counter()
    for name, column in catalog.tenant_tables().items():
        position = catalog.table(name).column_names.index(column)
        per_tenant.update(str(row[position]) for row in data.tables[name])
    return InitReport(
        loaded=True,
        deployment=settings.active_deployment.name,
        seed=seed,
        scale=scale,
        reference_date=settings.reference_date,
        row_counts=data.row_counts(),
        tenant_rows=dict(sorted(per_tenant.items(), key=lambda item: _code_order(item[0]))),
        tenants=_tenant_names(catalog, data),
    )


def _tenant_names(catalog: Catalog, data: DemoData) -> dict[str, str]:
    """Tenant code → name from the tenants' own table, when the catalog names one."""
    directory = catalog.tenant_directory()
    if directory is None or directory.tenant_column is None:
        return {}
    code = directory.column_names.index(directory.tenant_column)
    name = directory.column_names.index(directory.meta.tenant_name_column)
    return {str(row[code]): str(row[name]) for row in data.tables[directory.name]}


def _code_order(code: str) -> tuple[int, int | str]:
    """Numeric codes in numeric order, then any others alphabetically."""
    return (0, int(code)) if code.isdigit() else (1, code)


async def _record(conn: asyncpg.Connection, report: InitReport, data: DemoData) -> None:
    await conn.execute(
        f"INSERT INTO {META_SCHEMA}.demo_dataset (deployment, seed, scale, reference_date,"
        " row_counts, tenant_rows, tenants, checksums, data_version)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        report.deployment,
        report.seed,
        report.scale,
        report.reference_date,
        json.dumps(report.row_counts),
        json.dumps(report.tenant_rows),
        json.dumps(report.tenants),
        json.dumps(data.checksums()),
        report.data_version,
    )
