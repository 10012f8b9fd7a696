"""The guard against PostgreSQL's own table of date/time functions and operators.

Source: PostgreSQL 16 documentation, §9.9 "Date/Time Functions and Operators" — Table 9.32
(operators), Table 9.33 (functions), §9.9.2 OVERLAPS, §9.9.4 AT TIME ZONE, §9.9.5 current
date/time, §9.9.6 Delaying Execution — and §9.8 "Data Type Formatting Functions" (Table 9.26)
for the formatting ones; plus the date/time types called as functions (`date(x)`, …).

Each entry is allowed or refused deliberately (a refusal says why). Every allowed one goes
through the real guard (layers 1 and 2) and then runs on the embedded database as the agent's
role (layer 3), so it is shown to work, not only to parse; every refused one is refused by
layer 1 and by layer 3 on its own.
"""

from __future__ import annotations

import asyncpg
import pytest

from orquestra.core.settings import Settings
from orquestra.ddl_catalog import load_catalog
from orquestra.guards import GuardPolicy, GuardRejection, guard_sql
from orquestra.guards.rls_setup import DANGEROUS_FUNCTIONS
from orquestra.guards.tenant_query import ExecutionLimits, run_as_tenant

T = "timestamp '2001-02-16 20:38:40'"
TZ = "timestamptz '2001-02-16 20:38:40+00'"
ALLOWED = {
    # Table 9.33, Date/Time Functions (in the table's order)
    "age": f"age({T}, timestamp '1957-06-13')",
    "age (from today)": f"age({T})",
    "clock_timestamp": "clock_timestamp()",
    "current_date": "current_date",
    "current_time": "current_time",
    "current_time(precision)": "current_time(2)",
    "current_timestamp": "current_timestamp",
    "current_timestamp(precision)": "current_timestamp(0)",
    "date_add": f"date_add({TZ}, interval '1 day', 'Europe/Warsaw')",
    "date_bin": f"date_bin(interval '15 minutes', {T}, timestamp '2001-01-01')",
    "date_part": f"date_part('hour', {T})",
    "date_part (interval)": "date_part('month', interval '2 years 3 months')",
    "date_subtract": f"date_subtract({TZ}, interval '1 day', 'Europe/Warsaw')",
    "date_trunc": f"date_trunc('hour', {T})",
    "date_trunc (time zone)": f"date_trunc('day', {TZ}, 'Australia/Sydney')",
    "date_trunc (interval)": "date_trunc('hour', interval '3 days 02:47:33')",
    "extract": f"extract(hour FROM {T})",
    "extract (interval)": "extract(month FROM interval '2 years 3 months')",
    "isfinite (date)": "isfinite(date '2001-02-16')",
    "isfinite (timestamp)": "isfinite(timestamp 'infinity')",
    "isfinite (interval)": "isfinite(interval '4 hours')",
    "justify_days": "justify_days(interval '1 year 65 days')",
    "justify_hours": "justify_hours(interval '50 hours 10 minutes')",
    "justify_interval": "justify_interval(interval '1 mon -1 hour')",
    "localtime": "localtime",
    "localtime(precision)": "localtime(0)",
    "localtimestamp": "localtimestamp",
    "localtimestamp(precision)": "localtimestamp(2)",
    "make_date": "make_date(2013, 7, 15)",
    "make_interval": "make_interval(days => 10)",
    "make_time": "make_time(8, 15, 23.5)",
    "make_timestamp": "make_timestamp(2013, 7, 15, 8, 15, 23.5)",
    "make_timestamptz": "make_timestamptz(2013, 7, 15, 8, 15, 23.5, 'America/New_York')",
    "now": "now()",
    "statement_timestamp": "statement_timestamp()",
    "timeofday": "timeofday()",
    "transaction_timestamp": "transaction_timestamp()",
    "to_timestamp (epoch)": "to_timestamp(1284352323)",
    # §9.9.2 OVERLAPS, §9.9.4 AT TIME ZONE (and its function form)
    "OVERLAPS": "(date '2001-02-16', date '2001-12-21') OVERLAPS"
    " (date '2001-10-30', date '2002-10-30')",
    "AT TIME ZONE": f"{T} AT TIME ZONE 'America/Denver'",
    "timezone": f"timezone('America/Denver', {T})",
    # Table 9.32, Date/Time Operators
    "date + integer": "date '2001-09-28' + 7",
    "date + interval": "date '2001-09-28' + interval '1 hour'",
    "date + time": "date '2001-09-28' + time '03:00'",
    "interval + interval": "interval '1 day' + interval '1 hour'",
    "timestamp + interval": f"{T} + interval '23 hours'",
    "time + interval": "time '01:00' + interval '3 hours'",
    "- interval": "- interval '23 hours'",
    "date - date": "date '2001-10-01' - date '2001-09-28'",
    "date - integer": "date '2001-10-01' - 7",
    "date - interval": "date '2001-09-28' - interval '1 hour'",
    "time - time": "time '05:00' - time '03:00'",
    "time - interval": "time '05:00' - interval '2 hours'",
    "timestamp - interval": f"{T} - interval '23 hours'",
    "interval - interval": "interval '1 day' - interval '1 hour'",
    "timestamp - timestamp": f"{T} - timestamp '2001-09-27 12:00'",
    "interval * double precision": "interval '1 second' * 900",
    "interval / double precision": "interval '1 hour' / 1.5",
    "date < date (comparison)": "date '2001-09-28' < date '2001-10-01'",
    "BETWEEN": f"{T} BETWEEN timestamp '2001-01-01' AND timestamp '2002-01-01'",
    # Table 9.26, Formatting Functions (date/time ones)
    "to_char": f"to_char({T}, 'HH12:MI:SS')",
    "to_char (interval)": "to_char(interval '15h 2m 12s', 'HH24:MI:SS')",
    "to_date": "to_date('05 Dec 2000', 'DD Mon YYYY')",
    "to_timestamp (text)": "to_timestamp('05 Dec 2000', 'DD Mon YYYY')",
    # The date/time types called as functions (a keyword type only quoted or qualified)
    "date()": f"date({T})",
    "timestamp()": "\"timestamp\"(date '2001-02-16')",
    "timestamptz()": "timestamptz(date '2001-02-16')",
    "time()": f"pg_catalog.time({T})",
    "timetz()": f"timetz({TZ})",
    "interval()": "\"interval\"(time '04:05')",
}
"""Allowed: each with an example from the documentation's table (values as the docs give)."""

