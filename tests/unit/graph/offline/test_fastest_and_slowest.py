"""Fifth round of the offline model: "mais rápido"/"fastest" and "mais lento"/"slowest" rank
groups by the glossary's duration (an average time, lower is better) that shares most words
with the question — shortest first for fast, longest first for slow — on both sample
deployments."""

from __future__ import annotations

import pytest

from tests.unit.graph.offline.offline_sql import route_of, sql_for


@pytest.mark.parametrize(
    ("deployment", "question", "wanted"),
    [
        ("logistics", "qual transportadora entrega mais rápido?", "ORDER BY lead_time ASC LIMIT 1"),
        (
            "logistics",
            "qual modal entrega mais rapido, em media?",
            "ORDER BY lead_time ASC LIMIT 1",
        ),
        ("logistics", "which carrier delivers fastest?", "ORDER BY lead_time ASC LIMIT 1"),
        ("logistics", "qual transportadora é a mais lenta?", "ORDER BY lead_time DESC LIMIT 1"),
        (  # "reports signed" was a count of signed reports: it gives way to their time
            "clinics",
            "who's our slowest doctor at getting reports signed this year?",
            "ORDER BY tempo_de_laudo DESC LIMIT 1",
        ),
        (
            "clinics",
            "qual médico laudou mais rápido em 2025?",
            "ORDER BY tempo_de_laudo ASC LIMIT 1",
        ),
    ],
)
def test_speed_ranks_by_a_duration(deployment: str, question: str, wanted: str) -> None:
    assert route_of(deployment, question) == "ANALYTICS"
    sql = sql_for(deployment, question)
    assert wanted in sql and "avg(" in sql, sql


def test_the_longest_waiting_of_rows_no_duration_is_of_is_the_oldest() -> None:
    """No time taken is of the receivables (the glossary's durations are other rows'):
    "sitting unpaid the longest" asks for the oldest one, by its own date."""
    sql = sql_for("logistics", "Which past-due receivable has been sitting unpaid the longest?")
    assert "(t.status = 'VENCIDO')" in sql and "ORDER BY t.vencimento ASC LIMIT 1" in sql
    assert "dias_de_atraso" not in sql
