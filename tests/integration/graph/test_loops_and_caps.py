"""Follow-ups, clarification, fixer, zero-row retry, and every cap with a script that never
succeeds: the turn ends with a clear message after exactly the capped number of attempts.
Each runs on both deployments, with that deployment's SQL and questions (scripts.SCRIPTED)."""

from __future__ import annotations

from tests.integration.graph.conftest import Harness
from tests.integration.graph.scripts import (
    augmented,
    cross_tenant_turn,
    fixed,
    routed,
    written,
)


async def test_follow_up_is_resolved_with_the_threads_history(harness: Harness) -> None:
    sql, first_question = harness.sql, harness.deployment.questions.tracking
    current = harness.use(
        {
            "augmenter": [augmented(first_question), augmented(sql.value_question)],
            "router": [routed("TRACKING"), routed("TRACKING")],
            "sql_writer": [written(sql.status), written(sql.good_value)],
            "answer": [f"A {sql.entity} está pronta.", "O valor está abaixo."],
        }
    )
    await harness.ask(first_question)
    second = await harness.ask("e o valor?")
    prompt = [p for role, p in current.seen if role == "augmenter"][1]
    assert f"## Previous question\n{first_question}" in prompt
    assert f"assistant: A {sql.entity} está pronta." in prompt
    assert "## Message\ne o valor?" in prompt
    assert second.result["columns"][-1] == sql.value_column
    state = await harness.state()
    assert state["last_question"] == sql.value_question
    assert state["model_calls"] == 4  # counters are per turn


async def test_clarification_interrupts_and_the_next_message_resumes(harness: Harness) -> None:
    sql = harness.sql
    current = harness.use(
        {
            "augmenter": [
                augmented(
                    "como está a produção?",
                    missing=["measure"],
                    clarifying_question=sql.vague_question,
                ),
                augmented(harness.deployment.questions.analytics),
            ],
            "router": [routed("ANALYTICS")],
            "sql_writer": [written(sql.monthly)],
            "answer": ["Aqui está."],
        }
    )
    first = await harness.ask("como está a produção?")
    assert first.of("clarify") == [{"question": sql.vague_question}]
    assert not first.of("result") and first.events[-1].event == "done"
    second = await harness.ask(f"{sql.measure} de 2026")
    assert second.result["rows"]
    prompt = [p for role, p in current.seen if role == "augmenter"][1]
    assert f"Q: {sql.vague_question}" in prompt and f"A: {sql.measure} de 2026" in prompt


async def test_closed_question_is_not_questioned_back(harness: Harness) -> None:
    question = harness.sql.closed_question
    harness.use(
        {
            "augmenter": [augmented(question)],
            "router": [routed("ANALYTICS")],
            "sql_writer": [written(harness.sql.count_sql)],
            "answer": ["ok"],
        }
    )
    turn = await harness.ask(question)
    assert not turn.of("clarify") and turn.result["rows"]


async def test_clarify_cap_then_best_reading_with_assumption(harness: Harness) -> None:
    vague = augmented(
        "como está a produção?",
        missing=["measure"],
        clarifying_question="O que você quer ver?",
        assumption="Entendi como o total por mês.",
    )
    harness.use(
        {
            "augmenter": [vague],
            "router": [routed("ANALYTICS")],
            "sql_writer": [written(harness.sql.monthly)],
            "answer": ["Total."],
        },
        repeat=("augmenter",),
    )
    asked = 0
    turn = await harness.ask("como está a produção?")
    while turn.of("clarify"):
        asked += 1
        turn = await harness.ask("não sei, qualquer coisa")
    assert asked == 2  # max_clarify_rounds
    assert (await harness.state())["assumption"] == "Entendi como o total por mês."
    assert turn.result["rows"]


async def test_fixer_repairs_a_bad_column(harness: Harness) -> None:
    sql = harness.sql
    current = harness.use(
        {
            "augmenter": [augmented(sql.value_question)],
            "router": [routed("TRACKING")],
            "sql_writer": [written(sql.bad_value)],
            "fixer": [fixed(sql.good_value)],
            "answer": ["Valor."],
        }
    )
    turn = await harness.ask(sql.value_question)
    outcomes = [a["outcome"] for a in turn.result["attempts"]]
    # The catalog check stops the unknown column before the database, naming the right one.
    assert outcomes == ["rejected", "rows"]
    assert turn.result["attempts"][0]["error"].startswith("SQL_CHECK: ")
    assert "valor_total" in turn.result["attempts"][0]["error"]
    fixer_prompt = next(p for role, p in current.seen if role == "fixer")
    assert 'column "valor_total" does not exist' in fixer_prompt
    table = sql.bad_value.split(" FROM ")[1].split()[0]
    assert f'SQL_CHECK: column "valor_total" does not exist in {table}' in fixer_prompt


async def test_guard_rejection_goes_to_the_fixer(harness: Harness) -> None:
    sql = harness.sql
    sleepy = f"SELECT pg_sleep(1), {sql.value_column} FROM {sql.good_value.split(' FROM ')[1]}"
    harness.use(
        {
            "augmenter": [augmented(sql.value_question)],
            "router": [routed("TRACKING")],
            "sql_writer": [written(sleepy)],
            "fixer": [fixed(sql.good_value)],
            "answer": ["Valor."],
        }
    )
    turn = await harness.ask(sql.value_question)
    first = turn.result["attempts"][0]
    assert first["outcome"] == "rejected" and first["error"].startswith("GUARD_FUNCTION")
    assert turn.result["rows"]


