"""Each route end to end with scripted models against the real demo database."""

from __future__ import annotations

from tests.integration.graph.conftest import Harness
from tests.integration.graph.scripts import (
    NOTA_STATUS,
    REVENUE_2026,
    augmented,
    data_turn,
    routed,
    written,
)


async def test_greeting_answers_at_once_without_a_model(harness: Harness) -> None:
    harness.use({})
    turn = await harness.ask("Bom dia!")
    assert turn.nodes() == ["short_circuit", "streamer"]
    assert turn.result["route"] == "CHAT"
    assert turn.text.startswith("Olá, eu sou Orquestra!") and turn.result["answer"] == turn.text
    assert '"status da nota 40908"' in turn.text  # the deployment profile's first example
    assert (await harness.state())["model_calls"] == 0
    english = await harness.ask("thanks!", thread="t2")
    assert english.result["answer"].startswith("You're welcome")


async def test_empty_message_asks_for_a_question(harness: Harness) -> None:
    harness.use({})
    turn = await harness.ask("   ")
    assert "pergunta" in turn.result["answer"]


async def test_analytics_question_end_to_end(harness: Harness) -> None:
    harness.use(data_turn("faturamento por mês em 2026", REVENUE_2026, answer="Faturamento ok."))
    turn = await harness.ask("faturamento por mês em 2026")
    result = turn.result
    assert result["route"] == "ANALYTICS"
    assert result["columns"] == ["mes", "faturamento"]
    assert len(result["rows"]) == 6 and result["row_count"] == 6 and not result["truncated"]
    assert "$1" in result["sql"] and "LIMIT" in result["sql"]
    assert result["sources"]["tables"] == ["notas_fiscais"]
    assert "faturamento" in result["sources"]["terms"]
    assert turn.text == "Faturamento ok."
    assert (await harness.state())["model_calls"] == 4
    assert result["chart"]["mark"]["type"] == "line"  # presenter: a time series is a line
    assert result["cards"][0]["label"] == "faturamento" and result["cards"][0]["unit"] == "BRL"
    analysis = (await harness.state())["analysis"]
    assert analysis["trend"]["periods"] == 6 and analysis["measures"]["faturamento"]["sum"] > 0


async def test_event_order_follows_the_contract(harness: Harness) -> None:
    harness.use(data_turn("faturamento por mês em 2026", REVENUE_2026))
    turn = await harness.ask("faturamento por mês em 2026")
    kinds = [e["event"] for e in turn.events]
    assert kinds[0] == "run" and kinds[-1] == "done" and kinds[-2] == "result"
    assert kinds.index("sql") < kinds.index("token") < kinds.index("result")
    starts = [n["node"] for n in turn.of("node") if n["status"] == "start"]
    assert starts == turn.nodes()  # every stage starts and ends, in order
    assert all("ms" in n for n in turn.of("node") if n["status"] == "end")


async def test_tracking_question_reads_only_the_tenants_own_nota(harness: Harness) -> None:
    answers = {}
    for tenant in ("101", "104"):
        harness.use(data_turn("status da nota 40908", NOTA_STATUS, route="TRACKING"))
        turn = await harness.ask("status da nota 40908", thread=f"t-{tenant}", tenant=tenant)
        assert turn.result["route"] == "TRACKING" and len(turn.result["rows"]) == 1
        answers[tenant] = turn.result["rows"][0]
    assert answers["101"] != answers["104"]  # same number, each tenant's own nota


async def test_knowledge_question_is_answered_by_the_librarian(harness: Harness) -> None:
    current = harness.use(
        {
            "augmenter": [augmented("o que é nota bloqueada?", is_data_question=False)],
            "router": [routed("KNOWLEDGE")],
            "librarian": [
                {
                    "answer": "Nota bloqueada é uma nota retida por pendência.",
                    "terms": ["nota bloqueada"],
                }
            ],
            "judge": [{"addresses_question": True, "feedback": ""}],
        }
    )
    turn = await harness.ask("o que é nota bloqueada?")
    assert turn.result["route"] == "KNOWLEDGE" and "sql" not in turn.result
    assert turn.text == "Nota bloqueada é uma nota retida por pendência."
    librarian_prompt = next(p for role, p in current.seen if role == "librarian")
    assert "nota bloqueada" in librarian_prompt and "Documents:" in librarian_prompt


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
    current = harness.use(
        {
            "augmenter": [augmented("o que é nota bloqueada e quantas eu tenho?")],
            "router": [routed("ANALYTICS", wants_knowledge=True)],
            "librarian": [{"answer": "Nota bloqueada é retida por pendência.", "terms": []}],
            "judge": [{"addresses_question": True}],
            "sql_writer": [
                written(
                    "SELECT count(*) AS bloqueadas FROM notas_fiscais WHERE status = 'BLOQUEADA'"
                )
            ],
            "answer": ["Nota bloqueada é retida por pendência. Você tem as notas contadas."],
        }
    )
    turn = await harness.ask("o que é nota bloqueada e quantas eu tenho?")
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
    assert "Nota bloqueada é retida por pendência." in answer_prompt  # joined in one answer


async def test_sql_writer_sees_only_the_selected_sources(harness: Harness) -> None:
    current = harness.use(data_turn("faturamento por mês em 2026", REVENUE_2026))
    await harness.ask("faturamento por mês em 2026")
    writer_prompt = next(p for role, p in current.seen if role == "sql_writer")
    assert "CREATE TABLE notas_fiscais" in writer_prompt
    assert "CREATE TABLE eventos_rastreamento" not in writer_prompt
    assert "Examples of questions" in writer_prompt


async def test_code_mode_runs_the_writers_analysis_code_and_falls_back_when_it_breaks(
    harness: Harness,
) -> None:
    code = "result = {'total': float(df['faturamento'].sum()), 'meses': int(len(df))}"

    def turn_with(analysis_code: str) -> dict:
        roles = data_turn("faturamento por mês em 2026", REVENUE_2026)
        roles["sql_writer"] = [{**written(REVENUE_2026), "analysis_code": analysis_code}]
        return roles

    harness.use(turn_with(code))
    await harness.ask("faturamento por mês em 2026", analysis_code_mode=True)
    analysis = (await harness.state())["analysis"]
    assert analysis["meses"] == 6 and analysis["total"] > 0

    harness.use(turn_with("import os\nresult = os.listdir('/')"))  # refused by the AST check
    await harness.ask("faturamento por mês em 2026", thread="t2", analysis_code_mode=True)
    assert (await harness.state("t2"))["analysis"]["trend"]["periods"] == 6  # built-in instead

    harness.use(turn_with(code))  # code mode off: the writer's code is never run
    await harness.ask("faturamento por mês em 2026", thread="t3")
    state = await harness.state("t3")
    assert state["analysis_code"] is None and "meses" not in state["analysis"]
