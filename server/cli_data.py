"""The command line's data commands: db init and policies, catalog check and import, init."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
from typing import Any

import asyncpg

from orquestra.core.errors import OrquestraError
from orquestra.core.settings import Settings
from orquestra.core.texts import counted
from orquestra.ddl_catalog import load_catalog
from orquestra.server.db_policies import PolicyError
from orquestra.server.terminal import fail

log = logging.getLogger("orquestra")


def _cmd_db_init(args: argparse.Namespace, settings: Settings) -> int:
    from orquestra.server.db_init import init_database

    report = asyncio.run(init_database(settings, scale=args.scale, reset=args.reset))
    _print_report(report, settings)
    return 0


def _print_report(report: Any, settings: Settings) -> None:
    verb = "loaded" if report.loaded else "already loaded"
    if report.replaced_version is not None:
        verb = (
            f"reloaded (loaded before by sample version {report.replaced_version},"
            f" now {report.data_version})"
        )
    print(
        f"Sample data of {report.deployment} {verb}: {report.total_rows:,} rows,"
        f" seed {report.seed}, scale {report.scale:g},"
        f" history ending {report.reference_date.isoformat()}"
        + (f", in {report.seconds:.1f} s" if report.loaded else "")
    )
    profile = settings.active_deployment.profile
    print(f"\nTenants ({profile.tenant_label('en', plural=True)})")
    for code, rows in report.tenant_rows.items():
        print(f"  {code}  {report.tenants.get(code, ''):<28} {rows:>10,} rows")
    print("\nTables")
    for name, count in report.row_counts.items():
        print(f"  {name:<22} {count:>10,}")


def _cmd_db_policies(args: argparse.Namespace, settings: Settings) -> int:
    from urllib.parse import urlsplit

    from orquestra.guards.rls_setup import render
    from orquestra.server.db_policies import owned, statements_for

    catalog = load_catalog(settings.catalog_folder)
    named = (
        urlsplit(settings.database_url).path.lstrip("/") if settings.database_url else None
    ) or settings.database_name
    database = args.database or named
    statements = statements_for(catalog, settings, database)
    if args.apply:
        return _apply_db_policies(catalog, statements, settings, args.database)
    kind = "owned" if owned(settings) else "least intrusive: a company's database"
    print(f"-- Orquestra layer-3 policies for database {database}, role {settings.agent_role}")
    print(f"-- ({kind}). Apply as the tables' owner; one transaction, idempotent: each block")
    print("-- acts only when the state differs, and then raises an `orquestra:` NOTICE.\n")
    print(f"BEGIN;\n\n{render(statements)}\nCOMMIT;")
    print(_index_findings_sql(catalog, settings, database if database != named else None))
    return 0


def _index_findings_sql(catalog: Any, settings: Settings, elsewhere: str | None) -> str:
    """The index findings under the printed SQL, as comments: running the printed file never
    builds an index (the owner runs each statement, alone, when it suits the table). Checked
    on the database the settings name; the printed SQL may be for another (`elsewhere`)."""
    from orquestra.core.database import admin_url, connect
    from orquestra.server.db_policies import index_findings

    head = "\n-- Indexes of the tenant tables"
    if elsewhere:
        return f"{head}: not checked (--database {elsewhere} is not the settings' database)."

    async def run() -> Any:
        conn = await connect(admin_url(settings))
        try:
            return await index_findings(conn, catalog)
        finally:
            await conn.close()

    try:
        found = asyncio.run(run())
    except (OrquestraError, OSError, asyncpg.PostgresError) as exc:
        reason = str(exc) if isinstance(exc, OrquestraError) else f"{type(exc).__name__}: {exc}"
        return f"{head}: not checked ({' '.join(reason.split())})."  # one comment line
    if not found:
        return f"{head}: each starts with its tenant column."
    lines = [f"{head}: findings ({len(found)}), not applied; run each statement alone,"]
    lines.append("-- outside a transaction, when it suits the table:")
    for finding in found:  # every line a comment, whatever a name in the message holds
        text = f"[{finding.code}] {finding.message}\n{finding.statement}"
        lines += [f"-- {line}" for line in text.splitlines()]
    return "\n".join(lines)


def _apply_db_policies(
    catalog: Any, statements: list[Any], settings: Settings, named: str | None
) -> int:
    from orquestra.core.database import admin_url, connect
    from orquestra.server.db_policies import apply_policies, owned

    async def run() -> Any:
        conn = await connect(admin_url(settings))
        try:
            database = await conn.fetchval("SELECT current_database()")
            if named and named != database:
                raise PolicyError(
                    "POLICY_DATABASE_MISMATCH",
                    f"--database {named} names the database the printed SQL is for; --apply"
                    f" works on the one the settings name ({database}). Point DATABASE_URL at"
                    f" {named}, or apply the --print output there yourself. Nothing was changed.",
                )
            return await apply_policies(
                conn, catalog, statements, settings.agent_role, owned=owned(settings)
            )
        finally:
            await conn.close()

    report = asyncio.run(run())
    print(f"changed ({len(report.changes)}):" if report.changes else "already in place: no change")
    for change in report.changes:
        print(f"  {change}")
    print(f"\nfindings ({len(report.findings)}):" if report.findings else "\nfindings: none")
    for finding in report.findings:
        print(f"  [{finding.code}] {finding.message}")
        if finding.statement:
            print(f"    {finding.statement}")
    return 0


def _cmd_catalog_check(args: argparse.Namespace, settings: Settings) -> int:
    from orquestra.core.database import admin_url, connect
    from orquestra.ddl_catalog.check import check_catalog
    from orquestra.ddl_catalog.check_joins import check_join_data

    catalog = load_catalog(args.catalog or settings.catalog_dir)

    async def run() -> tuple[list[Any], list[Any]]:
        conn = await connect(admin_url(settings))
        try:
            drifts = await check_catalog(conn, catalog)
            return drifts, await check_join_data(conn, catalog) if args.data else []
        finally:
            await conn.close()

    drifts, joins = asyncio.run(run())
    for warning in catalog.warnings:
        print(f"warning: {warning}")
    for drift in drifts:
        print(drift)
    for finding in joins:
        print(finding)
    contradicted = sum(finding.contradicted for finding in joins)
    summary = f"{len(catalog.systems)} systems, {len(catalog.tables)} tables, "
    summary += f"{len(catalog.glossary)} glossary terms"
    if catalog.drafts:  # `init`'s drafts: checked above, used by no stage until confirmed
        summary += f", {len(catalog.drafts)} drafts to confirm (draft: true)"
    summary += f", {len(joins)} joins tried on the data" if args.data else ""
    if drifts or contradicted:
        found = [counted(len(drifts), "drift", "drifts")] if drifts else []
        if contradicted:
            found.append(f"{counted(contradicted, 'join', 'joins')} the data contradicts")
        print(f"\ncatalog check: {', '.join(found)} ({summary})")
        return 1
    print(f"\ncatalog check: clean ({summary})")
    return 0


def _cmd_catalog_select(args: argparse.Namespace, settings: Settings) -> int:
    from orquestra.server.catalog_select import catalog_select

    return catalog_select(args, settings)


def _cmd_catalog_import(args: argparse.Namespace, settings: Settings) -> int:
    from orquestra.core.database import admin_url, connect
    from orquestra.ddl_catalog.importer import import_schema, review_lines

    system = args.system or args.schema
    target = args.out / f"{system}.yaml"
    if target.exists() and not args.force:
        return fail("FILE_EXISTS", f"{target} exists; pass --force to overwrite it")

    async def run() -> Any:
        conn = await connect(admin_url(settings))
        try:
            tenant_column = await _tenancy(conn, args, settings, reuse_deployment=True)
            return await import_schema(
                conn,
                args.schema,
                system=system,
                tenant_column=tenant_column,
                views=args.views,
            )
        finally:
            await conn.close()

    imported = asyncio.run(run())
    args.out.mkdir(parents=True, exist_ok=True)
    target.write_text(imported.text, encoding="utf-8")
    print(f"wrote {target}\n\nReview before use:")
    for line in review_lines(imported):
        print(f"  - {line}")
    return 0


CANDIDATE_COLUMNS_SQL = """
SELECT column_name, count(*) AS tables
FROM information_schema.columns
WHERE table_schema = $1
GROUP BY column_name
HAVING count(*) > 1
ORDER BY count(*) DESC, column_name
LIMIT 8
"""
"""Columns of the same name in several tables: where a tenant column usually is."""


class TenancyUndecided(OrquestraError):
    """`init`/`catalog import` were not told whether the data has tenants, and by which column."""


async def _tenancy(
    conn: Any, args: argparse.Namespace, settings: Settings, *, reuse_deployment: bool = False
) -> str | None:
    """The tenant column to import with, or None for one organisation's data
    (`--no-tenancy`). Never a guess: without `--tenant-column`, `ORQUESTRA_TENANT_COLUMN` or
    `--no-tenancy` it fails closed, naming the columns that could hold a tenant. `catalog
    import` into a deployment named explicitly reuses that deployment's tenancy."""
    if args.no_tenancy and (args.tenant_column or settings.tenant_column):
        raise TenancyUndecided(
            "TENANCY_CONFLICT", "--no-tenancy and a tenant column exclude each other: give one"
        )
    if args.no_tenancy:
        return None
    if args.tenant_column or settings.tenant_column:
        return str(args.tenant_column or settings.tenant_column)
    if reuse_deployment and _deployment_named(args):
        deployment = settings.active_deployment
        if not deployment.profile.has_tenants:
            return None
        names = set(load_catalog(settings.catalog_folder).tenant_tables().values())
        if len(names) == 1:
            return names.pop()
    found = [
        f"{row['column_name']} ({row['tables']} tables)"
        for row in await conn.fetch(CANDIDATE_COLUMNS_SQL, args.schema)
    ]
    listed = (
        f"Columns found in several tables of {args.schema}: {', '.join(found)}"
        if found
        else f"No column name repeats across the tables of {args.schema}"
    )
    raise TenancyUndecided(
        "TENANT_COLUMN_REQUIRED",
        "say whether the data belongs to many tenants: --tenant-column COL names the column "
        "that holds the tenant (or ORQUESTRA_TENANT_COLUMN), --no-tenancy declares one "
        f"organisation's data, readable by every signed-in person. {listed}.",
    )


