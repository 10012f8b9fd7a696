"""The command line's data commands: db init and policies, catalog check and import, init."""

from __future__ import annotations

import argparse
import asyncio
import logging
from typing import Any

import asyncpg

from orquestra.core.errors import OrquestraError
from orquestra.core.settings import Settings
from orquestra.ddl_catalog import CatalogError, load_catalog
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

    catalog = load_catalog(args.catalog or settings.catalog_dir)

    async def run() -> list[Any]:
        conn = await connect(admin_url(settings))
        try:
            return await check_catalog(conn, catalog)
        finally:
            await conn.close()

    drifts = asyncio.run(run())
    for warning in catalog.warnings:
        print(f"warning: {warning}")
    for drift in drifts:
        print(drift)
    summary = f"{len(catalog.systems)} systems, {len(catalog.tables)} tables, "
    summary += f"{len(catalog.glossary)} glossary terms"
    if drifts:
        print(f"\ncatalog check: {len(drifts)} drift(s) ({summary})")
        return 1
    print(f"\ncatalog check: clean ({summary})")
    return 0


def _cmd_catalog_import(args: argparse.Namespace, settings: Settings) -> int:
    from orquestra.core.database import admin_url, connect
    from orquestra.ddl_catalog.importer import import_schema, review_lines

    system = args.system or args.schema
    target = args.out / f"{system}.yaml"
    if target.exists() and not args.force:
        return fail("FILE_EXISTS", f"{target} exists; pass --force to overwrite it")
    tenant_column = _tenant_column(args, settings)
    if tenant_column is None:
        return fail("TENANT_COLUMN_REQUIRED", TENANT_COLUMN_HINT)

    async def run() -> Any:
        conn = await connect(admin_url(settings))
        try:
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


TENANT_COLUMN_HINT = (
    "name the column that holds the tenant with --tenant-column COL "
    "(or ORQUESTRA_TENANT_COLUMN); the active deployment's catalog has no single one to reuse"
)


def _tenant_column(args: argparse.Namespace, settings: Settings) -> str | None:
    """`--tenant-column`, else the setting, else the one tenant column name the active
    deployment's catalog uses (so importing more of the same database needs no flag)."""
    if args.tenant_column or settings.tenant_column:
        return args.tenant_column or settings.tenant_column
    try:
        names = set(load_catalog(settings.catalog_folder).tenant_tables().values())
    except CatalogError:
        return None
    return names.pop() if len(names) == 1 else None


def _cmd_init(args: argparse.Namespace, settings: Settings) -> int:
    from orquestra.core.database import admin_url, connect
    from orquestra.ddl_catalog.scaffold import scaffold_deployment

    tenant_column = _tenant_column(args, settings)
    if tenant_column is None:
        return fail("TENANT_COLUMN_REQUIRED", TENANT_COLUMN_HINT)

    async def run() -> Any:
        conn = await connect(args.database_url or admin_url(settings))
        try:
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
