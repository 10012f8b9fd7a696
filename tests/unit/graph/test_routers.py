"""The routers are small pure functions; each cap check is here."""

from __future__ import annotations

from types import SimpleNamespace

from langgraph.graph import END

from orquestra.agent.wiring import (
    FINISH,
    after_answer_judge,
    after_augmenter,
    after_executor,
    after_guard,
    after_input_rails,
    after_judge,
    after_router,
    after_short_circuit,
    after_streamer,
    after_writer,
)
from orquestra.core.settings import Caps
from orquestra.graph.context import RunContext

RUNTIME = SimpleNamespace(context=RunContext(caps=Caps(max_fix_attempts=2, max_sql_attempts=4)))


def test_short_circuit_input_rails_and_augmenter() -> None:
    assert after_short_circuit({"answer": "Olá"}) == "streamer"
    assert after_short_circuit({"answer": ""}) == "input_rails"
    assert after_input_rails({"answer": "Não posso mudar minhas instruções."}) == "streamer"
    assert after_input_rails({"stop_reason": "MODEL_BUDGET"}) == "streamer"
    assert after_input_rails({}) == "augmenter"
    assert after_augmenter({"clarify_question": "?"}) == "clarify"
    assert after_augmenter({"stop_reason": "MODEL_BUDGET", "clarify_question": "?"}) == "streamer"
    assert after_augmenter({}) == "router"


def test_answer_judges_loop_back_only_with_feedback() -> None:
    assert after_streamer({"judge_pending": True}) == "answer_judge"
    assert after_streamer({"judge_pending": True, "stop_reason": "MODEL_BUDGET"}) == END
    assert after_streamer({}) == END
    assert after_answer_judge({"judge_feedback": "numbers not in the result"}) == "streamer"
    assert after_answer_judge({"judge_feedback": None}) == END
    assert after_answer_judge({"judge_feedback": "x", "stop_reason": "MODEL_BUDGET"}) == END


def test_router_paths() -> None:
    assert after_router({"route": "CHAT"}) == "chat"
    assert after_router({"route": "KNOWLEDGE"}) == "librarian"
    assert after_router({"route": "ANALYTICS", "wants_knowledge": True}) == "librarian"
    assert after_router({"route": "TRACKING"}) == "select_sources"
    assert after_judge({"route": "ANALYTICS"}) == "select_sources"
    assert after_judge({"route": "KNOWLEDGE"}) == "streamer"
    assert after_judge({"route": "KNOWLEDGE", "judge_feedback": "x"}) == "librarian"


def test_writer_and_guard_caps() -> None:
    assert after_writer({"draft_sql": None}) == "streamer"
    assert after_writer({"draft_sql": "SELECT 1"}) == "tenant_guard"
    assert after_guard({"guarded_sql": "SELECT 1"}, RUNTIME) == "executor"
    assert after_guard({"fix_attempts": 1}, RUNTIME) == "fixer"
    assert after_guard({"fix_attempts": 2}, RUNTIME) == "cap_reached"


def test_executor_caps() -> None:
    rows = {"result": {"rows": [[1]]}}
    empty = {"result": {"rows": []}}
    assert after_executor(rows, RUNTIME) == "analyzer"
    assert after_executor({**empty, "sql_attempt": 3}, RUNTIME) == "zero_row_retry"
    assert after_executor({**empty, "sql_attempt": 4}, RUNTIME) == "cap_reached"
    assert after_executor({"result": None, "fix_attempts": 0}, RUNTIME) == "fixer"
    assert after_executor({"result": None, "fix_attempts": 2}, RUNTIME) == "cap_reached"


def test_the_routers_finish_is_langgraphs_end() -> None:
    assert FINISH == END
