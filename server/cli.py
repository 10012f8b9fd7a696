"""The `orquestra` command line (design §3.1).

Every command reads `Settings` once; errors that reach the terminal carry a code and a plain
message (details go to the log, never a stack trace). Exit codes: 0 success, 1 a check found
problems, 2 a user-facing error, 130 interrupted.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import asyncpg
from pydantic import ValidationError

from orquestra.core.deployment import packaged_deployments
from orquestra.core.errors import OrquestraError
from orquestra.core.settings import Settings
from orquestra.deployments import DEFAULT_DEPLOYMENT
from orquestra.guards.__main__ import add_rewrite
from orquestra.server.cli_data import (
    _cmd_catalog_check,
    _cmd_catalog_import,
    _cmd_catalog_select,
    _cmd_db_init,
    _cmd_db_policies,
    _cmd_init,
)
from orquestra.server.cli_run import (
    _cmd_ask,
    _cmd_demo,
    _cmd_eval,
    _cmd_eval_compare,
    _cmd_guard_rewrite,
    _cmd_models_check,
    _cmd_serve,
    _cmd_sql,
    _cmd_token,
)
from orquestra.server.logs import configure_logging
from orquestra.server.review_command import add_review_command
from orquestra.server.terminal import fail
from orquestra.server.threads_command import add_threads_command

log = logging.getLogger("orquestra")
TENANT_HELP = "the tenant to act as: required where the data has tenants, refused where it has none"


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


def _tenancy_options(parser: argparse.ArgumentParser) -> None:
    """Whether the imported data has tenants: one of the two, or the command fails closed."""
    parser.add_argument(
        "--tenant-column", default=None, help="the column that holds the tenant in its tables"
    )
    parser.add_argument(
        "--no-tenancy",
        action="store_true",
        help="one organisation's data: no tenants, every table readable by every signed-in user",
    )


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
    demo.add_argument("--port", type=int, default=None, help="port (default: ORQUESTRA_PORT, 8000)")
    demo.set_defaults(run=_cmd_demo)

    serve = _deployment_option(
        commands.add_parser(
            "serve", help="the HTTP server (SSE chat, web chat) and the operators' metrics listener"
        )
    )
    serve.add_argument("--host", default=None, help="address (default: ORQUESTRA_HOST, 127.0.0.1)")
    serve.add_argument(
        "--port", type=int, default=None, help="port (default: ORQUESTRA_PORT, 8000)"
    )
    serve.add_argument("--workers", type=int, default=1, help="server processes on this machine")
    serve.add_argument(
        "--dev-login",
        action="store_true",
        help="also serve POST /v1/dev/token, which mints a token for ANY tenant without"
        " authentication (local development only; refused in production mode)",
    )
    serve.set_defaults(run=_cmd_serve)

    token = _deployment_option(commands.add_parser("token", help="a signed token for local use"))
    token.add_argument("--tenant", default=None, help=TENANT_HELP)
    token.add_argument("--user", default="local", help="the user the token names")
    token.add_argument(
        "--role",
        action="append",
        default=[],
        metavar="ROLE",
        help="a role the token holds (repeat for several); reviewer: the review queue",
    )
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
    sql.add_argument("--tenant", default=None, help=TENANT_HELP)
    sql.add_argument("--raw", action="store_true", help="skip layers 1-2: the database alone")
    sql.add_argument("--json", action="store_true", help="print the result as JSON")
    sql.add_argument(
        "--dialect",
        default=None,
        metavar="DIALECT",
        help="read the SQL as this dialect (tsql, mysql, … any sqlglot reads) and run it"
        " as PostgreSQL",
    )
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
    ask.add_argument("--tenant", default=None, help=TENANT_HELP)
    ask.add_argument("--thread", default=None, help="continue this conversation")
    ask.add_argument("--json", action="store_true", help="one JSON event per line")
    ask.add_argument("--chart", type=Path, default=None, help="render the chart to FILE.svg|png")
    ask.add_argument("question", help="the question, in one argument (quote it)")
    ask.set_defaults(run=_cmd_ask)

    evaluate = _deployment_option(
        commands.add_parser("eval", help="evaluation run over a dataset or a suite (or `compare`)")
    )
    chosen = evaluate.add_mutually_exclusive_group()
    chosen.add_argument(
        "--dataset",
        type=Path,
        default=None,
        help="one JSON Lines file (default: evals/datasets/<deployment>/project.jsonl)",
    )
    chosen.add_argument(
        "--suite",
        default=None,
        metavar="NAME",
        help="the sets of evals/datasets/: all, a deployment's name, a split (heldout,"
        " dev, project) or deployment:split; each set on its own deployment",
    )
    evaluate.add_argument(
        "--out", type=Path, default=Path("evals/out"), help="with --suite: <out>/<deployment>/<set>"
    )
    evaluate.add_argument("--model", default=None, help="one model spec for every role")
    evaluate.add_argument("--concurrency", type=int, default=2, help="cases run at once")
    evaluate.add_argument(
        "--fail-under",
        action="append",
        default=[],
        metavar="METRIC=VALUE",
        help="exit 1 when a metric of the summary is below VALUE (repeatable)",
    )
    evaluate.add_argument(
        "--baseline",
        choices=["langchain-sql-agent"],
        default=None,
        help="also run LangChain's SQL agent on the same cases, side by side (needs a model key)",
    )
    evaluate.set_defaults(run=_cmd_eval)
    compare = evaluate.add_subparsers(dest="eval_command", required=False, metavar="compare")
    pair = compare.add_parser("compare", help="cases that changed between two reports")
    pair.add_argument("first", type=Path, help="the earlier report (its JSON file)")
    pair.add_argument("second", type=Path, help="the later report (its JSON file)")
    pair.set_defaults(run=_cmd_eval_compare)

    catalog = commands.add_parser("catalog", help="the DDL catalog").add_subparsers(
        dest="catalog_command", required=True, metavar="ACTION"
    )
    check = _deployment_option(
        catalog.add_parser("check", help="compare the catalog with the live database")
    )
    check.add_argument("--catalog", type=Path, default=None, help="catalog folder")
    check.add_argument(
        "--data",
        action="store_true",
        help="also try each join on the rows (values found in the parent, parent unique)",
    )
    check.set_defaults(run=_cmd_catalog_check)
    imp = _deployment_option(
        catalog.add_parser("import", help="write a catalog file from a live schema")
    )
    imp.add_argument("--schema", required=True, help="database schema to read")
    imp.add_argument("--system", default=None, help="system name (default: the schema's)")
    imp.add_argument("--out", type=Path, default=Path("catalog/systems"), help="output folder")
    imp.add_argument("--force", action="store_true", help="overwrite an existing file")
    _tenancy_options(imp)
    imp.add_argument("--views", action="store_true", help="also views, as read-only tables")
    imp.set_defaults(run=_cmd_catalog_import)
    select = _deployment_option(
        catalog.add_parser(
            "select", help="the tables source selection chooses for each question, and why"
        )
    )
    select.add_argument("--json", action="store_true", help="one JSON object per question")
    select.add_argument(
        "--data",
        action="store_true",
        help="also look the names the questions write up in the data, as a turn does",
    )
    select.add_argument("--tenant", help="with --data, in a deployment with tenants: as whom")
    select.add_argument(
        "questions", nargs="*", metavar="QUESTION", help="questions (default: one per stdin line)"
    )
    select.set_defaults(run=_cmd_catalog_select)

    _deployment_option(add_threads_command(commands))
    _deployment_option(add_review_command(commands))

    init = commands.add_parser("init", help="scaffold a deployment folder from a live schema")
    init.add_argument("folder", type=Path, metavar="DIR", help="new (or empty) folder to write")
    init.add_argument("--schema", required=True, help="database schema to read")
    _tenancy_options(init)
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
        run: Callable[[argparse.Namespace, Settings], int] = args.run
        return run(args, settings)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        if not where:  # a rule over several settings: its message names them
            return fail("CONFIG_INVALID", first["msg"].removeprefix("Value error, "))
        return fail("CONFIG_INVALID", f"setting {where}: {first['msg']}")
    except OrquestraError as exc:  # every error Orquestra names: its code, its message
        return fail(exc.code, exc.message)
    except asyncpg.PostgresError as exc:
        log.info("database error", exc_info=exc)
        return fail("DB_ERROR", f"{type(exc).__name__}: {exc}")
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def _settings(args: argparse.Namespace) -> Settings:
    """The settings, with `--deployment` (if given) ahead of the environment. `init` writes
    the deployment ORQUESTRA_DEPLOYMENT may already name (set first, as people do): until it
    exists the settings are read without it."""
    if _writes_named_deployment(args):
        return Settings(deployment=DEFAULT_DEPLOYMENT)
    if not getattr(args, "deployment", None):
        return Settings()
    settings = Settings(deployment=args.deployment)
    # The server's app factory (and any worker process) reads the settings again.
    os.environ["ORQUESTRA_DEPLOYMENT"] = str(settings.active_deployment.root)
    return settings


def _writes_named_deployment(args: argparse.Namespace) -> bool:
    named = os.environ.get("ORQUESTRA_DEPLOYMENT", "")
    folder: Path | None = getattr(args, "folder", None) if args.run is _cmd_init else None
    if folder is None or not named:
        return False
    return Path(named).expanduser().resolve() == folder.expanduser().resolve()


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
