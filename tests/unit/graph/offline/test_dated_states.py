"""The newest or oldest rows by the date of an event: a state word that is that event
("the last invoice we issued": its issue date) orders by the date and filters no state; a
state the date does not record stays a filter ("the latest blocked invoice")."""

from __future__ import annotations

import pytest

from tests.unit.graph.offline.offline_sql import sql_for


@pytest.mark.parametrize(
    ("deployment", "question", "order", "absent"),
    [
        ("logistics", "what was the last invoice issued?", "data_emissao DESC", "status ="),
        ("logistics", "qual foi a última nota emitida?", "data_emissao DESC", "status ="),
        ("clinics", "what was the last exam performed?", "data_realizacao DESC", "status ="),
        ("clinics", "qual o último exame realizado?", "data_realizacao DESC", "status ="),
    ],
)
def test_a_state_that_is_the_dated_event_is_not_filtered(
    deployment: str, question: str, order: str, absent: str
) -> None:
    sql = sql_for(deployment, question)
    assert order in sql and absent not in sql, sql


@pytest.mark.parametrize(
    ("deployment", "question", "state"),
    [
        ("logistics", "what's the latest blocked invoice?", "'BLOQUEADA'"),
        ("logistics", "qual a última nota cancelada?", "'CANCELADA'"),
        ("clinics", "qual o último exame cancelado?", "'CANCELADO'"),
    ],
)
def test_another_state_stays_a_filter(deployment: str, question: str, state: str) -> None:
    assert state in sql_for(deployment, question)


@pytest.mark.parametrize(
    ("deployment", "question", "fragments"),
    [
        # the verb and the date column's synonym are forms of one verb ("chegaram",
        # "data de chegada"), however short its root
        (
            "logistics",
            "quantas cargas chegaram depois da data prometida no ano passado?",
            ["data_entrega AS date) > c.previsao_entrega", "c.data_saida >= DATE '2025-01-01'"],
        ),
        (
            "logistics",
            "how many loads arrived after the promised date last year?",
            ["data_entrega AS date) > c.previsao_entrega", "c.data_saida >= DATE '2025-01-01'"],
        ),
        (
            "clinics",
            "quantos laudos foram assinados depois do prazo?",
            ["assinado_em > l.prazo_em"],
        ),
    ],
)
def test_a_date_named_by_a_form_of_its_verb(
    deployment: str, question: str, fragments: list[str]
) -> None:
    sql = sql_for(deployment, question)
    assert all(f in sql for f in fragments), sql


@pytest.mark.parametrize(
    "question",
    [
        "who's the most recently hired person on our staff?",
        "qual profissional foi admitido mais recentemente?",
    ],
)
def test_most_recently_orders_by_the_verbs_date(question: str) -> None:
    assert "ORDER BY p.admitido_em DESC LIMIT 1" in sql_for("clinics", question)
