"""Periods and time grains in people's words: a part of a year "do ano passado" / "of last
year", counts spelled out ("as últimas duas semanas", "the last three weeks"), and a grain
said twice ("mês a mês", "month over month"). Both languages, both sample deployments."""

from __future__ import annotations

import pytest

from tests.unit.graph.offline.offline_sql import sql_for


@pytest.mark.parametrize(
    ("deployment", "question", "fragments"),
    [
        (
            "logistics",
            "faturamento do primeiro trimestre do ano passado",
            ["'2025-01-01'", "'2025-04-01'"],
        ),
        ("logistics", "revenue in the second half of last year", ["'2025-07-01'", "'2026-01-01'"]),
        ("clinics", "receita do segundo semestre do ano passado", ["'2025-07-01'", "'2026-01-01'"]),
        (
            "logistics",
            "quantas ocorrências nas últimas duas semanas?",
            ["'2026-06-16'", "'2026-07-01'"],
        ),
        ("clinics", "how many exams in the last three weeks?", ["'2026-06-09'", "'2026-07-01'"]),
        ("logistics", "faturamento mês a mês em 2025", ["date_trunc('month'", "GROUP BY 1"]),
        (
            "logistics",
            "order volume month over month in 2025",
            ["date_trunc('month'", "GROUP BY 1"],
        ),
        ("clinics", "laudos assinados mês a mês em 2025", ["date_trunc('month'", "GROUP BY 1"]),
    ],
)
def test_periods_and_grains_in_peoples_words(
    deployment: str, question: str, fragments: list[str]
) -> None:
    sql = sql_for(deployment, question)
    for fragment in fragments:
        assert fragment in sql, f"{fragment!r} not in {sql}"
    assert " OR " not in sql and "LIMIT" not in sql, sql


@pytest.mark.parametrize(
    ("deployment", "question", "dated"),
    [
        # a state that is exactly a metric's condition is placed in time as the metric is
        ("logistics", "quantas notas distintas foram devolvidas em 2025?", "er.last_updated >="),
        ("logistics", "how many distinct invoices were returned in May?", "er.last_updated >="),
        ("clinics", "quantos plantões cumpridos em maio?", "p.data >="),
    ],
)
def test_a_metrics_state_is_dated_as_the_metric(deployment: str, question: str, dated: str) -> None:
    assert dated in sql_for(deployment, question)
