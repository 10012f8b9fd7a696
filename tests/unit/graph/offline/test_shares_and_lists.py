"""Shares ("what percentage of our orders came through EDI"), several measures listed
before the last "and" ("how many loads, what freight and how many kilos"), and the period
phrasings of a second author ("em 05/2026", "o mesmo tri de 2025", "os exames de 2025").
Both languages, both sample deployments."""

from __future__ import annotations

import pytest

from tests.unit.graph.offline.offline_sql import sql_for


@pytest.mark.parametrize(
    ("deployment", "question", "fragments"),
    [
        (
            "logistics",
            "what percentage of our 2026 orders came in through EDI?",
            ["100.0 * count(*) FILTER (WHERE p.canal = 'EDI') / NULLIF(count(*), 0)"],
        ),
        (
            "logistics",
            "quanto % do faturamento de 2025 veio do cliente 1783?",
            [
                "100.0 * sum(nf.valor_nota) FILTER (WHERE c.cod_cliente = 1783)",
                "/ NULLIF(sum(nf.valor_nota), 0)",
                "WHERE (nf.status = 'AUTORIZADA') AND (nf.data_emissao >= DATE '2025-01-01'",
            ],
        ),
        (
            "clinics",
            "what percentage of our exams were cancelled last month?",
            ["100.0 * count(*) FILTER (WHERE e.status = 'CANCELADO') / NULLIF(count(*), 0)"],
        ),
        (
            "clinics",
            "qual o percentual de exames cancelados em 2025?",
            ["count(*) FILTER (WHERE e.status = 'CANCELADO')", "e.data_agendada >= DATE '2025"],
        ),
    ],
)
def test_a_share_of_the_rows_asked(deployment: str, question: str, fragments: list[str]) -> None:
    sql = sql_for(deployment, question)
    for fragment in fragments:
        assert fragment in sql, f"{fragment!r} not in {sql}"


def test_a_rate_metric_is_not_a_share_of_it() -> None:
    sql = sql_for("logistics", "qual o percentual de entregas no prazo em 2026?")
    assert "100.0 *" not in sql and "avg(CASE WHEN" in sql, sql


@pytest.mark.parametrize(
    ("deployment", "question", "fragments"),
    [
        (
            "logistics",
            "In Q1 2026, how many loads did we dispatch, what did we spend on freight and how "
            "many kilos did we move?",
            ["count(*) AS quantidade", "sum(c.valor_frete)", "sum(c.peso_total_kg)"],
        ),
        (
            "logistics",
            "quantas cargas saíram em maio, qual o frete total e quantos quilos elas somaram?",
            ["count(*) AS quantidade", "sum(c.valor_frete)", "sum(c.peso_total_kg)"],
        ),
        (
            "clinics",
            "em maio, quantos exames fizemos, qual a receita e qual o ticket médio?",
            ["count(*) AS quantidade", "sum(e.valor) FILTER", "avg(e.valor) FILTER"],
        ),
    ],
)
def test_measures_listed_before_the_last_and(
    deployment: str, question: str, fragments: list[str]
) -> None:
    sql = sql_for(deployment, question)
    for fragment in fragments:
        assert fragment in sql, f"{fragment!r} not in {sql}"


@pytest.mark.parametrize(
    ("deployment", "question", "fragment"),
    [
        (
            "logistics",
            "quantos pedidos entraram em 05/2026?",
            "p.data_pedido >= DATE '2026-05-01' AND p.data_pedido < DATE '2026-06-01'",
        ),
        (
            "clinics",
            "how many exams were performed in 03/2026?",
            ">= DATE '2026-03-01' AND e.data_realizacao < DATE '2026-04-01'",
        ),
        (
            "clinics",
            "absenteísmo do 1º tri de 2026 comparado com o mesmo tri de 2025",
            "e.data_agendada >= DATE '2025-01-01' AND e.data_agendada < DATE '2025-04-01'",
        ),
        (
            "logistics",
            "revenue in Q1 2026 vs the same quarter of 2025",
            "nf.data_emissao >= DATE '2025-01-01' AND nf.data_emissao < DATE '2025-04-01'",
        ),
        (
            "logistics",
            "qual a participação do canal EDI nas vendas de 2026?",
            "p.data_pedido >= DATE '2026-01-01'",  # a year after "de", not order 2026
        ),
        (
            "clinics",
            "quantos exames de 2025 foram cancelados?",
            "e.data_agendada >= DATE '2025-01-01'",
        ),
    ],
)
def test_period_phrasings(deployment: str, question: str, fragment: str) -> None:
    sql = sql_for(deployment, question)
    assert fragment in sql, sql
    assert "= 2026" not in sql and "= 2025" not in sql, sql


