"""Several measures in one question: the same count under each clause's own states (a
FILTER each, the shared conditions in the WHERE), and a further amount asked without its
column's name ("what did they add up to", "quantos quilos elas somaram"). Both languages,
both sample deployments."""

from __future__ import annotations

import pytest

from tests.unit.graph.offline.offline_sql import sql_for


@pytest.mark.parametrize(
    ("deployment", "question", "fragments"),
    [
        (
            "logistics",
            "quantos pedidos estão abertos e quantos foram cancelados em 2025?",
            [
                "count(*) FILTER (WHERE p.status = 'ABERTO')",
                "count(*) FILTER (WHERE p.status = 'CANCELADO')",
                "WHERE (p.data_pedido >= DATE '2025-01-01'",
            ],
        ),
        (
            "logistics",
            "how many orders were delivered and how many were cancelled?",
            ["FILTER (WHERE p.status = 'ENTREGUE')", "FILTER (WHERE p.status = 'CANCELADO')"],
        ),
        (
            "logistics",
            "in May, how many shipments were delivered and how many were cancelled?",
            ["FILTER (WHERE c.status = 'ENTREGUE')", "FILTER (WHERE c.status = 'CANCELADA')"],
        ),
        (
            "clinics",
            "quantos exames foram realizados e quantos foram cancelados em maio?",
            ["FILTER (WHERE e.status = 'REALIZADO')", "FILTER (WHERE e.status = 'CANCELADO')"],
        ),
    ],
)
def test_one_count_per_clause(deployment: str, question: str, fragments: list[str]) -> None:
    sql = sql_for(deployment, question)
    for fragment in fragments:
        assert fragment in sql, f"{fragment!r} not in {sql}"
    assert " IN (" not in sql, sql


@pytest.mark.parametrize(
    ("deployment", "question", "fragments"),
    [
        (
            "logistics",
            "how many orders did we get in April and what did they add up to?",
            ["count(*)", "sum(p.valor_total)"],
        ),
        (
            "logistics",
            "quantas cargas saíram em maio e quantos quilos elas somaram?",
            ["count(*)", "sum(c.peso_total_kg)"],
        ),
        (
            "logistics",
            "how many blocked invoices are there and how much money is that?",
            ["count(*)", "sum(nf.valor_nota)", "nf.status = 'BLOQUEADA'"],
        ),
        (
            "clinics",
            "how many exams were performed in May and what did they add up to?",
            ["count(*)", "sum(e.valor)"],
        ),
        (
            "clinics",
            "em maio, quantos plantões extras foram cumpridos e quantas horas eles somaram?",
            ["count(*) AS quantidade", "sum(p.horas)"],
        ),
        (
            "clinics",
            "quantos exames foram realizados em abril e quanto isso rendeu?",
            ["count(*)", "sum(e.valor)"],
        ),
        (
            "logistics",
            "quantos pedidos entraram em abril e quanto isso deu?",
            ["count(*)", "sum(p.valor_total)"],
        ),
    ],
)
def test_a_further_amount_without_its_name(
    deployment: str, question: str, fragments: list[str]
) -> None:
    sql = sql_for(deployment, question)
    for fragment in fragments:
        assert fragment in sql, f"{fragment!r} not in {sql}"


@pytest.mark.parametrize(
    ("deployment", "question", "fragments"),
    [
        # a word that with the rows' name is a metric's phrase ("late shipment"): its dates
        (
            "logistics",
            "how many shipments that left in May ended up late?",
            ["c.previsao_entrega", "'2026-05-01'"],
        ),
        (
            "clinics",
            "how many reports were late in May?",
            ["l.prazo_em <", "l.assinado_em IS NULL"],
        ),
        # "per product category": the table named first, then its column
        (
            "logistics",
            "how many units were ordered per product category in 2025?",
            ["categoria AS categoria", "sum(ip.quantidade)"],
        ),
    ],
)
def test_a_metric_said_apart_and_a_column_after_its_table(
    deployment: str, question: str, fragments: list[str]
) -> None:
    sql = sql_for(deployment, question)
    for fragment in fragments:
        assert fragment in sql, f"{fragment!r} not in {sql}"
    assert "'ATRASADA'" not in sql