async def test_zero_rows_retry_with_the_tried_sql(harness: Harness) -> None:
    sql = harness.sql
    current = harness.use(
        {
            "augmenter": [augmented(sql.value_question)],
            "router": [routed("TRACKING")],
            "sql_writer": [written(sql.no_rows), written(sql.good_value)],
            "answer": ["Valor."],
        }
    )
    turn = await harness.ask(sql.value_question)
    assert [a["outcome"] for a in turn.result["attempts"]] == ["zero_rows", "rows"]
    retry_prompt = [p for role, p in current.seen if role == "sql_writer"][1]
    assert sql.no_rows in retry_prompt and "another way" in retry_prompt
    assert "zero_row_retry" in turn.nodes()


async def test_sql_attempt_cap_says_no_data_and_lists_the_queries(harness: Harness) -> None:
    current = harness.use(
        {
            "augmenter": [augmented(harness.deployment.questions.no_data)],
            "router": [routed("TRACKING")],
            "sql_writer": [written(harness.sql.no_rows)],
        },
        repeat=("sql_writer",),
    )
    turn = await harness.ask(harness.deployment.questions.no_data)
    assert [r for r, _ in current.seen].count("sql_writer") == 4  # max_sql_attempts
    assert turn.result["stop_reason"] == "MAX_SQL_ATTEMPTS"
    assert turn.result["answer"].startswith("Não encontrei dados")
    assert turn.result["answer"].count(harness.sql.no_rows) == 4
    assert (await harness.state())["caps_hit"] == ["MAX_SQL_ATTEMPTS"]


async def test_fix_cap_ends_with_the_last_error(harness: Harness) -> None:
    current = harness.use(
        {
            "augmenter": [augmented("valor")],
            "router": [routed("TRACKING")],
            "sql_writer": [written(harness.sql.bad_value)],
            "fixer": [fixed(harness.sql.bad_value)],
        },
        repeat=("fixer",),
    )
    turn = await harness.ask("valor")
    assert [r for r, _ in current.seen].count("fixer") == 2  # max_fix_attempts
    assert turn.result["stop_reason"] == "MAX_FIX_ATTEMPTS"
    assert "valor_total" in turn.result["answer"] and len(turn.result["attempts"]) == 3


async def test_refine_cap_delivers_the_best_answer(harness: Harness) -> None:
    concept = harness.sql.concept
    current = harness.use(
        {
            "augmenter": [augmented(f"o que é {concept}?", is_data_question=False)],
            "router": [routed("KNOWLEDGE")],
            # Each rewrite differs (an identical one would end the refinement at once).
            "librarian": [
                {"answer": f"{concept} é um termo{'.' * (n + 1)}", "terms": [concept]}
                for n in range(4)
            ],
            "judge": [{"addresses_question": False, "feedback": "explique melhor"}],
        },
        repeat=("judge",),
    )
    turn = await harness.ask(f"o que é {concept}?")
    roles = [r for r, _ in current.seen]
    assert roles.count("librarian") == 4 and roles.count("judge") == 4  # 1 + 3 refinements
    # The best answer goes out, saying honestly that the judges did not approve it.
    assert turn.result["answer"].startswith(f"{concept} é um termo....\n\nAtenção:")
    assert "(relevance)" in turn.result["answer"]
    assert (await harness.state())["caps_hit"] == ["MAX_REFINE_ROUNDS"]


async def test_model_call_budget_stops_a_runaway_turn(harness: Harness) -> None:
    current = harness.use(
        {
            "augmenter": [augmented(harness.deployment.questions.no_data)],
            "router": [routed("TRACKING")],
            "sql_writer": [written(harness.sql.no_rows)],
        },
        repeat=("sql_writer",),
    )
    turn = await harness.ask(harness.deployment.questions.no_data, max_model_calls_per_turn=4)
    assert len(current.seen) == 4
    assert turn.result["stop_reason"] == "MODEL_BUDGET"
    assert "limite de chamadas" in turn.result["answer"]


async def test_recursion_limit_is_a_backstop(harness: Harness) -> None:
    harness.use(
        {
            "augmenter": [augmented(harness.deployment.questions.no_data)],
            "router": [routed("TRACKING")],
            "sql_writer": [written(harness.sql.no_rows)],
        },
        repeat=("sql_writer",),
    )
    turn = await harness.ask(harness.deployment.questions.no_data, recursion_limit=6)
    assert turn.of("error") == [
        {"code": "RECURSION_LIMIT", "message": "This question took too many steps and was stopped."}
    ]
    assert turn.events[-1].event == "done"


async def test_invalid_structured_output_gets_one_repair(harness: Harness) -> None:
    measure = harness.sql.measure
    harness.use(
        {
            "augmenter": [augmented(measure)],
            "router": [{"route": "SOMEWHERE"}, routed("ANALYTICS")],
            "sql_writer": [written(harness.sql.monthly)],
            "answer": ["ok"],
        }
    )
    turn = await harness.ask(measure)
    assert turn.result["rows"] and (await harness.state())["model_calls"] == 5
    harness.use(
        {"augmenter": [augmented(measure)], "router": [{"route": "SOMEWHERE"}]},
        repeat=("router",),
    )
    broken = await harness.ask(measure, thread="t2")
    assert broken.result["stop_reason"] == "MODEL_OUTPUT_INVALID"


async def test_a_model_writing_another_tenants_filter_still_reads_its_own(
    harness: Harness,
) -> None:
    # The message is innocent (no rail stops it); the model's SQL is not. The guard holds,
    # on clinics through a table scoped through its parent (laudo_achados via laudos).
    tenant, question = harness.deployment.tenant, "quantos por unidade de negócio?"
    harness.use(cross_tenant_turn(question, harness.sql.cross_tenant))
    turn = await harness.ask(question, tenant=tenant)
    assert turn.result["rows"] and {row[0] for row in turn.result["rows"]} == {int(tenant)}