def _deployment_named(args: argparse.Namespace) -> bool:
    """Whether a deployment was chosen (`--deployment` or ORQUESTRA_DEPLOYMENT), rather than
    the packaged default: only a chosen one's tenancy is reused."""
    return bool(getattr(args, "deployment", None) or os.environ.get("ORQUESTRA_DEPLOYMENT"))


def _cmd_init(args: argparse.Namespace, settings: Settings) -> int:
    from orquestra.core.database import admin_url, connect
    from orquestra.ddl_catalog.scaffold import scaffold_deployment

    async def run() -> Any:
        conn = await connect(args.database_url or admin_url(settings))
        try:
            tenant_column = await _tenancy(conn, args, settings)
            return await scaffold_deployment(
                conn,
                args.folder,
                args.schema,
                tenant_column=tenant_column,
                views=args.views,
            )
        finally:
            await conn.close()

    try:
        report = asyncio.run(run())
    except OrquestraError as exc:
        return fail(exc.code, exc.message)
    print(f"wrote {report.folder} (catalog: {report.system_file})\n\nReview before use:")
    for line in report.review():
        print(f"  - {line}")
    for warning in report.warnings:
        print(f"warning: {warning}")
    if not report.ready:
        print("\ninit: the deployment needs the decisions above before it can serve")
        return 1
    print(f"\ninit: catalog check clean; use it with ORQUESTRA_DEPLOYMENT={report.folder}")
    return 0