@pytest.mark.parametrize(
    ("deployment", "question", "fragment"),
    [
        (
            "logistics",
            "quais os cinco clientes que mais compraram em 2025?",
            "ORDER BY valor_vendido DESC LIMIT 5",
        ),
        (
            "logistics",
            "the 3 carriers with the most shipments in 2025",
            "ORDER BY quantidade DESC LIMIT 3",
        ),
        (
            "clinics",
            "quais os três médicos que mais assinaram laudos em 2025?",
            "ORDER BY laudos_assinados DESC LIMIT 3",
        ),
    ],
)
def test_a_rankings_size_in_words(deployment: str, question: str, fragment: str) -> None:
    assert fragment in sql_for(deployment, question)


@pytest.mark.parametrize(
    ("deployment", "question", "fragment"),
    [
        (
            "logistics",
            "how much did we spend on shipping in Q2?",
            "FROM cargas AS c WHERE (c.status <> 'CANCELADA') AND (c.data_saida >=",
        ),
        (
            "logistics",
            "how many kilos have we shipped so far this year?",
            "FROM cargas AS c WHERE (c.data_saida >=",
        ),
    ],
)
def test_the_verb_of_the_measured_rows_is_no_state_of_others(
    deployment: str, question: str, fragment: str
) -> None:
    """ "shipping", "shipped": the measured rows' own event (their "shipped at"), not another
    table's state spelled alike (the clinics catalog has no such pair)."""
    sql = sql_for(deployment, question)
    assert fragment in sql and " JOIN " not in sql, sql


@pytest.mark.parametrize(
    ("deployment", "question", "fragment"),
    [
        (
            "logistics",
            "what was the last shipment we delivered, and when?",
            "WHERE c.data_entrega IS NOT NULL ORDER BY c.data_entrega DESC LIMIT 1",
        ),
        (
            "clinics",
            "what was the last exam we performed, and when?",
            "WHERE e.data_realizacao IS NOT NULL ORDER BY e.data_realizacao DESC LIMIT 1",
        ),
    ],
)
def test_the_newest_by_the_verbs_date(deployment: str, question: str, fragment: str) -> None:
    """ "the last one we delivered": ordered by its delivery date, not a metric whose name
    holds the verb ("late delivery")."""
    sql = sql_for(deployment, question)
    assert fragment in sql and "previsao_entrega <" not in sql, sql


@pytest.mark.parametrize(
    ("deployment", "question", "fragments"),
    [
        (
            "clinics",
            "How many no-shows and how many cancellations did we have in March 2026?",
            [
                "count(*) FILTER (WHERE e.status = 'FALTOU')",
                "count(*) FILTER (WHERE e.status = 'CANCELADO')",
            ],
        ),
        (
            "clinics",
            "quantos cancelamentos de exame tivemos em maio?",
            ["WHERE e.status = 'CANCELADO' AND (e.data_agendada >= DATE '2026-05-01'"],
        ),
        ("logistics", "how many order cancellations in 2025?", ["WHERE p.status = 'CANCELADO'"]),
        ("logistics", "quantos cancelamentos de pedido em 2025?", ["WHERE p.status = 'CANCELADO'"]),
    ],
)
def test_the_noun_of_an_act_is_its_state(
    deployment: str, question: str, fragments: list[str]
) -> None:
    """ "cancellations", "cancelamentos": the state its verb's participle names ("cancelled",
    "cancelado"), also when every state is a clause's own."""
    sql = sql_for(deployment, question)
    for fragment in fragments:
        assert fragment in sql, f"{fragment!r} not in {sql}"
