"""Fifth round of the offline model: years before 2000 after a preposition are years, and
the abbreviations people type are spelled out from the catalog's own words — in both
languages, on both sample deployments."""

from __future__ import annotations

from datetime import date

import pytest

from orquestra.offline.lexicon import lexicon_for
from orquestra.offline.periods import find_period
from orquestra.offline.shorthand import spelled_out
from tests.unit.graph.offline.offline_sql import CATALOGS, route_of, sql_for

TODAY = date(2026, 6, 30)


@pytest.mark.parametrize(
    ("text", "year"),
    [
        ("faturamento de 1990", 1990),
        ("revenue in 1995", 1995),
        ("vendas no ano de 1999", 1999),
        ("orders during 1987", 1987),
        ("pedidos em 2025", 2025),
    ],
)
def test_a_year_after_a_preposition(text: str, year: int) -> None:
    period = find_period(text, TODAY)
    assert period is not None and (period.start, period.end) == (
        date(year, 1, 1),
        date(year + 1, 1, 1),
    )


def test_a_bare_old_number_is_no_year() -> None:
    assert find_period("pedido 1995", TODAY) is None
    assert "= 1995" in sql_for("logistics", "status do pedido 1995")


@pytest.mark.parametrize(
    ("deployment", "question"),
    [
        ("logistics", "faturamento de 1990"),
        ("logistics", "revenue in 1995"),
        ("clinics", "receita de 1998"),
        ("clinics", "how many exams in 1999?"),
    ],
)
def test_an_old_year_narrows_the_rows(deployment: str, question: str) -> None:
    year = int(question.rstrip("?")[-4:])
    sql = sql_for(deployment, question)
    assert f"DATE '{year}-01-01'" in sql and f"DATE '{year + 1}-01-01'" in sql, sql


@pytest.mark.parametrize(
    ("deployment", "question", "spelled"),
    [
        ("logistics", "qual o vlr do pedido 7?", "qual o valor do pedido 7?"),
        ("logistics", "fat. do mes retrasado", "faturamento do mes retrasado"),
        (
            "logistics",
            "cli 1498 tem titulo vencido? qto?",
            "cliente 1498 tem titulo vencido? quanto?",
        ),
        ("logistics", "pq o pedido 7 atrasou?", "por que o pedido 7 atrasou?"),
        ("clinics", "qtos exames tb foram cancelados?", "quantos exames também foram cancelados?"),
    ],
)
def test_abbreviations_are_spelled_out(deployment: str, question: str, spelled: str) -> None:
    assert spelled_out(question, lexicon_for(CATALOGS[deployment])) == spelled


@pytest.mark.parametrize(
    ("deployment", "question", "wanted"),
    [
        ("logistics", "fat. do mes retrasado", "sum(nf.valor_nota)"),
        ("clinics", "fat. do mes retrasado", "sum(e.valor)"),
        ("logistics", "qtd de pedidos no mes retrasado", "count(*)"),
        ("logistics", "qtd of orders last month", "count(*)"),
        ("clinics", "qtd de exames realizados em 05/2026", "count(*)"),
    ],
)
def test_abbreviated_questions_are_analytics(deployment: str, question: str, wanted: str) -> None:
    assert route_of(deployment, question) == "ANALYTICS"
    sql = sql_for(deployment, question)
    assert wanted in sql and ("2026-04-01" in sql or "2026-05-01" in sql), sql


def test_the_catalogs_own_quantity_word_still_applies() -> None:
    """ "qtd de itens": the rows that carry the quantity column are summed in units."""
    assert "sum(ip.quantidade)" in sql_for("logistics", "qtd de itens vendidos em 2025")
