"""Fifth round of the offline model: "fez"/"did … perform" asks of the rows in the state
whose meaning says they were done, when exactly one state says so; elsewhere it changes
nothing — on both sample deployments."""

from __future__ import annotations

import pytest

from tests.unit.graph.offline.offline_sql import sql_for


@pytest.mark.parametrize(
    "question",
    [
        "quantos exames a gente fez em maio?",
        "how many exams did we perform in May?",
        "qual técnico fez menos exames no mês passado?",
    ],
)
def test_the_rows_done(question: str) -> None:
    sql = sql_for("clinics", question)
    assert "e.status = 'REALIZADO'" in sql and "e.data_realizacao >= DATE '2026-05-01'" in sql


def test_no_state_says_done_nothing_changes() -> None:
    assert sql_for("logistics", "quantos pedidos fizemos em maio?") == sql_for(
        "logistics", "quantos pedidos em maio?"
    )
