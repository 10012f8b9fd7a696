"""A state said not reached yet ("pedidos ainda não faturados", "orders we haven't invoiced
yet"): the states before it in the catalog's enumeration, and later ones whose meaning says
they are still not in it; not when the question or its metric already names the state.
Both languages, both sample deployments."""

from __future__ import annotations

import pytest

from tests.unit.graph.offline.offline_sql import route_of, sql_for


@pytest.mark.parametrize(
    ("deployment", "question", "fragment"),
    [
        (
            "logistics",
            "how much money is sitting in orders we haven't invoiced yet?",
            "WHERE p.status = 'ABERTO'",
        ),
        ("logistics", "quantos pedidos ainda não foram faturados?", "WHERE p.status = 'ABERTO'"),
        (
            "logistics",
            "quantas cargas ainda não foram entregues?",
            "c.status IN ('PLANEJADA', 'EM_TRANSITO', 'ATRASADA')",  # late: still not delivered
        ),
        (
            "clinics",
            "how many reports are still not signed?",
            "l.status IN ('AGUARDANDO', 'EM_ELABORACAO', 'AGUARDANDO_ASSINATURA')",
        ),
    ],
)
def test_not_reached_yet(deployment: str, question: str, fragment: str) -> None:
    sql = sql_for(deployment, question)
    assert fragment in sql, sql
    assert "<>" not in sql.split("WHERE", 1)[1].replace("<> 'CANCELADO'", ""), sql


def test_the_metric_already_says_the_state() -> None:
    sql = sql_for("logistics", "qual é o título vencido mais antigo que ainda não foi pago?")
    assert "(t.status = 'VENCIDO')" in sql and "IN (" not in sql, sql


@pytest.mark.parametrize(
    ("deployment", "question", "route"),
    [
        ("logistics", "what's the value of orders we haven't invoiced yet?", "ANALYTICS"),
        ("logistics", "what's OTIF?", "KNOWLEDGE"),
        ("clinics", "what's the revenue by insurer?", "ANALYTICS"),
    ],
)
def test_whats_the_value_is_asked_as_what_is(deployment: str, question: str, route: str) -> None:
    """ "what's the …" reads as "what is the …": a value asked, not a term's meaning."""
    assert route_of(deployment, question) == route
