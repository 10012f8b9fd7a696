"""The offline router and conversation beyond one question's SQL: a concept and data asked
together take both paths, follow-ups are resolved against the previous question (an entity,
a period, a part of the year, a recency word), vague questions are clarified only when the
stage allows it, and a clarification's answer completes the question."""

from __future__ import annotations

import pytest

from orquestra.ddl_catalog import load_catalog
from orquestra.graph.hints import ModelHints
from orquestra.offline.conversation import augment, resolve, route
from orquestra.offline.lexicon import lexicon_for
from tests.unit.offline.offline_sql import CATALOGS, TODAY, sql_for

CATALOG = load_catalog()
LEXICON = lexicon_for(CATALOG)


def test_concept_and_data_take_both_paths() -> None:
    decision = route("o que é nota bloqueada e quantas eu tenho?", CATALOG, LEXICON, TODAY)
    assert decision == {"route": "ANALYTICS", "wants_knowledge": True, "reason": "data"}


def test_follow_ups_are_resolved() -> None:
    entity = resolve("e o valor dela?", "status da nota 40908", CATALOG, LEXICON, TODAY)
    assert "valor" in entity and "nota 40908" in entity
    period = resolve("e no mês passado?", "faturamento em 2025", CATALOG, LEXICON, TODAY)
    assert "passado" in period and "faturamento" in period and "2025" not in period
    assert (
        resolve("faturamento em 2025", "status da nota 1", CATALOG, LEXICON, TODAY)
        == "faturamento em 2025"
    )


def test_vague_questions_are_clarified_and_closed_ones_are_not() -> None:
    vague_one = ModelHints(message="como está a produção?", can_ask=True)
    vague = augment(vague_one, CATALOG, LEXICON, TODAY)
    assert vague["missing"] == ["measure"] and vague["clarifying_question"]
    closed_one = ModelHints(message="quantas notas bloqueadas em maio?", can_ask=True)
    closed = augment(closed_one, CATALOG, LEXICON, TODAY)
    assert closed["missing"] == [] and closed["clarifying_question"] is None
    cannot_ask = augment(ModelHints(message="como está a produção?"), CATALOG, LEXICON, TODAY)
    assert cannot_ask["clarifying_question"] is None and cannot_ask["assumption"]


def test_clarification_answer_completes_the_question() -> None:
    hints = ModelHints(
        message="como está a produção?",
        clarification_answers=("faturamento de 2026",),
        can_ask=True,
    )
    out = augment(hints, CATALOG, LEXICON, TODAY)
    assert out["question"].startswith("faturamento de 2026") and not out["missing"]


@pytest.mark.parametrize(
    ("reply", "question", "lang"),
    [
        # a question of its own, in another language: read alone, answered in its language
        ("which customers are late on payments?", "which customers are late on payments?", "en"),
        ("quais clientes têm títulos vencidos?", "quais clientes têm títulos vencidos?", "pt"),
        # what was asked, in the person's latest language: the answer completes the question
        ("faturamento de 2026", "faturamento de 2026", "pt"),
        ("revenue in 2026", "revenue in 2026", "en"),
    ],
)
def test_a_reply_to_a_clarifying_question_is_a_new_question_or_its_answer(
    reply: str, question: str, lang: str
) -> None:
    hints = ModelHints(
        message="como está a produção?", clarification_answers=(reply,), can_ask=True
    )
    out = augment(hints, CATALOG, LEXICON, TODAY)
    assert out["question"].startswith(question.rstrip("?")) and out["lang"] == lang
    assert not out["clarifying_question"]


def test_a_bare_number_answers_which_one() -> None:
    hints = ModelHints(message="status da nota?", clarification_answers=("40908",), can_ask=True)
    out = augment(hints, CATALOG, LEXICON, TODAY)
    assert "40908" in out["question"] and "nota" in out["question"]


@pytest.mark.parametrize(
    ("deployment", "previous", "message", "span"),
    [
        ("logistics", "faturamento de 2025", "e no primeiro trimestre?", "2025-01-01"),
        ("logistics", "revenue in 2025", "and in May?", "2025-05-01"),
        ("clinics", "receita de 2025", "e no 2º semestre?", "2025-07-01"),
    ],
)
def test_a_part_of_the_year_in_a_follow_up_is_the_years_before(
    deployment: str, previous: str, message: str, span: str
) -> None:
    catalog = CATALOGS[deployment]
    question = resolve(message, previous, catalog, lexicon_for(catalog), TODAY)
    assert f">= DATE '{span}'" in sql_for(deployment, question)


def test_the_later_recency_word_wins_in_a_follow_up() -> None:
    catalog = CATALOGS["logistics"]
    lexicon = lexicon_for(catalog)
    question = resolve("e o mais antigo?", "qual o pedido mais recente?", catalog, lexicon, TODAY)
    assert "ORDER BY p.data_pedido ASC LIMIT 1" in sql_for("logistics", question)
