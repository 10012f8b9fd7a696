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
            "what's the value of orders we haven't invoiced yet?",  # its metric excludes one
            "AND p.status = 'ABERTO'",
        ),
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


@pytest.mark.parametrize(
    ("deployment", "question", "fragment"),
    [
        (
            "clinics",
            "qual o convênio e o valor do exame do laudo 11046?",
            "SELECT DISTINCT l.num_laudo, e.convenio, e.valor FROM laudos AS l JOIN exames AS e",
        ),
        (
            "logistics",
            "qual o nome e a cidade do cliente do pedido 120298?",
            "c.nome, c.cidade FROM pedidos AS p JOIN clientes AS c",
        ),
        (
            "logistics",
            "qual o valor e a data do pedido 120298?",
            "SELECT p.num_pedido, p.data_pedido, p.valor_total FROM pedidos AS p",
        ),
    ],
)
def test_a_related_rows_columns_asked_of_one_row(
    deployment: str, question: str, fragment: str
) -> None:
    """ "o valor do exame do laudo 7": a phrase naming a related table's column asks that
    column, not the row's own reference spelled like the related table."""
    assert fragment in sql_for(deployment, question)


@pytest.mark.parametrize(
    ("deployment", "question", "route"),
    [
        ("clinics", "qual o convênio e o valor do exame do laudo 11046?", "TRACKING"),
        ("logistics", "qual foi o primeiro pedido do cliente 2003?", "ANALYTICS"),
        ("logistics", "when did customer 1700 last order from us?", "ANALYTICS"),
        ("clinics", "qual foi o último exame que o paciente 105521 fez?", "ANALYTICS"),
        ("logistics", "a nota 40908 da série 1 já foi entregue?", "TRACKING"),
        ("clinics", "o laudo 8192 já foi assinado?", "TRACKING"),
    ],
)
def test_a_related_rows_columns_are_details_ranked_rows_a_report(
    deployment: str, question: str, route: str
) -> None:
    """Attributes of a row the one named refers to are its details (tracking, as the router
    defines it); a related row found by ranking dates is a ranking (analytics), as the newest
    row of a table is; a row's own state stays tracking."""
    assert route_of(deployment, question) == route


@pytest.mark.parametrize(
    ("deployment", "question", "fragment"),
    [
        ("logistics", "quantas notas tão retidas?", "WHERE nf.status = 'BLOQUEADA'"),
        ("logistics", "nf 44936 ja saiu? ta em que pé?", "SELECT DISTINCT ON (serie, num_nota)"),
        ("clinics", "o laudo 8192 tá em que pé?", "l.status FROM laudos"),
        ("clinics", "exame 727172 tá marcado pra quando?", "e.data_agendada FROM exames"),
    ],
)
def test_spoken_portuguese(deployment: str, question: str, fragment: str) -> None:
    """ "tá", "tão" link a noun to its state as "está", "estão" do; "em que pé" asks a state."""
    assert fragment in sql_for(deployment, question)
