"""Follow-ups, clarification, fixer, zero-row retry, and every cap with a script that never
succeeds: the turn ends with a clear message after exactly the capped number of attempts."""

from __future__ import annotations

from tests.integration.graph.conftest import Harness
from tests.integration.graph.scripts import (
    NO_ROWS,
    NOTA_STATUS,
    REVENUE_2026,
    VAGUE_QUESTION,
    augmented,
    cross_tenant_turn,
    fixed,
    routed,
    vague,
    written,
)

BAD_COLUMN = "SELECT num_nota, valor_total FROM notas_fiscais WHERE num_nota = 40908"
GOOD_VALUE = "SELECT num_nota, valor_nota FROM notas_fiscais WHERE num_nota = 40908"


async def test_follow_up_is_resolved_with_the_threads_history(harness: Harness) -> None:
    current = harness.use(
        {
            "augmenter": [
                augmented("status da nota 40908"),
                augmented("qual o valor da nota 40908?"),
            ],
            "router": [routed("TRACKING"), routed("TRACKING")],
            "sql_writer": [written(NOTA_STATUS), written(GOOD_VALUE)],
            "answer": ["A nota 40908 foi entregue.", "O valor está abaixo."],
        }
    )
    await harness.ask("status da nota 40908")
    second = await harness.ask("e o valor dela?")
    prompt = [p for role, p in current.seen if role == "augmenter"][1]
    assert "## Previous question\nstatus da nota 40908" in prompt
    assert "assistant: A nota 40908 foi entregue." in prompt
    assert "## Message\ne o valor dela?" in prompt
    assert second.result["columns"] == ["num_nota", "valor_nota"]
    state = await harness.state()
    assert state["last_question"] == "qual o valor da nota 40908?"
    assert state["model_calls"] == 4  # counters are per turn


async def test_clarification_interrupts_and_the_next_message_resumes(harness: Harness) -> None:
    current = harness.use(
        {
            "augmenter": [
                vague(),
                augmented("faturamento por mês em 2026"),
            ],
            "router": [routed("ANALYTICS")],
            "sql_writer": [written(REVENUE_2026)],
            "answer": ["Aqui está o faturamento."],
        }
    )
    first = await harness.ask("como está a produção?")
    assert first.of("clarify") == [{"question": VAGUE_QUESTION}]
    assert not first.of("result") and first.events[-1]["event"] == "done"
    second = await harness.ask("faturamento de 2026")
    assert second.result["rows"]
    prompt = [p for role, p in current.seen if role == "augmenter"][1]
    assert "Q: Você quer ver faturamento" in prompt and "A: faturamento de 2026" in prompt


async def test_closed_question_is_not_questioned_back(harness: Harness) -> None:
    harness.use(
        {
            "augmenter": [augmented("quantas notas bloqueadas em maio?")],
            "router": [routed("ANALYTICS")],
            "sql_writer": [
                written("SELECT count(*) FROM notas_fiscais WHERE status = 'BLOQUEADA'")
            ],
            "answer": ["ok"],
        }
    )
    turn = await harness.ask("quantas notas bloqueadas em maio?")
    assert not turn.of("clarify") and turn.result["rows"]


async def test_clarify_cap_then_best_reading_with_assumption(harness: Harness) -> None:
    vague = augmented(
        "como está a produção?",
        missing=["measure"],
        clarifying_question="O que você quer ver?",
        assumption="Entendi como faturamento por mês.",
    )
    harness.use(
        {
            "augmenter": [vague],
            "router": [routed("ANALYTICS")],
            "sql_writer": [written(REVENUE_2026)],
            "answer": ["Faturamento."],
        },
        repeat=("augmenter",),
    )
    asked = 0
    turn = await harness.ask("como está a produção?")
    while turn.of("clarify"):
        asked += 1
        turn = await harness.ask("não sei, qualquer coisa")
    assert asked == 2  # max_clarify_rounds
    assert (await harness.state())["assumption"] == "Entendi como faturamento por mês."
    assert turn.result["rows"]


async def test_fixer_repairs_a_bad_column(harness: Harness) -> None:
    current = harness.use(
        {
            "augmenter": [augmented("valor da nota 40908")],
            "router": [routed("TRACKING")],
            "sql_writer": [written(BAD_COLUMN)],
            "fixer": [fixed(GOOD_VALUE)],
            "answer": ["Valor."],
        }
    )
    turn = await harness.ask("valor da nota 40908")
    outcomes = [a["outcome"] for a in turn.result["attempts"]]
    assert outcomes == ["error", "rows"]
    assert "valor_total" in turn.result["attempts"][0]["error"]
    fixer_prompt = next(p for role, p in current.seen if role == "fixer")
    assert 'column "valor_total" does not exist' in fixer_prompt


async def test_guard_rejection_goes_to_the_fixer(harness: Harness) -> None:
    harness.use(
        {
            "augmenter": [augmented("valor da nota 40908")],
            "router": [routed("TRACKING")],
            "sql_writer": [written("SELECT pg_sleep(1), valor_nota FROM notas_fiscais")],
            "fixer": [fixed(GOOD_VALUE)],
            "answer": ["Valor."],
        }
    )
    turn = await harness.ask("valor da nota 40908")
    first = turn.result["attempts"][0]
    assert first["outcome"] == "rejected" and first["error"].startswith("GUARD_FUNCTION")
    assert turn.result["rows"]


