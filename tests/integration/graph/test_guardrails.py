"""Guardrails and judges in the running graph: blocked input, masked and withheld answers,
judge-driven rewrites of a streamed answer, and the refine cap — with the real database of
each deployment, in its own words (the tenant named as the profile names it)."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from orquestra.core.texts import say
from orquestra.guards.rails import Guardrails, Toolkit
from tests.integration.graph.conftest import Harness
from tests.integration.graph.scripts import (
    APPROVED,
    augmented,
    cross_tenant_turn,
    data_turn,
    routed,
)

PLUGINS = "tests.plugins.acme_guardrails"


@pytest.fixture
async def rails_file(tmp_path: Path, harness: Harness) -> Iterator:
    """Swap the deployment's guardrails for a test's own file, and put them back."""
    resources = harness.resources
    original = resources.guardrails

    def use(text: str) -> Guardrails:
        path = tmp_path / "guardrails.yaml"
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        resources.guardrails = Guardrails.load(
            Toolkit(resources.catalog, profile=resources.profile), path
        )
        return resources.guardrails

    yield use
    resources.guardrails = original


def end_event(turn, node: str) -> dict:
    return next(n for n in turn.of("node") if n["node"] == node and n["status"] == "end")


async def test_prompt_injection_is_stopped_before_any_model(harness: Harness) -> None:
    current = harness.use({})  # any model call would exhaust the empty script
    turn = await harness.ask(harness.sql.injection)
    assert current.seen == []
    assert turn.nodes() == ["short_circuit", "input_rails", "streamer"]
    event = end_event(turn, "input_rails")
    assert event["blocked_by"] == "PINJ" and event["code"] == "GRL.002"
    assert event["summary"] == "blocked by PINJ (GRL.002)"
    assert turn.result["blocked_by"]["rail"] == "PINJ" and "rows" not in turn.result
    tenant = f"{harness.deployment.profile.tenant_label('pt')} {harness.deployment.tenant}"
    assert f"seus próprios dados ({tenant})" in turn.text  # "(unidade 201)" on clinics
    assert turn.result["answer"] == turn.text


async def test_out_of_scope_gets_a_polite_pointer_to_what_is_served(harness: Harness) -> None:
    harness.use({})
    turn = await harness.ask("what's the capital of France?")
    assert turn.result["blocked_by"]["code"] == "GRL.003"
    assert turn.text.startswith("That question is outside what I can answer")
    # What is served, in the deployment profile's words, with one of its example questions.
    profile = harness.deployment.profile
    *topics, last = profile.topic_phrases("en")
    assert f"{', '.join(topics)} and {last}" in turn.text
    assert f'"{profile.example_questions("en")[0]}"' in turn.text


async def test_a_clarification_answer_is_checked_too(harness: Harness) -> None:
    sql = harness.sql
    vague = augmented(
        "como está a produção?", missing=["measure"], clarifying_question=sql.vague_question
    )
    current = harness.use({"augmenter": [vague]})
    first = await harness.ask("como está a produção?")
    assert first.of("clarify")
    second = await harness.ask(sql.no_filter)
    assert second.result["blocked_by"]["rail"] == "PINJ"
    assert second.nodes() == ["clarify", "input_rails", "streamer"]
    assert [role for role, _ in current.seen] == ["augmenter"]  # nothing after the block


async def test_personal_data_is_masked_in_the_stream_when_the_tenant_asks(
    harness: Harness,
) -> None:
    answer = "O contato é ana.souza@acme.com.br, CPF 529.982.247-25. Telefone (11) 98765-4321."
    question, contact = f"contato do {harness.sql.entity}", harness.sql.contact
    harness.use(data_turn(question, contact, "TRACKING", answer), repeat=("judge",))
    masked = await harness.ask(question, mask_personal_data=True)
    expected = "O contato é a***@acme.com.br, CPF ***.***.***-25. Telefone (**) *****-4321."
    assert masked.text == expected and masked.result["answer"] == expected
    assert not any("souza" in t["text"] or "98765" in t["text"] for t in masked.of("token"))
    harness.use(data_turn(question, contact, "TRACKING", answer))
    plain = await harness.ask(question, thread="t2")
    assert plain.text == answer  # masking is the tenant's choice
    assert len(plain.of("token")) > 3  # with no output rail acting, tokens flow as written


async def test_an_ungrounded_number_sends_the_streamed_answer_back(harness: Harness) -> None:
    question, measure = harness.deployment.questions.analytics, harness.sql.measure
    current = harness.use(
        {
            **data_turn(question, harness.sql.monthly),
            "answer": [
                f"A {measure} de 2026 somou R$ 9.999.999,99.",
                f"A {measure} de 2026 está na tabela abaixo, mês a mês.",
            ],
        },
        repeat=("judge",),
    )
    turn = await harness.ask(question)
    resets = [i for i, t in enumerate(turn.of("token")) if t.get("reset")]
    assert len(resets) == 1
    after = "".join(t["text"] for t in turn.of("token")[resets[0] + 1 :])
    assert after == f"A {measure} de 2026 está na tabela abaixo, mês a mês."
    assert turn.result["answer"] == after
    assert [n for n in turn.nodes() if n in ("streamer", "answer_judge")] == [
        "streamer",
        "answer_judge",
        "streamer",
        "answer_judge",
    ]
    second_prompt = [p for role, p in current.seen if role == "answer"][1]
    assert (
        "## Reviewer feedback\nThese numbers are not in the result: 9.999.999,99" in second_prompt
    )
    assert f"## Previous answer\nA {measure} de 2026 somou" in second_prompt
    state = await harness.state()
    assert state["refine_rounds"] == 1 and not state["caps_hit"]
    # Relevance judges concept answers only, in the packaged file; groundedness judges both;
    # shape (the result's form against the question's) judges data answers.
    assert [v["name"] for v in turn.result["judgements"]] == ["groundedness", "shape"]
    answers = [m.content for m in state["messages"] if m.type == "ai"]
    assert answers == [after]  # the draft was replaced in the conversation, not kept


async def test_a_result_of_another_shape_is_refused_not_reworded(harness: Harness) -> None:
    """Six monthly figures for a question that asks one: no rewording makes that the answer,
    so the streamed draft is dropped and the turn stops honestly, without the rows."""
    question = f"quanto foi o {harness.sql.measure} em 2026?"
    harness.use(data_turn(question, harness.sql.monthly, answer="Foram seis meses."))
    turn = await harness.ask(question)
    assert sum(1 for t in turn.of("token") if t.get("reset")) == 1
    assert turn.result["answer"].startswith("Não vou apresentar o que encontrei como resposta")
    assert "a pergunta pede um só número" in turn.result["answer"]
    assert turn.result["stop_reason"] == "ANSWER_REFUSED" and "rows" not in turn.result
    assert not turn.result.get("cards") and not turn.result.get("chart")
    assert [v["outcome"] for v in turn.result["judgements"] if v["name"] == "shape"] == ["refuse"]
    state = await harness.state()
    answers = [m.content for m in state["messages"] if m.type == "ai"]
    assert answers == [turn.result["answer"]]  # the refused draft is not kept


async def test_the_refine_cap_lets_the_best_answer_out_with_a_note(harness: Harness) -> None:
    rewrites = ["Foram R$ 123,45.", "Foram R$ 123,46.", "Foram R$ 123,47."]
    harness.use(
        {**data_turn(harness.sql.measure, harness.sql.monthly), "answer": rewrites},
        repeat=("judge",),
    )
    turn = await harness.ask(harness.sql.measure, max_refine_rounds=2)
    assert sum(1 for t in turn.of("token") if t.get("reset")) == 2
    assert turn.result["answer"].startswith("Foram R$ 123,47.\n\nAtenção: não consegui confirmar")
    assert "(groundedness)" in turn.result["answer"]
    state = await harness.state()
    assert state["caps_hit"] == ["MAX_REFINE_ROUNDS"] and state["refine_rounds"] == 2


async def test_a_rewrite_identical_to_the_answer_sent_back_ends_the_refinement(
    harness: Harness,
) -> None:
    """A writer that returns the same answer cannot do better: asking the judges and the
    writer again until the cap cost the offline model ten calls for one concept answer."""
    current = harness.use(
        {**data_turn(harness.sql.measure, harness.sql.monthly), "answer": ["Foram R$ 123,45."]},
        repeat=("answer", "judge"),
    )
    turn = await harness.ask(harness.sql.measure, max_refine_rounds=3)
    assert sum(1 for t in turn.of("token") if t.get("reset")) == 1  # one rewrite, not three
    assert turn.result["answer"].startswith("Foram R$ 123,45.\n\nAtenção: não consegui confirmar")
    assert "(groundedness)" in turn.result["answer"]
    state = await harness.state()
    assert state["refine_rounds"] == 1 and not state["caps_hit"]
    assert [role for role, _ in current.seen].count("answer") == 2


async def test_a_judge_that_cannot_decide_fails_closed_without_rewrites(
    harness: Harness, rails_file
) -> None:
    rails_file("judges: [{name: groundedness}, {name: relevance, phases: [knowledge, answer]}]")
    measure = harness.sql.measure
    harness.use(
        {**data_turn(measure, harness.sql.monthly, answer="Veja a tabela."), "judge": ["no"]},
        repeat=("judge",),
    )
    turn = await harness.ask(measure)
    assert not any(t.get("reset") for t in turn.of("token"))
    assert "a verificação desta resposta não pôde ser concluída (relevance)" in turn.text
    outcomes = {v["name"]: v["outcome"] for v in turn.result["judgements"]}
    assert outcomes == {"groundedness": "pass", "relevance": "error"}
    assert (await harness.state())["caps_hit"] == []


async def test_an_external_output_rail_can_withhold_an_answer(harness: Harness, rails_file) -> None:
    rails_file(
        f"""
        output:
          - {{code: NO_STATUS, type: external, class: "{PLUGINS}:ForbiddenWord",
              options: {{word: entregue}}}}
        judges:
          - {{name: groundedness}}
        """
    )
    question = harness.deployment.questions.tracking
    harness.use(data_turn(question, harness.sql.status, "TRACKING", "Já foi entregue."))
    turn = await harness.ask(question)
    tokens = turn.of("token")
    assert tokens[0] == {"text": "", "reset": True}  # held until checked: nothing to take back
    assert turn.text == say("withheld", "pt", code="GRL.NO_STATUS")
    assert "answer_judge" not in turn.nodes()  # a withheld answer has nothing to judge


async def test_with_no_rails_the_guard_still_holds(harness: Harness, rails_file) -> None:
    rails_file("input: []\noutput: []\njudges: []\n")
    sql, tenant = harness.sql, harness.deployment.tenant
    harness.use(cross_tenant_turn(sql.injection_en, sql.cross_tenant))
    turn = await harness.ask(sql.injection_en, tenant=tenant)
    assert end_event(turn, "input_rails")["summary"] == "passed"
    rows = turn.result["rows"]
    assert rows and {row[0] for row in rows} == {int(tenant)}  # never depends on rails


async def test_a_knowledge_answer_quoting_a_number_not_in_its_sources_is_refined(
    harness: Harness,
) -> None:
    concept = harness.sql.number_concept
    invented = f"{concept} vale 4567 dias."  # a number no source of either deployment has
    grounded = f"{concept} é o que o glossário define, sem número."
    harness.use(
        {
            "augmenter": [augmented(f"o que é {concept}?", is_data_question=False)],
            "router": [routed("KNOWLEDGE")],
            "librarian": [{"answer": invented, "terms": []}, {"answer": grounded, "terms": []}],
            "judge": [APPROVED],
        },
        repeat=("judge",),
    )
    turn = await harness.ask(f"o que é {concept}?")
    assert turn.text == grounded
    assert not any(t.get("reset") for t in turn.of("token"))  # judged before streaming
    assert [n for n in turn.nodes() if n in ("librarian", "judge")] == [
        "librarian",
        "judge",
        "librarian",
        "judge",
    ]
