"""What the offline model's SQL writer makes of a question, on either sample deployment, for
the tests of its readings: parsed and built against the deployment's catalog on the demo's
today, and accepted by the guard (so a test never asserts on SQL that could not run)."""

from __future__ import annotations

from datetime import date

from orquestra.core.deployment import load_deployment
from orquestra.ddl_catalog import load_catalog
from orquestra.guards import GuardPolicy, guard_sql
from orquestra.offline.conversation import route
from orquestra.offline.lexicon import lexicon_for
from orquestra.offline.parser import parse
from orquestra.offline.sql import build_sql

TODAY = date(2026, 6, 30)
CATALOGS = {
    name: load_catalog(load_deployment(name).catalog_dir) for name in ("logistics", "clinics")
}


def sql_for(deployment: str, question: str) -> str:
    """The SQL for `question` on `deployment`, on one line, once the guard has accepted it."""
    catalog = CATALOGS[deployment]
    intent = parse(question, catalog, lexicon_for(catalog), TODAY)
    sql = " ".join(build_sql(intent, catalog, TODAY.isoformat()).split())
    guard_sql(sql, GuardPolicy.from_catalog(catalog), "101")
    return sql


def route_of(deployment: str, question: str) -> str:
    """The route the offline router gives `question` on `deployment`."""
    catalog = CATALOGS[deployment]
    return str(route(question, catalog, lexicon_for(catalog), TODAY)["route"])