async def test_zero_rows_retry_with_the_tried_sql(harness: Harness) -> None:
    current = harness.use(
        {
            "augmenter": [augmented("valor da nota 40908")],
            "router": [routed("TRACKING")],
            "sql_writer": [written(NO_ROWS), written(GOOD_VALUE)],
            "answer": ["Valor."],
        }
    )
    turn = await harness.ask("valor da nota 40908")
    assert [a["outcome"] for a in turn.result["attempts"]] == ["zero_rows", "rows"]
    retry_prompt = [p for role, p in current.seen if role == "sql_writer"][1]
    assert NO_ROWS in retry_prompt and "another way" in retry_prompt
    assert "zero_row_retry" in turn.nodes()


async def test_sql_attempt_cap_says_no_data_and_lists_the_queries(harness: Harness) -> None:
    current = harness.use(
        {
            "augmenter": [augmented("nota 99999999")],
            "router": [routed("TRACKING")],
            "sql_writer": [written(NO_ROWS)],
        },
        repeat=("sql_writer",),
    )
    turn = await harness.ask("nota 99999999")
    assert [r for r, _ in current.seen].count("sql_writer") == 4  # max_sql_attempts
    assert turn.result["stop_reason"] == "MAX_SQL_ATTEMPTS"
    assert turn.result["answer"].startswith("Não encontrei dados")
    assert turn.result["answer"].count(NO_ROWS) == 4
    assert (await harness.state())["caps_hit"] == ["MAX_SQL_ATTEMPTS"]


async def test_fix_cap_ends_with_the_last_error(harness: Harness) -> None:
    current = harness.use(
        {
            "augmenter": [augmented("valor")],
            "router": [routed("TRACKING")],
            "sql_writer": [written(BAD_COLUMN)],
            "fixer": [fixed(BAD_COLUMN)],
        },
        repeat=("fixer",),
    )
    turn = await harness.ask("valor")
    assert [r for r, _ in current.seen].count("fixer") == 2  # max_fix_attempts
    assert turn.result["stop_reason"] == "MAX_FIX_ATTEMPTS"
    assert "valor_total" in turn.result["answer"] and len(turn.result["attempts"]) == 3


async def test_refine_cap_delivers_the_best_answer(harness: Harness) -> None:
    current = harness.use(
        {
            "augmenter": [augmented("o que é OTIF?", is_data_question=False)],
            "router": [routed("KNOWLEDGE")],
            "librarian": [{"answer": "OTIF mede entregas no prazo.", "terms": ["OTIF"]}],
            "judge": [{"addresses_question": False, "feedback": "explique melhor"}],
        },
        repeat=("librarian", "judge"),
    )
    turn = await harness.ask("o que é OTIF?")
    roles = [r for r, _ in current.seen]
    assert roles.count("librarian") == 4 and roles.count("judge") == 4  # 1 + 3 refinements
    # The best answer goes out, saying honestly that the judges did not approve it.
    assert turn.result["answer"].startswith("OTIF mede entregas no prazo.\n\nAtenção:")
    assert "(relevance)" in turn.result["answer"]
    assert (await harness.state())["caps_hit"] == ["MAX_REFINE_ROUNDS"]


async def test_model_call_budget_stops_a_runaway_turn(harness: Harness) -> None:
    current = harness.use(
        {
            "augmenter": [augmented("nota 99999999")],
            "router": [routed("TRACKING")],
            "sql_writer": [written(NO_ROWS)],
        },
        repeat=("sql_writer",),
    )
    turn = await harness.ask("nota 99999999", max_model_calls=4)
    assert len(current.seen) == 4
    assert turn.result["stop_reason"] == "MODEL_BUDGET"
    assert "limite de chamadas" in turn.result["answer"]


async def test_recursion_limit_is_a_backstop(harness: Harness) -> None:
    harness.use(
        {
            "augmenter": [augmented("nota 99999999")],
            "router": [routed("TRACKING")],
            "sql_writer": [written(NO_ROWS)],
        },
        repeat=("sql_writer",),
    )
    turn = await harness.ask("nota 99999999", recursion_limit=6)
    assert turn.of("error") == [
        {"code": "RECURSION_LIMIT", "message": "This question took too many steps and was stopped."}
    ]
    assert turn.events[-1]["event"] == "done"


async def test_invalid_structured_output_gets_one_repair(harness: Harness) -> None:
    harness.use(
        {
            "augmenter": [augmented("faturamento")],
            "router": [{"route": "SOMEWHERE"}, routed("ANALYTICS")],
            "sql_writer": [written(REVENUE_2026)],
            "answer": ["ok"],
        }
    )
    turn = await harness.ask("faturamento")
    assert turn.result["rows"] and (await harness.state())["model_calls"] == 5
    harness.use(
        {"augmenter": [augmented("faturamento")], "router": [{"route": "SOMEWHERE"}]},
        repeat=("router",),
    )
    broken = await harness.ask("faturamento", thread="t2")
    assert broken.result["stop_reason"] == "MODEL_OUTPUT_INVALID"


async def test_a_model_writing_another_tenants_filter_still_reads_its_own(
    harness: Harness,
) -> None:
    # The message is innocent (no rail stops it); the model's SQL is not. The guard holds.
    harness.use(cross_tenant_turn("quantas notas por fornecedor?"))
    turn = await harness.ask("quantas notas por fornecedor?", tenant="101")
    assert turn.result["rows"] and {row[0] for row in turn.result["rows"]} == {101}
