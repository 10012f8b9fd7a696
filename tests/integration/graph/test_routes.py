"""Each route end to end with scripted models against each deployment's real database."""

from __future__ import annotations

from tests.integration.graph.conftest import Harness
from tests.integration.graph.scripts import augmented, data_turn, routed, written


async def test_greeting_answers_at_once_without_a_model(harness: Harness) -> None:
    profile = harness.deployment.profile
    harness.use({})
    turn = await harness.ask("Bom dia!")
    assert turn.nodes() == ["short_circuit", "streamer"]
    assert turn.result["route"] == "CHAT"
    assert turn.text.startswith(f"Olá, eu sou {profile.assistant_name}!")
    assert turn.result["answer"] == turn.text
    # The deployment profile's first example ("status do laudo 5012" on clinics).
    assert f'"{profile.example_questions("pt")[0]}"' in turn.text
    assert (await harness.state())["model_calls"] == 0
    english = await harness.ask("thanks!", thread="t2")
    assert english.result["answer"].startswith("You're welcome")


async def test_empty_message_asks_for_a_question(harness: Harness) -> None:
    harness.use({})
    turn = await harness.ask("   ")
    assert "pergunta" in turn.result["answer"]


async def test_analytics_question_end_to_end(harness: Harness) -> None:
    sql, question = harness.sql, harness.deployment.questions.analytics
    harness.use(data_turn(question, sql.monthly, answer="Resposta ok."))
    turn = await harness.ask(question)
    result = turn.result
    assert result["route"] == "ANALYTICS"
    assert result["columns"] == ["mes", sql.measure]
    assert len(result["rows"]) == 6 and result["row_count"] == 6 and not result["truncated"]
    assert "$1" in result["sql"] and "LIMIT" in result["sql"]
    assert result["sources"]["tables"] == [sql.monthly_table]
    assert sql.measure in result["sources"]["terms"]
    assert turn.text == "Resposta ok."
    assert (await harness.state())["model_calls"] == 4
    assert result["chart"]["mark"]["type"] == "line"  # presenter: a time series is a line
    assert result["cards"][0]["label"] == sql.measure and result["cards"][0]["unit"] == "BRL"
    analysis = (await harness.state())["analysis"]
    assert analysis["trend"]["periods"] == 6 and analysis["measures"][sql.measure]["sum"] > 0


async def test_event_order_follows_the_contract(harness: Harness) -> None:
    question = harness.deployment.questions.analytics
    harness.use(data_turn(question, harness.sql.monthly))
    turn = await harness.ask(question)
    kinds = [e.event for e in turn.events]
    assert kinds[0] == "run" and kinds[-1] == "done" and kinds[-2] == "result"
    assert kinds.index("sql") < kinds.index("token") < kinds.index("result")
    starts = [n["node"] for n in turn.of("node") if n["status"] == "start"]
    assert starts == turn.nodes()  # every stage starts and ends, in order
    assert all("ms" in n for n in turn.of("node") if n["status"] == "end")


async def test_tracking_question_reads_only_the_tenants_own_entity(harness: Harness) -> None:
    question, answers = harness.deployment.questions.tracking, {}
    tenants = (harness.deployment.tenant, harness.deployment.tenants[3])
    for tenant in tenants:
        harness.use(data_turn(question, harness.sql.status, route="TRACKING"))
        turn = await harness.ask(question, thread=f"t-{tenant}", tenant=tenant)
        assert turn.result["route"] == "TRACKING" and len(turn.result["rows"]) == 1
        answers[tenant] = turn.result["rows"][0]
    assert answers[tenants[0]] != answers[tenants[1]]  # same number, each tenant's own


