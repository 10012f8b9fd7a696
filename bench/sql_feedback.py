"""Benchmark the catalog check's feedback: precise errors before the database against the raw
PostgreSQL error alone, on the same broken queries, side by side in one run.

Usage: python bench/sql_feedback.py [--fix-cap 2] [--rounds 20]
For each query of tests/integration/guards/broken_queries.yaml (47: misspelled and
synonym columns, wrong tables, enumerated values in the wrong case or spelling, ambiguous
columns, missing joins, wrong date columns), a turn's repair loop runs as the graph runs it —
check (precise mode only), guard, execute as tenant 101, and on a failure the fixer, at most
`--fix-cap` times — with a scripted fixer that does exactly what its feedback says and
nothing else:
- precise: the check's findings, as data (the offline model's `follow`: each problem's first
  suggestion, or the catalog's join for a column of another table);
- raw: the error as PostgreSQL (or the guard) words it, following only what it names (a
  `HINT: Perhaps you meant to reference the column "t.c"`).
Success is the meant query's rows (a multiset, as the evaluations compare). Prints per kind
and overall: successes, fixer calls, queries that reached the database with a mistake, and
the check's own time per query (median and p95).
Uses the embedded database in ORQUESTRA_DATA_DIR (loading the demo data if missing).
"""

from __future__ import annotations

import argparse
import asyncio
import re
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import asyncpg
import yaml
from figures import summary

from orquestra.core.database import agent_url
from orquestra.core.settings import Settings
from orquestra.ddl_catalog import Catalog, load_catalog
from orquestra.guards import GuardPolicy, GuardRejection, guard_sql
from orquestra.guards.sql_check import check_sql
from orquestra.guards.tenant_query import ExecutionLimits, QueryError, run_as_tenant
from orquestra.offline.fixer import follow
from orquestra.server.db_init import init_database

CORPUS = (
    Path(__file__).resolve().parents[1] / "tests" / "integration" / "guards" / "broken_queries.yaml"
)
TENANT = "101"
LIMITS = ExecutionLimits(row_cap=0, statement_timeout_ms=5_000, client_timeout_s=10.0)
HINT = re.compile(
    r'column "?(\w+)"? does not exist'
    r'.*Perhaps you meant to reference the column "(?:\w+\.)?(\w+)"',
    re.S,
)


@dataclass
class Outcome:
    """How one broken query ended in one mode."""

    right: bool = False
    fixer_calls: int = 0
    wrong_runs: int = 0
    """Times a query with a mistake reached the database (an error, or wrong rows)."""
    end: str = ""


def follow_raw(sql: str, error: str) -> str | None:
    """The raw error's own suggestion applied, or None when it names none."""
    found = HINT.search(error)
    if not found:
        return None
    wrong, right = found.groups()
    return re.sub(rf"\b{re.escape(wrong)}\b", right, sql)


async def run(conn: asyncpg.Connection, sql: str, policy: GuardPolicy) -> list[tuple]:
    guarded = guard_sql(sql, policy, TENANT, max_rows=0)
    result = await run_as_tenant(conn, guarded.sql, guarded.params, tenant=TENANT, limits=LIMITS)
    return [tuple(row) for row in result.rows]


def multiset(rows: list[tuple]) -> Counter:
    return Counter(
        tuple(round(Decimal(str(v)), 2) if isinstance(v, float | Decimal) else v for v in row)
        for row in rows
    )


async def repair_loop(
    conn: asyncpg.Connection,
    case: dict[str, Any],
    expected: Counter,
    catalog: Catalog,
    policy: GuardPolicy,
    precise: bool,
    cap: int,
) -> Outcome:
    outcome, sql = Outcome(), case["sql"]
    while True:
        followed: str | None = None
        if precise:
            checked = check_sql(sql, catalog)
            sql = checked.sql
            if checked.problems:
                followed = follow(sql, [p.as_dict() for p in checked.problems])
                outcome.end = "check"
        if outcome.end != "check":
            try:
                rows = await run(conn, sql, policy)
            except (GuardRejection, QueryError) as failure:
                outcome.wrong_runs += isinstance(failure, QueryError)
                detail = getattr(failure, "detail", "") or failure.message
                followed, outcome.end = follow_raw(sql, detail), "error"
            else:
                outcome.right = multiset(rows) == expected
                outcome.wrong_runs += not outcome.right
                outcome.end = "rows" if outcome.right else "wrong rows"
                return outcome
        if outcome.fixer_calls >= cap:
            outcome.end += ", cap"
            return outcome
        outcome.fixer_calls += 1  # the fixer is called with the feedback ...
        if followed is None:  # ... and finds nothing in it to follow
            outcome.end += ", nothing to follow"
            return outcome
        sql, outcome.end = followed, ""


async def main(cap: int, rounds: int) -> None:
    settings = Settings()
    await init_database(settings)
    catalog = load_catalog(settings.catalog_folder)
    policy = GuardPolicy.from_catalog(catalog)
    cases = yaml.safe_load(CORPUS.read_text(encoding="utf-8"))["cases"]
    conn = await asyncpg.connect(agent_url(settings))
    results: dict[str, dict[str, list[Outcome]]] = {
        "precise": defaultdict(list),
        "raw": defaultdict(list),
    }
    try:
        for case in cases:
            expected = multiset(await run(conn, case["gold"], policy))
            for mode in results:
                outcome = await repair_loop(
                    conn, case, expected, catalog, policy, mode == "precise", cap
                )
                results[mode][case["kind"]].append(outcome)
    finally:
        await conn.close()
    print(f"{len(cases)} broken queries, fixer cap {cap}, scripted fixer that follows its feedback")
    print(f"{'kind':<20} {'n':>3}  precise: right, fixer calls  raw: right, fixer calls")
    for kind in results["precise"]:
        line = [f"{kind:<20} {len(results['precise'][kind]):>3}"]
        for mode in ("precise", "raw"):
            outcomes = results[mode][kind]
            right, calls = sum(o.right for o in outcomes), sum(o.fixer_calls for o in outcomes)
            line.append(f"{right:>14}/{len(outcomes):<3} {calls:>10}")
        print("  ".join(line))
    for mode in ("precise", "raw"):
        everything = [o for kind in results[mode].values() for o in kind]
        right = sum(o.right for o in everything)
        calls = sum(o.fixer_calls for o in everything)
        wrong = sum(o.wrong_runs for o in everything)
        print(
            f"{mode:<8} right {right}/{len(everything)} ({100 * right / len(everything):.0f} %), "
            f"fixer calls {calls} ({calls / len(everything):.2f} a query), "
            f"queries that reached the database with a mistake {wrong}"
        )
    timings = []
    for _ in range(rounds):
        for case in cases:
            started = time.perf_counter()
            check_sql(case["sql"], catalog)
            timings.append((time.perf_counter() - started) * 1000)
    print(f"the check's time per query: {summary(timings, 0.95)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fix-cap", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    asyncio.run(main(args.fix_cap, args.rounds))
