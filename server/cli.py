"""The `orquestra` command line (design §3.1).

Every command reads `Settings` once; errors that reach the terminal carry a code and a plain
message (details go to the log, never a stack trace). Exit codes: 0 success, 1 a check found
problems, 2 a user-facing error, 130 interrupted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import signal
import sys
from pathlib import Path
from typing import Any

import asyncpg
from pydantic import ValidationError

from orquestra.core.deployment import packaged_deployments
from orquestra.core.errors import OrquestraError
from orquestra.core.settings import Settings
from orquestra.ddl_catalog import CatalogError, load_catalog
from orquestra.deployments import DEFAULT_DEPLOYMENT
from orquestra.guards.__main__ import add_rewrite
from orquestra.guards.rails import Guardrails, Toolkit
from orquestra.server.db_policies import PolicyError
from orquestra.server.logs import configure_logging

log = logging.getLogger("orquestra")


def _deployment_help() -> str:
    names = ", ".join(packaged_deployments())
    return (
        f"deployment: a packaged name ({names}) or a folder"
        f" (default: ORQUESTRA_DEPLOYMENT, else {DEFAULT_DEPLOYMENT})"
    )


def _deployment_option(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """`--deployment` on a command; SUPPRESS so it never hides the one given before it."""
    parser.add_argument("--deployment", default=argparse.SUPPRESS, help=_deployment_help())
    return parser


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="orquestra", description="Orchestrated text-to-SQL agent for multi-tenant PostgreSQL."
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log details to stderr")
    parser.add_argument("--deployment", default=None, help=_deployment_help())
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = _deployment_option(
        commands.add_parser("demo", help="embedded PostgreSQL + sample data, then the web chat")
    )
    demo.add_argument("--port", type=int, default=None)
    demo.set_defaults(run=_cmd_demo)

    serve = _deployment_option(
        commands.add_parser("serve", help="the HTTP server (SSE chat, web chat, metrics)")
    )
    serve.add_argument("--host", default=None)
    serve.add_argument("--port", type=int, default=None)
    serve.add_argument("--workers", type=int, default=1)
    serve.add_argument(
        "--dev-login",
        action="store_true",
        help="also serve POST /v1/dev/token, which mints a token for ANY tenant without"
        " authentication (local development only; refused in production mode)",
    )
    serve.set_defaults(run=_cmd_serve)

    token = _deployment_option(commands.add_parser("token", help="a signed token for local use"))
    token.add_argument("--tenant", required=True)
    token.add_argument("--user", default="local")
    token.set_defaults(run=_cmd_token)

    db = commands.add_parser("db", help="database set-up").add_subparsers(
        dest="db_command", required=True, metavar="ACTION"
    )
    init = _deployment_option(
        db.add_parser("init", help="schema and sample data (skipped if already loaded)")
    )
    init.add_argument("--scale", type=float, default=None, help="data scale factor (default 1)")
    init.add_argument("--reset", action="store_true", help="drop and reload the sample tables")
    init.set_defaults(run=_cmd_db_init)
    policies = _deployment_option(
        db.add_parser("policies", help="the layer-3 SQL (role, grants, row-level security)")
    )
    action = policies.add_mutually_exclusive_group(required=True)
    action.add_argument(
        "--print", action="store_true", dest="print_sql", help="print the SQL for a DBA to review"
    )
    action.add_argument(
        "--apply", action="store_true", help="apply it in one transaction; print what changed"
    )
    policies.add_argument(
        "--database", default=None, help="the database the printed SQL is for (with --print)"
    )
    policies.set_defaults(run=_cmd_db_policies)

    guard = commands.add_parser("guard", help="the tenant guard on its own")
    guard_rewrite = add_rewrite(guard.add_subparsers(dest="guard_command", required=True))
    _deployment_option(guard_rewrite).set_defaults(run=_cmd_guard_rewrite)

    sql = _deployment_option(
        commands.add_parser("sql", help="run SQL as the agent would (guard + executor)")
    )
    sql.add_argument("--tenant", required=True, help="tenant code to run as")
    sql.add_argument("--raw", action="store_true", help="skip layers 1-2: the database alone")
    sql.add_argument("--json", action="store_true", help="print the result as JSON")
    sql.add_argument("query", help="the SQL")
    sql.set_defaults(run=_cmd_sql)

    models = commands.add_parser("models", help="the configured models").add_subparsers(
        dest="models_command", required=True, metavar="ACTION"
    )
    check = _deployment_option(
        models.add_parser("check", help="probe each role's model once: method, stream, usage")
    )
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    check.set_defaults(run=_cmd_models_check)

    ask = _deployment_option(commands.add_parser("ask", help="one turn in the terminal, streamed"))
    ask.add_argument("--tenant", required=True, help="tenant code asking")
    ask.add_argument("--thread", default=None, help="continue this conversation")
    ask.add_argument("--json", action="store_true", help="one JSON event per line")
    ask.add_argument("--chart", type=Path, default=None, help="render the chart to FILE.svg|png")
    ask.add_argument("question")
    ask.set_defaults(run=_cmd_ask)

    evaluate = _deployment_option(
        commands.add_parser("eval", help="evaluation run over a dataset (or `compare`)")
    )
    evaluate.add_argument("--dataset", type=Path, default=Path("evals/datasets/project.jsonl"))
    evaluate.add_argument("--out", type=Path, default=Path("evals/out"))
    evaluate.add_argument("--model", default=None, help="one model spec for every role")
    evaluate.add_argument("--concurrency", type=int, default=2)
    evaluate.add_argument("--fail-under", action="append", default=[], metavar="METRIC=VALUE")
    evaluate.set_defaults(run=_cmd_eval)
    compare = evaluate.add_subparsers(dest="eval_command", required=False, metavar="compare")
    pair = compare.add_parser("compare", help="cases that changed between two reports")
    pair.add_argument("first", type=Path)
    pair.add_argument("second", type=Path)
    pair.set_defaults(run=_cmd_eval_compare)

    catalog = commands.add_parser("catalog", help="the DDL catalog").add_subparsers(
        dest="catalog_command", required=True, metavar="ACTION"
    )
    check = _deployment_option(
        catalog.add_parser("check", help="compare the catalog with the live database")
    )
    check.add_argument("--catalog", type=Path, default=None, help="catalog folder")
    check.set_defaults(run=_cmd_catalog_check)
    imp = _deployment_option(
        catalog.add_parser("import", help="write a catalog file from a live schema")
    )
    imp.add_argument("--schema", required=True, help="database schema to read")
    imp.add_argument("--system", default=None, help="system name (default: the schema's)")
    imp.add_argument("--out", type=Path, default=Path("catalog/systems"), help="output folder")
    imp.add_argument("--force", action="store_true", help="overwrite an existing file")
    imp.add_argument("--tenant-column", default=None, help="the tenant column's name")
    imp.add_argument("--views", action="store_true", help="also views, as read-only tables")
    imp.set_defaults(run=_cmd_catalog_import)

    init = commands.add_parser("init", help="scaffold a deployment folder from a live schema")
    init.add_argument("folder", type=Path, metavar="DIR", help="new (or empty) folder to write")
    init.add_argument("--schema", required=True, help="database schema to read")
    init.add_argument("--tenant-column", default=None, help="the tenant column's name")
    init.add_argument("--views", action="store_true", help="also views, as read-only tables")
    init.add_argument("--database-url", default=None, help="default: DATABASE_URL")
    init.set_defaults(run=_cmd_init)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    configure_logging(logging.INFO if args.verbose else logging.WARNING)
    # SIGTERM ends the process like Ctrl-C, so the embedded PostgreSQL stops cleanly.
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        settings = _settings(args)
        return args.run(args, settings)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        return _fail("CONFIG_INVALID", f"setting {where}: {first['msg']}")
    except OrquestraError as exc:  # every error Orquestra names: its code, its message
        return _fail(exc.code, exc.message)
    except asyncpg.PostgresError as exc:
        log.info("database error", exc_info=exc)
        return _fail("DB_ERROR", f"{type(exc).__name__}: {exc}")
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def _settings(args: argparse.Namespace) -> Settings:
    """The settings, with `--deployment` (if given) ahead of the environment."""
    if not getattr(args, "deployment", None):
        return Settings()
    settings = Settings(deployment=args.deployment)
    # The server's app factory (and any worker process) reads the settings again.
    os.environ["ORQUESTRA_DEPLOYMENT"] = str(settings.active_deployment.root)
    return settings


def check_guardrails(settings: Settings) -> None:
    """Load the guardrails file once, so that any error in it is reported before serving."""
    catalog = load_catalog(settings.catalog_dir)
    profile = settings.active_deployment.profile
    toolkit = Toolkit(catalog, settings.limits.max_message_chars, profile)
    Guardrails.load(toolkit, settings.guardrails_file, settings.observability_mapping_file)


def _fail(code: str, message: str) -> int:
    print(f"error [{code}]: {message}", file=sys.stderr)
    return 2


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _cmd_demo(args: argparse.Namespace, settings: Settings) -> int:
    from orquestra.server.db_init import init_database

    name = settings.active_deployment.name
    print(f"Orquestra demo ({name}): starting the embedded PostgreSQL and loading the sample data…")
    report = asyncio.run(init_database(settings))
    _print_report(report, settings)
    checked = _cmd_catalog_check(argparse.Namespace(catalog=None), settings)
    if checked != 0:
        return checked
    from orquestra.server.auth import mint_token

    port = args.port or settings.port
    print(f"\nWeb chat: http://{settings.host}:{port}/  (Ctrl-C stops it and the database)")
    tenant = next(iter(report.tenant_rows), None)
    if tenant is not None:
        print(f"Demo token for tenant {tenant}: {mint_token(settings, tenant, f'demo-{tenant}')}")
    serve = argparse.Namespace(host=None, port=port, workers=1, dev_login=True)
    return _cmd_serve(serve, settings)


def _cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn

    from orquestra.core.database import admin_url
    from orquestra.server.http_protocol import MAX_HEAD_BYTES, BoundedH11Protocol

    if args.dev_login:
        if settings.mode == "production":
            return _fail(
                "DEV_LOGIN_REFUSED",
                "--dev-login lets anyone mint a token for any tenant; it is refused in production",
            )
        log.warning(
            "dev login is ON: POST /v1/dev/token mints a token for any tenant, unauthenticated."
            " Never expose this server beyond your own machine."
        )
        print(
            "WARNING: dev login is on — anyone who can reach this server can act as any tenant.",
            file=sys.stderr,
        )
    check_guardrails(settings)  # a broken file is a clear error now, not a failed start-up
    admin_url(settings)  # start (or join) the embedded PostgreSQL in this process first
    uvicorn.run(
        "orquestra.server.app:create_dev_app"
        if args.dev_login
        else "orquestra.server.app:create_app",
        factory=True,
        host=args.host or settings.host,
        port=args.port or settings.port,
        workers=args.workers,
        log_level="warning",
        http=BoundedH11Protocol,  # a request head bounded in size and time
        h11_max_incomplete_event_size=MAX_HEAD_BYTES,
    )
    return 0


def _cmd_token(args: argparse.Namespace, settings: Settings) -> int:
    from orquestra.guards.tenant_key import InvalidTenant, TenantKey
    from orquestra.server.auth import mint_token

    key = TenantKey.from_catalog(load_catalog(settings.catalog_dir))
    try:
        tenant = key.canonical(args.tenant)
    except InvalidTenant as exc:
        return _fail("INVALID_TENANT", f"{args.tenant!r}: {exc}")
    print(mint_token(settings, tenant, args.user))
    return 0


def _cmd_db_init(args: argparse.Namespace, settings: Settings) -> int:
    from orquestra.server.db_init import init_database

    report = asyncio.run(init_database(settings, scale=args.scale, reset=args.reset))
    _print_report(report, settings)
    return 0


def _print_report(report: Any, settings: Settings) -> None:
    verb = "loaded" if report.loaded else "already loaded"
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

    from orquestra.guards.policies import render
    from orquestra.server.db_policies import owned, statements_for

    catalog = load_catalog(settings.catalog_dir)
    database = (
        args.database
        or (urlsplit(settings.database_url).path.lstrip("/") if settings.database_url else None)
        or settings.database_name
    )
    statements = statements_for(catalog, settings, database)
    if args.apply:
        return _apply_db_policies(catalog, statements, settings, args.database)
    kind = "owned" if owned(settings) else "least intrusive: a company's database"
    print(f"-- Orquestra layer-3 policies for database {database}, role {settings.agent_role}")
    print(f"-- ({kind}). Apply as the tables' owner; one transaction, idempotent: each block")
    print("-- acts only when the state differs, and then raises an `orquestra:` NOTICE.\n")
    print(f"BEGIN;\n\n{render(statements)}\nCOMMIT;")
    return 0


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
    return 0


def _cmd_guard_rewrite(args: argparse.Namespace, settings: Settings) -> int:
    from orquestra.guards.__main__ import rewrite

    return rewrite(args.policy, args.tenant, args.max_rows)


def _cmd_sql(args: argparse.Namespace, settings: Settings) -> int:
    from orquestra.server.sql_command import run_sql_command

    return run_sql_command(
        args.query, args.tenant, raw=args.raw, as_json=args.json, settings=settings
    )


def _sample_loaded(settings: Settings) -> None:
    """On the embedded database (Orquestra's own), a deployment with sample data gets it
    loaded first, as `orquestra demo` does: `ask` and `eval` work on a fresh machine."""
    if settings.database_url or settings.active_deployment.profile.sample_data is None:
        return
    from orquestra.server.db_init import init_database

    report = asyncio.run(init_database(settings))
    if report.loaded:
        name = settings.active_deployment.name
        print(f"loaded the {name} sample data ({report.total_rows} rows)", file=sys.stderr)


def _cmd_ask(args: argparse.Namespace, settings: Settings) -> int:
    from orquestra.server.ask_command import run_ask_command

    _sample_loaded(settings)
    return run_ask_command(
        args.question,
        args.tenant,
        thread=args.thread,
        as_json=args.json,
        settings=settings,
        chart=args.chart,
    )


def _cmd_models_check(args: argparse.Namespace, settings: Settings) -> int:
    from orquestra.graph.models_check import check_models, table

    checks = asyncio.run(check_models(settings))
    if args.json:
        print(json.dumps([c.as_dict() for c in checks], ensure_ascii=False, indent=1))
    else:
        print(table(checks))
    return 1 if any(c.error for c in checks) else 0


def _cmd_eval(args: argparse.Namespace, settings: Settings) -> int:
    from orquestra.evals.cli import run_eval

    _sample_loaded(settings)
    return run_eval(args.dataset, args.out, args.model, args.concurrency, args.fail_under, settings)


def _cmd_eval_compare(args: argparse.Namespace, settings: Settings) -> int:
    from orquestra.evals.cli import run_compare

    return run_compare(args.first, args.second)


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
        return _fail("FILE_EXISTS", f"{target} exists; pass --force to overwrite it")
    tenant_column = _tenant_column(args, settings)
    if tenant_column is None:
        return _fail("TENANT_COLUMN_REQUIRED", TENANT_COLUMN_HINT)

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
        names = set(load_catalog(settings.catalog_dir).tenant_tables().values())
    except CatalogError:
        return None
    return names.pop() if len(names) == 1 else None


def _cmd_init(args: argparse.Namespace, settings: Settings) -> int:
    from orquestra.core.database import admin_url, connect
    from orquestra.ddl_catalog.scaffold import scaffold_deployment

    tenant_column = _tenant_column(args, settings)
    if tenant_column is None:
        return _fail("TENANT_COLUMN_REQUIRED", TENANT_COLUMN_HINT)

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
        return _fail(exc.code, exc.message)
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


if __name__ == "__main__":
    sys.exit(main())