REFUSED = {
    "pg_sleep": (
        "pg_sleep(0.01)",
        "§9.9.6 Delaying Execution: reads nothing and holds one of the agent's connections"
        " while it waits (a way to exhaust the pool); layer 3 revokes it as well",
    ),
    "pg_sleep_for": ("pg_sleep_for('10 milliseconds')", "§9.9.6, as pg_sleep"),
    "pg_sleep_until": ("pg_sleep_until(now() + interval '10 milliseconds')", "§9.9.6, as pg_sleep"),
}
"""Refused: each with the reason."""

TABLE_9_33 = """age clock_timestamp current_date current_time current_timestamp date_add date_bin
date_part date_subtract date_trunc extract isfinite justify_days justify_hours justify_interval
localtime localtimestamp make_date make_interval make_time make_timestamp make_timestamptz now
statement_timestamp timeofday transaction_timestamp to_timestamp""".split()  # noqa: SIM905 (as the docs list them)
SECTION_9_9_6 = ["pg_sleep", "pg_sleep_for", "pg_sleep_until"]
"""The names as the documentation lists them, each of which the data above must decide."""
LIMITS = ExecutionLimits(row_cap=0, statement_timeout_ms=3_000, client_timeout_s=6.0)


def test_every_documented_function_is_decided() -> None:
    decided = {name.split(" ")[0].removesuffix("(precision)") for name in ALLOWED} | set(REFUSED)
    assert set(TABLE_9_33) - decided == set()
    assert set(SECTION_9_9_6) <= set(REFUSED)
    assert not set(REFUSED) & {name.split(" ")[0] for name in ALLOWED}


async def test_the_documented_names_are_the_servers(conn: asyncpg.Connection) -> None:
    """Each documented function is one the embedded server has (the list is not stale);
    the SQL keywords among them (CURRENT_DATE, EXTRACT, …) are syntax, not pg_proc rows."""
    keywords = {"current_date", "current_time", "current_timestamp", "localtime", "localtimestamp"}
    names = sorted(set(TABLE_9_33 + SECTION_9_9_6) - keywords)
    found = await conn.fetch("SELECT DISTINCT proname FROM pg_proc WHERE proname = ANY($1)", names)
    assert sorted(r["proname"] for r in found) == names


@pytest.fixture(scope="module")
def policy(settings: Settings) -> GuardPolicy:
    return GuardPolicy.from_catalog(load_catalog(settings.catalog_folder))


@pytest.mark.parametrize("expression", ALLOWED.values(), ids=ALLOWED.keys())
async def test_an_allowed_one_passes_the_guard_and_runs_as_the_agent(
    expression: str, policy: GuardPolicy, agent: asyncpg.Connection
) -> None:
    guarded = guard_sql(f"SELECT {expression} AS value", policy, "101", max_rows=0)
    result = await run_as_tenant(agent, guarded.sql, guarded.params, tenant="101", limits=LIMITS)
    assert len(result.rows) == 1 and result.rows[0][0] is not None


@pytest.mark.parametrize(("expression", "reason"), REFUSED.values(), ids=REFUSED.keys())
async def test_a_refused_one_is_refused_by_the_guard_and_by_the_database(
    expression: str, reason: str, policy: GuardPolicy, agent: asyncpg.Connection
) -> None:
    with pytest.raises(GuardRejection) as refused:
        guard_sql(f"SELECT {expression} AS value", policy, "101", max_rows=0)
    assert refused.value.code == "GUARD_FUNCTION_NOT_ALLOWED" and reason
    assert expression.split("(")[0] in DANGEROUS_FUNCTIONS
    with pytest.raises(asyncpg.InsufficientPrivilegeError):
        await agent.fetchval(f"SELECT {expression}")  # layer 3 alone, without the guard
