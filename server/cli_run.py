"""The command line's run commands: demo, serve, token, ask, sql, guard, models, eval."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys

from orquestra.core.errors import OrquestraError
from orquestra.core.settings import Settings
from orquestra.ddl_catalog import load_catalog
from orquestra.guards.rails import Guardrails, Toolkit
from orquestra.server.cli_data import _cmd_catalog_check, _print_report
from orquestra.server.terminal import fail

log = logging.getLogger("orquestra")


def check_guardrails(settings: Settings) -> Guardrails:
    """The guardrails file, loaded before serving so that any error in it is reported as a
    clear error (the server's start-up would only log it); the server then uses them."""
    catalog = load_catalog(settings.catalog_folder)
    profile = settings.active_deployment.profile
    toolkit = Toolkit(catalog, settings.limits.max_message_chars, profile)
    return Guardrails.load(toolkit, settings.guardrails_file, settings.observability_mapping_file)


def _cmd_demo(args: argparse.Namespace, settings: Settings) -> int:
    from orquestra.server.db_init import init_database

    name = settings.active_deployment.name
    print(f"Orquestra demo ({name}): starting the embedded PostgreSQL and loading the sample data…")
    report = asyncio.run(init_database(settings))
    _print_report(report, settings)
    checked = _cmd_catalog_check(argparse.Namespace(catalog=None, data=False), settings)
    if checked != 0:
        return checked
    from orquestra.server.auth import mint_token

    port = args.port or settings.port
    print(f"\nWeb chat: http://{settings.host}:{port}/  (Ctrl-C stops it and the database)")
    if settings.metrics_enabled:
        from orquestra.server.metrics_listener import metrics_url

        print(f"Metrics (operators only, not the web chat's port): {metrics_url(settings)}")
    tenant = next(iter(report.tenant_rows), None)
    if tenant is not None:
        print(f"Demo token for tenant {tenant}: {mint_token(settings, tenant, f'demo-{tenant}')}")
    serve = argparse.Namespace(host=None, port=port, workers=1, dev_login=True)
    return _cmd_serve(serve, settings)


def _cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn
    from fastapi import FastAPI

    from orquestra.core.database import admin_url
    from orquestra.server.app import create_app
    from orquestra.server.http_protocol import MAX_HEAD_BYTES, BoundedH11Protocol
    from orquestra.server.metrics_listener import operator_metrics
    from orquestra.server.shutdown import AFTER_DRAIN_S

    if args.dev_login:
        if settings.mode == "production":
            return fail(
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
    guardrails = check_guardrails(settings)  # a broken file is a clear error now
    admin_url(settings)  # start (or join) the embedded PostgreSQL in this process first
    served: str | FastAPI
    if (args.workers or 1) == 1:  # served here: the app uses the rails just loaded
        served = create_app(settings, dev_login=args.dev_login, guardrails=guardrails)
    else:  # each worker process builds its app (and reads the file) itself
        served = (
            "orquestra.server.app:create_dev_app"
            if args.dev_login
            else "orquestra.server.app:create_app"
        )
    port = args.port or settings.port
    # Started once, here: with several workers this process only supervises them.
    with operator_metrics(settings, workers=args.workers or 1, public_port=port):
        uvicorn.run(
            served,
            factory=isinstance(served, str),
            host=args.host or settings.host,
            port=port,
            workers=args.workers,
            log_level="warning",
            log_config=None,  # uvicorn's own lines go through our JSON handler too
            http=BoundedH11Protocol,  # a request head bounded in size and time
            h11_max_incomplete_event_size=MAX_HEAD_BYTES,
            # SIGTERM drains the turns first (server.shutdown); then uvicorn stops, bounded.
            timeout_graceful_shutdown=AFTER_DRAIN_S,
        )
    return 0


class TenantOptionError(OrquestraError):
    """`--tenant` given where there are no tenants, missing where there are, or invalid."""


def asked_tenant(settings: Settings, given: str | None) -> str:
    """The canonical tenant a command runs as: `--tenant` in a deployment with tenants
    (required), none in one without (refused if given, as a token's claim is)."""
    from orquestra.guards.tenant_key import InvalidTenant, deployment_key

    key = deployment_key(load_catalog(settings.catalog_folder), settings.active_deployment.profile)
    if given is None and key.has_tenants:
        raise TenantOptionError(
            "TENANT_REQUIRED", "this deployment's data has tenants: name one with --tenant T"
        )
    if given is not None and not key.has_tenants:
        raise TenantOptionError(
            "TENANT_NOT_USED",
            "this deployment has no tenants (tenancy: none in its profile): leave out --tenant",
        )
    try:
        return key.canonical(given)
    except InvalidTenant as exc:
        raise TenantOptionError("INVALID_TENANT", f"{given!r}: {exc}") from None


def _cmd_token(args: argparse.Namespace, settings: Settings) -> int:
    from orquestra.server.auth import mint_token

    tenant = asked_tenant(settings, args.tenant)
    print(mint_token(settings, tenant, args.user, tuple(args.role)))
    return 0


def _cmd_guard_rewrite(args: argparse.Namespace, settings: Settings) -> int:
    from orquestra.guards.__main__ import rewrite

    return rewrite(args.policy, args.tenant, args.max_rows)


def _cmd_sql(args: argparse.Namespace, settings: Settings) -> int:
    from orquestra.server.sql_command import run_sql_command

    return run_sql_command(
        args.query,
        asked_tenant(settings, args.tenant),
        raw=args.raw,
        as_json=args.json,
        settings=settings,
        dialect=args.dialect,
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
        why = "" if report.replaced_version is None else ", a newer version of it"
        print(f"loaded the {name} sample data ({report.total_rows} rows{why})", file=sys.stderr)


def _cmd_ask(args: argparse.Namespace, settings: Settings) -> int:
    from orquestra.server.ask_command import run_ask_command

    tenant = asked_tenant(settings, args.tenant)
    _sample_loaded(settings)
    return run_ask_command(
        args.question,
        tenant,
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
    from orquestra.evals.cli import run_eval, run_suite
    from orquestra.evals.dataset import load_dataset
    from orquestra.evals.suites import DATASETS_DIR

    if args.suite:
        _suite_deployments(args, settings)
        return run_suite(
            args.suite,
            args.out,
            args.model,
            args.concurrency,
            args.fail_under,
            lambda name: _suite_settings(name, settings),
            baseline=getattr(args, "baseline", None),
        )
    dataset = args.dataset or DATASETS_DIR / settings.active_deployment.name / "project.jsonl"
    load_dataset(dataset)  # a file that cannot be read or is invalid stops before any loading
    _sample_loaded(settings)
    return run_eval(
        dataset,
        args.out,
        args.model,
        args.concurrency,
        args.fail_under,
        settings,
        baseline=getattr(args, "baseline", None),
    )


def _suite_deployments(args: argparse.Namespace, settings: Settings) -> None:
    """A suite's folders decide its deployments: a `--deployment` naming another is refused
    before anything runs."""
    from orquestra.evals.dataset import DatasetError
    from orquestra.evals.suites import resolve_suite

    given = settings.active_deployment.name
    others = {s.deployment for s in resolve_suite(args.suite)} - {given}
    if getattr(args, "deployment", None) and others:
        raise DatasetError(
            "EVAL_SUITE_DEPLOYMENT",
            f"the suite {args.suite!r} runs sets of {', '.join(sorted(others))}, not only of"
            f" the deployment given ({given}): leave --deployment out",
        )


def _suite_settings(name: str, settings: Settings) -> Settings:
    """The settings for a suite's sets of deployment `name` (its folder decides, not the
    environment), with its sample data loaded."""
    if settings.active_deployment.name != name:
        settings = Settings(deployment=name)
        # As `--deployment` does: anything that reads the settings again reads this one.
        os.environ["ORQUESTRA_DEPLOYMENT"] = str(settings.active_deployment.root)
    _sample_loaded(settings)
    return settings


def _cmd_eval_compare(args: argparse.Namespace, settings: Settings) -> int:
    from orquestra.evals.cli import run_compare

    return run_compare(args.first, args.second)
