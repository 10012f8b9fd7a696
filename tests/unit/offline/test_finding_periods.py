"""Periods found in a question's text against the run's today (2026-06-30): named periods
(quarters and halves by ordinal or written short, the one before last, month ranges, year to
date), a whole year beside parts of it, years before 2000 after a preposition; and digits
that are no period (a number of rows, an entity's number)."""

from __future__ import annotations

from datetime import date

import pytest

from orquestra.offline.periods import find_period, find_periods
from tests.unit.offline.offline_sql import TODAY, sql_for


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


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("primeiro trimestre de 2026", date(2026, 1, 1), date(2026, 4, 1)),
        ("first quarter of 2026", date(2026, 1, 1), date(2026, 4, 1)),
        ("2º semestre de 2025", date(2025, 7, 1), date(2026, 1, 1)),
        ("second half of 2025", date(2025, 7, 1), date(2026, 1, 1)),
        ("2º semestre", date(2025, 7, 1), date(2026, 1, 1)),  # not begun yet: last year's
        ("Q3 2025", date(2025, 7, 1), date(2025, 10, 1)),
        ("terceiro trimestre", date(2025, 7, 1), date(2025, 10, 1)),
        ("ano passado", date(2025, 1, 1), date(2026, 1, 1)),
        ("last year", date(2025, 1, 1), date(2026, 1, 1)),
        ("mês retrasado", date(2026, 4, 1), date(2026, 5, 1)),
        ("month before last", date(2026, 4, 1), date(2026, 5, 1)),
        ("últimas 4 semanas", date(2026, 6, 2), date(2026, 7, 1)),
        ("last 2 weeks", date(2026, 6, 16), date(2026, 7, 1)),
        ("de março a maio", date(2026, 3, 1), date(2026, 6, 1)),
        ("from March to May 2025", date(2025, 3, 1), date(2025, 6, 1)),
        ("de novembro a fevereiro", date(2025, 11, 1), date(2026, 3, 1)),
        ("year to date", date(2026, 1, 1), date(2026, 7, 1)),
        ("acumulado do ano", date(2026, 1, 1), date(2026, 7, 1)),
        ("last quarter", date(2026, 1, 1), date(2026, 4, 1)),
        ("trimestre passado", date(2026, 1, 1), date(2026, 4, 1)),
        ("semana passada", date(2026, 6, 22), date(2026, 6, 29)),
    ],
)
def test_named_periods(text: str, start: date, end: date) -> None:
    period = find_period(text, TODAY)
    assert period is not None and (period.start, period.end) == (start, end), period


def test_a_plural_is_not_an_ordinal() -> None:
    assert find_period("os 3 trimestres", TODAY) is None


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("receita no 1t26", date(2026, 1, 1), date(2026, 4, 1)),
        ("revenue in 1q 2026", date(2026, 1, 1), date(2026, 4, 1)),
        ("in q3 2025", date(2025, 7, 1), date(2025, 10, 1)),
        ("in h1 2026", date(2026, 1, 1), date(2026, 7, 1)),
        ("vendas do 2s25", date(2025, 7, 1), date(2026, 1, 1)),
        ("in h2", date(2025, 7, 1), date(2026, 1, 1)),  # the latest second half begun
    ],
)
def test_parts_of_a_year_written_short(text: str, start: date, end: date) -> None:
    periods = find_periods(text, TODAY)
    assert [(p.start, p.end) for p in periods] == [(start, end)]


@pytest.mark.parametrize("text", ["top 2 s", "as 2 transportadoras", "quais as 4 t"])
def test_digits_alone_are_no_period(text: str) -> None:
    assert find_periods(text, TODAY) == []


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("receita de maio deste ano", [(date(2026, 5, 1), date(2026, 6, 1))]),
        (
            "receita de junho x maio deste ano",
            [(date(2026, 6, 1), date(2026, 7, 1)), (date(2026, 5, 1), date(2026, 6, 1))],
        ),
        ("receita de 2025 por mes, de marco a maio", [(date(2025, 3, 1), date(2025, 6, 1))]),
        (  # two years are compared, not one the frame of the other
            "receita de 2025 vs 2026",
            [(date(2025, 1, 1), date(2026, 1, 1)), (date(2026, 1, 1), date(2027, 1, 1))],
        ),
    ],
)
def test_a_year_beside_its_parts_is_where_they_lie(
    text: str, wanted: list[tuple[date, date]]
) -> None:
    assert [(p.start, p.end) for p in find_periods(text, TODAY)] == wanted


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        (  # a year of its own, written short
            "receita de 2025 comparada com o 1t26",
            [(date(2025, 1, 1), date(2026, 1, 1)), (date(2026, 1, 1), date(2026, 4, 1))],
        ),
        (  # a period relative to today stays where today puts it
            "faturamento em 2025 e no mes passado",
            [(date(2025, 1, 1), date(2026, 1, 1)), (date(2026, 5, 1), date(2026, 6, 1))],
        ),
    ],
)
def test_parts_a_year_does_not_frame(text: str, wanted: list[tuple[date, date]]) -> None:
    assert sorted((p.start, p.end) for p in find_periods(text, TODAY)) == wanted


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