async def test_knowledge_question_is_answered_by_the_librarian(harness: Harness) -> None:
    concept = harness.sql.concept
    question, answer = f"o que é {concept}?", f"{concept.capitalize()} é o que o glossário diz."
    current = harness.use(
        {
            "augmenter": [augmented(question, is_data_question=False)],
            "router": [routed("KNOWLEDGE")],
            "librarian": [{"answer": answer, "terms": [concept]}],
            "judge": [{"addresses_question": True, "feedback": ""}],
        }
    )
    turn = await harness.ask(question)
    assert turn.result["route"] == "KNOWLEDGE" and "sql" not in turn.result
    assert turn.text == answer
    librarian_prompt = next(p for role, p in current.seen if role == "librarian")
    assert concept in librarian_prompt and "Documents:" in librarian_prompt


async def test_chat_route_streams_the_chat_models_reply(harness: Harness) -> None:
    harness.use(
        {
            "augmenter": [augmented("quem é você?", is_data_question=False)],
            "router": [routed("CHAT")],
            "chat": ["Sou o Orquestra, seu assistente de dados."],
        }
    )
    turn = await harness.ask("quem é você?")
    assert turn.result["route"] == "CHAT"
    assert turn.text == "Sou o Orquestra, seu assistente de dados."
    assert len(turn.of("token")) > 3  # streamed, not one block


async def test_concept_and_data_in_one_message_take_both_paths(harness: Harness) -> None:
    concept = harness.sql.concept
    question, definition = f"o que é {concept} e quantos eu tenho?", f"{concept} é definido."
    current = harness.use(
        {
            "augmenter": [augmented(question)],
            "router": [routed("ANALYTICS", wants_knowledge=True)],
            "librarian": [{"answer": definition, "terms": []}],
            "judge": [{"addresses_question": True}],
            "sql_writer": [written(harness.sql.count_sql)],
            "answer": [f"{definition} Você tem os contados."],
        }
    )
    turn = await harness.ask(question)
    assert "analyzer" in turn.nodes() and "presenter" in turn.nodes()
    assert turn.nodes()[:7] == [
        "short_circuit",
        "input_rails",
        "augmenter",
        "router",
        "librarian",
        "judge",
        "select_sources",
    ]
    assert turn.result["rows"][0][0] > 0
    answer_prompt = next(p for role, p in current.seen if role == "answer")
    assert definition in answer_prompt  # joined in one answer


async def test_sql_writer_sees_only_the_selected_sources(harness: Harness) -> None:
    sql, question = harness.sql, harness.deployment.questions.analytics
    current = harness.use(data_turn(question, sql.monthly))
    await harness.ask(question)
    writer_prompt = next(p for role, p in current.seen if role == "sql_writer")
    assert f"CREATE TABLE {sql.monthly_table}" in writer_prompt
    assert f"CREATE TABLE {sql.other_table}" not in writer_prompt
    assert "Examples of questions" in writer_prompt


async def test_code_mode_runs_the_writers_analysis_code_and_falls_back_when_it_breaks(
    harness: Harness,
) -> None:
    sql, question = harness.sql, harness.deployment.questions.analytics
    code = f"result = {{'total': float(df['{sql.measure}'].sum()), 'meses': int(len(df))}}"

    def turn_with(analysis_code: str) -> dict:
        roles = data_turn(question, sql.monthly)
        roles["sql_writer"] = [{**written(sql.monthly), "analysis_code": analysis_code}]
        return roles

    harness.use(turn_with(code))
    await harness.ask(question, analysis_code_mode=True)
    analysis = (await harness.state())["analysis"]  # the built-in analysis, and the code's
    assert analysis["figures"]["meses"] == 6 and analysis["figures"]["total"] > 0
    assert analysis["trend"]["periods"] == 6

    harness.use(turn_with("import os\nresult = os.listdir('/')"))  # refused by the AST check
    await harness.ask(question, thread="t2", analysis_code_mode=True)
    fallen_back = (await harness.state("t2"))["analysis"]
    assert fallen_back["trend"]["periods"] == 6 and "figures" not in fallen_back  # built-in

    harness.use(turn_with(code))  # code mode off: the writer's code is never run
    await harness.ask(question, thread="t3")
    state = await harness.state("t3")
    assert state["analysis_code"] is None and "figures" not in state["analysis"]
