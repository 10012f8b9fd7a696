"""The offline model's parser and SQL builder on the demo catalog (no database needed)."""

from __future__ import annotations

from datetime import date

import pytest

from orquestra.ddl_catalog import load_catalog
from orquestra.graph.hints import ModelHints
from orquestra.guards import GuardPolicy, guard_sql
from orquestra.offline.conversation import augment, resolve, route
from orquestra.offline.lexicon import lexicon_for
from orquestra.offline.parser import parse
from orquestra.offline.periods import find_period
from orquestra.offline.sql import Unmappable, build_sql

TODAY = date(2026, 6, 30)
CATALOG = load_catalog()
LEXICON = lexicon_for(CATALOG)


def sql_for(question: str) -> str:
    return build_sql(parse(question, CATALOG, LEXICON, TODAY), CATALOG, TODAY.isoformat())


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("faturamento em maio", date(2026, 5, 1), date(2026, 6, 1)),
        ("em dezembro", date(2025, 12, 1), date(2026, 1, 1)),  # a future month means last year's
        ("maio de 2025", date(2025, 5, 1), date(2025, 6, 1)),
        ("este mês", date(2026, 6, 1), date(2026, 7, 1)),
        ("no mês passado", date(2026, 5, 1), date(2026, 6, 1)),
        ("last quarter", date(2026, 1, 1), date(2026, 4, 1)),
        ("últimos 90 dias", date(2026, 4, 1), date(2026, 7, 1)),
        ("revenue in 2025", date(2025, 1, 1), date(2026, 1, 1)),
    ],
)
def test_periods(text: str, start: date, end: date) -> None:
    period = find_period(text, TODAY)
    assert period is not None and (period.start, period.end) == (start, end)


def test_entity_number_is_not_a_year() -> None:
    intent = parse("status da nota 2025", CATALOG, LEXICON, TODAY)
    assert intent.entity == ("notas_fiscais", "num_nota", 2025) and intent.period is None


@pytest.mark.parametrize(
    ("question", "fragments"),
    [
        (
            "status da nota 40908",
            [
                "DISTINCT ON (serie, num_nota)",
                "FROM eventos_rastreamento",
                "WHERE num_nota = 40908",
                "last_updated DESC",
            ],
        ),
        (
            "onde está a carga 7001?",
            ["SELECT c.cod_carga, c.status FROM cargas", "c.cod_carga = 7001"],
        ),
        (
            "faturamento por mês em 2026",
            [
                "date_trunc('month', nf.data_emissao) AS mes",
                "sum(nf.valor_nota) AS faturamento",
                "nf.status = 'AUTORIZADA'",
                "DATE '2026-01-01'",
            ],
        ),
        (
            "top 5 clientes por valor vencido",
            ["c.nome", "sum(t.valor)", "t.status = 'VENCIDO'", "JOIN clientes", "DESC LIMIT 5"],
        ),
        (
            "quantas notas bloqueadas em maio?",
            ["count(*)", "status = 'BLOQUEADA'", "DATE '2026-05-01'"],
        ),
        (
            "cargas atrasadas por transportadora",
            [
                "JOIN transportadoras",
                "WHERE (CAST(c.data_entrega AS date) > c.previsao_entrega OR",
                "CAST('2026-06-30' AS date)",
            ],
        ),
        ("ticket médio por canal em 2025", ["avg(nf.valor_nota)", "p.canal", "JOIN pedidos"]),
        ("how many blocked invoices this month?", ["count(*)", "'BLOQUEADA'", "DATE '2026-06-01'"]),
        ("which carrier has the most late shipments?", ["t.nome", "LIMIT 1"]),
        ("qual o valor da nota 40908?", ["valor_nota", "num_nota = 40908"]),
    ],
)
def test_questions_map_to_sql(question: str, fragments: list[str]) -> None:
    sql = sql_for(question)
    for fragment in fragments:
        assert fragment in sql, f"{fragment!r} not in {sql}"
    guard_sql(sql, GuardPolicy.from_catalog(CATALOG), "101")  # and it passes the guard


def test_unmappable_question_says_so() -> None:
    with pytest.raises(Unmappable):
        sql_for("qual a previsão do tempo amanhã?")


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("status da nota 40908", "TRACKING"),
        ("onde está a carga 7001?", "TRACKING"),
        ("faturamento por mês em 2026", "ANALYTICS"),
        ("top 5 clientes por valor vencido", "ANALYTICS"),
        ("o que é nota bloqueada?", "KNOWLEDGE"),
        ("what is OTIF?", "KNOWLEDGE"),
        ("quem é você?", "CHAT"),
        ("what can you do?", "CHAT"),
    ],
)
def test_routes(question: str, expected: str) -> None:
    assert route(question, CATALOG, LEXICON, TODAY)["route"] == expected


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
