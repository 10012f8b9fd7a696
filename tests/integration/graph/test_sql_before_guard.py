"""What happens to the model's SQL before the guard, through the whole graph on the demo's
database: a dialect slip is normalised and a value's case corrected without a model call (the
`sql` event says so), and an unknown column reaches the fixer with the nearest valid names —
followed by the default offline model as the fixer, not only by a scripted one.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from prometheus_client import REGISTRY

from orquestra.evals.compare import exact_match
from orquestra.evals.dataset import Case
from orquestra.evals.runner import gold_rows
from orquestra.graph.context import ROLES
from orquestra.graph.events import run_turn
from tests.deployment_cases import only
from tests.dialect_slips import DIALECTS, TENANT, load_slips
from tests.integration.graph.conftest import Harness, Turn
from tests.integration.graph.scripts import data_turn, fixed

SLIPS = load_slips()

pytestmark = only("logistics")


async def gold(harness: Harness, sql: str) -> list[list]:
    case = Case(
        id="gold",
        question="gold",
        tenant=TENANT,
        route="analytics",
        gold_sql=sql,
        split="project",
        origin="dialect_slips",
    )
    found = await gold_rows(case, harness.resources)
    assert found is not None, sql
    return found


@pytest.mark.parametrize("slip", SLIPS, ids=lambda slip: slip.id)  # ≥ 40: tests/unit/guards
async def test_a_dialect_slip_gives_the_right_rows_without_the_fixer(
    harness: Harness, slip
) -> None:
    harness.use(data_turn(slip.question, slip.sql))
    turn = await harness.ask(slip.question, thread=f"slip-{slip.id}", tenant=TENANT)
    assert "fixer" not in turn.nodes()
    assert [a["outcome"] for a in turn.result["attempts"]] in (["rows"], ["zero_rows"])
    (event,) = turn.of("sql")
    assert event["normalised_from"] in DIALECTS
    if slip.clock:  # both sides read the clock: compared by the guard corpus's own test
        return
    expected = await gold(harness, slip.gold)
    if turn.result.get("truncated"):  # more rows than an answer shows: their count
        assert turn.result["row_count"] == len(expected)
    else:
        assert exact_match(turn.result.get("rows") or [], expected)


async def test_postgres_sql_is_not_marked_normalised(harness: Harness) -> None:
    sql = "SELECT count(*) AS n FROM notas_fiscais WHERE status = 'BLOQUEADA'"
    harness.use(data_turn("quantas notas bloqueadas?", sql))
    turn = await harness.ask("quantas notas bloqueadas?", tenant=TENANT)
    (event,) = turn.of("sql")
    assert "normalised_from" not in event and "corrections" not in event


async def test_a_values_case_is_corrected_without_a_model_call(harness: Harness) -> None:
    sql = "SELECT count(*) AS n FROM notas_fiscais WHERE status = 'Bloqueada'"
    harness.use(data_turn("quantas notas bloqueadas?", sql))
    turn = await harness.ask("quantas notas bloqueadas?", tenant=TENANT)
    assert "fixer" not in turn.nodes()
    (event,) = turn.of("sql")
    assert event["corrections"] == [
        {"column": "notas_fiscais.status", "found": "Bloqueada", "value": "BLOQUEADA"}
    ]
    right = "SELECT count(*) AS n FROM notas_fiscais WHERE status = 'BLOQUEADA'"
    assert turn.result["rows"] == await gold(harness, right)
    assert turn.result["rows"][0][0] > 0


async def ask_with_offline_fixer(harness: Harness, question: str) -> Turn:
    """The turn with the scripted model in every role but the fixer: the default offline
    model (the one a user without an API key has) repairs."""
    models = {role: f"scripted:{harness.script_path}" for role in ROLES} | {"fixer": "offline"}
    context = replace(harness.base, models=models, tenant=TENANT)
    turn = Turn()
    async for event in run_turn(harness.graph, question, thread_id="offline-fix", context=context):
        turn.events.append(event)
    return turn


@pytest.mark.parametrize(
    ("question", "broken", "right"),
    [
        (
            "data de emissão da nota 40908",
            "SELECT num_nota, data_emisao FROM notas_fiscais WHERE num_nota = 40908",
            "SELECT num_nota, data_emissao FROM notas_fiscais WHERE num_nota = 40908",
        ),
        (
            "quantas notas bloqueadas?",
            "SELECT count(*) FROM notas_fiscais WHERE status = 'blocked'",
            "SELECT count(*) FROM notas_fiscais WHERE status = 'BLOQUEADA'",
        ),
        (
            "quantas cargas por modal?",
            "SELECT modal, count(*) FROM cargas GROUP BY modal",
            "SELECT t.modal, count(*) FROM cargas c JOIN transportadoras t"
            " ON t.cod_transportadora = c.cod_transportadora GROUP BY t.modal",
        ),
    ],
    ids=["misspelled-column", "value-synonym", "column-of-another-table"],
)
async def test_the_offline_fixer_follows_the_checks_feedback(
    harness: Harness, question: str, broken: str, right: str
) -> None:
    harness.use(data_turn(question, broken))
    turn = await ask_with_offline_fixer(harness, question)
    attempts = turn.result["attempts"]
    assert [a["outcome"] for a in attempts] == ["rejected", "rows"]
    assert attempts[0]["error"].startswith("SQL_CHECK: ")
    assert turn.nodes().count("fixer") == 1
    assert exact_match(turn.result["rows"], await gold(harness, right))


async def test_a_scripted_fixer_sees_the_feedback_in_its_prompt(harness: Harness) -> None:
    broken = "SELECT count(*) FROM notas_fiscais WHERE status = 'BLOQUEADO'"
    current = harness.use(
        {
            **data_turn("quantas bloqueadas?", broken),
            "fixer": [fixed(broken.replace("BLOQUEADO", "BLOQUEADA"))],
        }
    )
    turn = await harness.ask("quantas bloqueadas?", tenant=TENANT)
    prompt = next(p for role, p in current.seen if role == "fixer")
    assert "has no value 'BLOQUEADO'" in prompt and "'BLOQUEADA'" in prompt
    assert [a["outcome"] for a in turn.result["attempts"]] == ["rejected", "rows"]


def counted(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def test_metrics_count_repairs_corrections_and_findings_apart_from_the_guard(
    harness: Harness,
) -> None:
    """The metrics tell the catalog check's work from the guard's: a repaired slip, a
    corrected value and a stopped draft each move their own counter, never the guard's."""
    slip = next(s for s in SLIPS if s.dialect == "tsql")
    broken = "SELECT count(*) FROM notas_fiscais WHERE statuz = 'BLOQUEADA'"
    before = {
        "tsql": counted("orquestra_sql_normalised_total", dialect="tsql"),
        "corrected": counted("orquestra_sql_check_findings_total", kind="corrected_value"),
        "column": counted("orquestra_sql_check_findings_total", kind="unknown_column"),
        "guard": counted("orquestra_guard_rejections_total", code="SQL_CHECK"),
    }
    harness.use(data_turn(slip.question, slip.sql))
    await harness.ask(slip.question, thread="metrics-slip", tenant=TENANT)
    cased = "SELECT count(*) FROM notas_fiscais WHERE status = 'Bloqueada'"
    harness.use(data_turn("quantas bloqueadas?", cased))
    await harness.ask("quantas bloqueadas?", thread="metrics-case", tenant=TENANT)
    harness.use({**data_turn("quantas bloqueadas?", broken), "fixer": [fixed(cased)]})
    await harness.ask("quantas bloqueadas?", thread="metrics-broken", tenant=TENANT)
    assert counted("orquestra_sql_normalised_total", dialect="tsql") == before["tsql"] + 1
    assert counted("orquestra_sql_check_findings_total", kind="corrected_value") == (
        before["corrected"] + 2  # the case written directly, then the fixer's draft
    )
    assert counted("orquestra_sql_check_findings_total", kind="unknown_column") == (
        before["column"] + 1
    )
    assert counted("orquestra_guard_rejections_total", code="SQL_CHECK") == before["guard"] == 0
