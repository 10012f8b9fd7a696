"""The guard's driver runs its list of passes: exactly those, in order, and fails closed."""

from __future__ import annotations

from dataclasses import replace

import pytest
from pglast import ast
from pglast.stream import RawStream

from orquestra.guards import GuardPolicy, GuardRejection, TablePolicy, guard_sql
from orquestra.guards.sql_guard import (
    _NOTHING_PARSED,
    PASSES,
    GuardPass,
    GuardRun,
    _run_passes,
)

POLICY = GuardPolicy(
    {
        "orders": TablePolicy("orders", "public", "tenant_id"),
        "countries": TablePolicy("countries", "public", None),
    }
)
SQL = "SELECT o.id, c.name FROM orders o JOIN countries c ON c.code = o.country -- all"


def recorded(passes: tuple[GuardPass, ...], log: list[str]) -> tuple[GuardPass, ...]:
    """`passes`, each noting its name in `log` before it runs."""

    def noting(step: GuardPass) -> GuardPass:
        def run(statement: ast.SelectStmt, guard_run: GuardRun) -> ast.SelectStmt:
            log.append(step.name)
            return step.run(statement, guard_run)

        return replace(step, run=run)

    return tuple(noting(step) for step in passes)


def test_the_driver_runs_exactly_the_passes_in_order() -> None:
    log: list[str] = []
    guarded = _run_passes(recorded(PASSES, log), SQL, POLICY, "7", 10)
    assert log == [step.name for step in PASSES]
    assert guarded == guard_sql(SQL, POLICY, "7", 10)
    assert list(guarded.timings_ms) == ["parse", "validate", "rewrite", "verify"]
    assert RawStream()(_NOTHING_PARSED) == "SELECT"  # the shared empty start, left untouched


def test_a_pass_sees_the_statement_its_predecessors_made() -> None:
    seen: list[str] = []

    def look(statement: ast.SelectStmt, run: GuardRun) -> ast.SelectStmt:
        seen.append(RawStream()(statement))
        return statement

    after_cap = [step.name for step in PASSES].index("cap_rows") + 1
    passes = (*PASSES[:after_cap], GuardPass("look", "layer 2", "rewrite", look))
    passes += PASSES[after_cap:]
    guarded = _run_passes(passes, SQL, POLICY, "7", 10)
    assert seen == [guarded.sql]
    assert seen[0].startswith("SELECT o.id, c.name FROM (SELECT * FROM public.orders WHERE")
    assert seen[0].endswith("LIMIT 10")


def test_each_phase_is_one_run_of_consecutive_passes() -> None:
    """Timings add up per phase, so a phase's passes stand together, in the phases' order."""
    phases = [step.phase for step in PASSES]
    runs = [phase for i, phase in enumerate(phases) if i == 0 or phases[i - 1] != phase]
    assert runs == ["parse", "validate", "rewrite", "verify"]


def test_a_pass_that_breaks_fails_closed_and_stops_the_guard() -> None:
    log: list[str] = []

    def broken(statement: ast.SelectStmt, run: GuardRun) -> ast.SelectStmt:
        raise KeyError("no such thing")

    passes = recorded((*PASSES[:2], GuardPass("broken", "layer 2", "rewrite", broken)), log)
    passes += recorded(PASSES[2:], log)
    with pytest.raises(GuardRejection) as caught:
        _run_passes(passes, SQL, POLICY, "7", 10)
    assert caught.value.code == "GUARD_INTERNAL"
    assert caught.value.message == "the guard could not check this query ('no such thing')"
    assert log == ["parse", "validate", "broken"]


def test_a_pass_that_refuses_refuses_with_its_own_code() -> None:
    def refuse(statement: ast.SelectStmt, run: GuardRun) -> ast.SelectStmt:
        raise GuardRejection("GUARD_NODE_NOT_ALLOWED", "not today")

    passes = (*PASSES, GuardPass("refuse", "final check", "verify", refuse))
    with pytest.raises(GuardRejection) as caught:
        _run_passes(passes, SQL, POLICY, "7", 10)
    assert caught.value.as_dict() == {"rejected": "GUARD_NODE_NOT_ALLOWED", "message": "not today"}


def after_deparse(step: GuardPass) -> tuple[GuardPass, ...]:
    at = [s.name for s in PASSES].index("deparse") + 1
    return (*PASSES[:at], step, *PASSES[at:])


def test_the_final_check_reads_the_text_that_is_sent() -> None:
    def swap_text(statement: ast.SelectStmt, run: GuardRun) -> ast.SelectStmt:
        run.sql = "SELECT * FROM public.orders"
        return statement

    with pytest.raises(GuardRejection) as caught:
        _run_passes(
            after_deparse(GuardPass("swap", "layer 2", "rewrite", swap_text)), SQL, POLICY, "7", 0
        )
    assert caught.value.as_dict() == {
        "rejected": "GUARD_INTERNAL",
        "message": "orders escaped the tenant filter",
    }


def test_the_tree_left_after_deparse_is_not_what_is_sent() -> None:
    def swap_tree(statement: ast.SelectStmt, run: GuardRun) -> ast.SelectStmt:
        return ast.SelectStmt()

    passes = after_deparse(GuardPass("swap", "layer 2", "rewrite", swap_tree))
    assert _run_passes(passes, SQL, POLICY, "7", 0) == guard_sql(SQL, POLICY, "7", 0)


def test_a_query_of_shared_tables_binds_no_tenant() -> None:
    guarded = guard_sql("SELECT name FROM countries", POLICY, "7")
    assert guarded.sql == "SELECT name FROM public.countries"
    assert guarded.params == []
