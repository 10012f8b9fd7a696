"""Named periods the offline model resolves against the run's "today" (the ModelHints date):
quarters and semesters by ordinal, the one before last, month ranges, year to date — in both
languages, and through the SQL on both sample deployments."""

from __future__ import annotations

from datetime import date

import pytest

from orquestra.core.deployment import load_deployment
from orquestra.ddl_catalog import load_catalog
from orquestra.offline.lexicon import lexicon_for
from orquestra.offline.parser import parse
from orquestra.offline.periods import find_period
from orquestra.offline.sql import build_sql

TODAY = date(2026, 6, 30)


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
    ("deployment", "question", "column", "span"),
    [
        ("logistics", "faturamento do 1º trimestre de 2026", "nf.data_emissao", "2026-01/04"),
        ("logistics", "sales value from March to May", "p.data_pedido", "2026-03/06"),
        ("clinics", "receita do 2º semestre de 2025", "e.data_realizacao", "2025-07/2026-01"),
        ("clinics", "revenue year to date", "e.data_realizacao", "2026-01/07"),
    ],
)
def test_named_periods_filter_the_metric_date(
    deployment: str, question: str, column: str, span: str
) -> None:
    first, last = span.split("/")
    start, end = f"{first}-01", f"{last if '-' in last else first[:4] + '-' + last}-01"
    catalog = load_catalog(load_deployment(deployment).catalog_dir)
    intent = parse(question, catalog, lexicon_for(catalog), TODAY)
    sql = build_sql(intent, catalog, TODAY.isoformat())
    assert f"{column} >= DATE '{start}' AND {column} < DATE '{end}'" in sql, sql
