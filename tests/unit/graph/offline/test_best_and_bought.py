"""Fifth round of the offline model: a period ranked with no measure named ("our best
month") is ranked by the deployment's headline metric, "the busiest month for orders" by the
rows counted; rows named by what they did in other rows ("clientes que compraram") are those
the acts refer to — in both languages, on both sample deployments."""

from __future__ import annotations

import pytest

from tests.unit.graph.offline.offline_sql import route_of, sql_for


@pytest.mark.parametrize(
    ("deployment", "question", "wanted"),
    [
        ("logistics", "what was our best month in 2025?", "sum(nf.valor_nota)"),
        ("logistics", "qual foi o melhor mês do ano passado?", "sum(nf.valor_nota)"),
        ("clinics", "qual foi o melhor mês do ano passado?", "sum(e.valor)"),
        ("clinics", "what was our best month in 2025?", "sum(e.valor)"),
    ],
)
def test_best_month_by_the_headline_metric(deployment: str, question: str, wanted: str) -> None:
    assert route_of(deployment, question) == "ANALYTICS"
    sql = sql_for(deployment, question)
    assert "date_trunc('month'" in sql and wanted in sql and "DESC LIMIT 1" in sql, sql


def test_worst_month_ranks_from_the_other_end() -> None:
    assert "ASC LIMIT 1" in sql_for("logistics", "qual foi o pior mês de 2025?")


@pytest.mark.parametrize(
    ("deployment", "question"),
    [
        ("logistics", "What was the busiest month for orders in 2025?"),
        ("logistics", "qual o mês mais movimentado de pedidos em 2025?"),
        ("clinics", "what was the busiest month for exams in 2025?"),
    ],
)
def test_busiest_counts_the_rows_named(deployment: str, question: str) -> None:
    sql = sql_for(deployment, question)
    assert "date_trunc('month'" in sql and "count(*)" in sql and "DESC LIMIT 1" in sql, sql


@pytest.mark.parametrize(
    "question", ["quantos clientes compraram em maio?", "how many customers bought from us in May?"]
)
def test_customers_who_bought_are_counted_once_from_their_orders(question: str) -> None:
    sql = sql_for("logistics", question)
    assert "count(DISTINCT p.cod_cliente)" in sql and "p.data_pedido >= DATE '2026-05-01'" in sql


@pytest.mark.parametrize(
    "question",
    [
        "quais os cinco clientes que mais compraram da gente em 2025?",
        "top 5 customers who bought the most in 2025",
    ],
)
def test_customers_who_bought_most_are_ranked_by_the_amount(question: str) -> None:
    sql = sql_for("logistics", question)
    assert "sum(p.valor_total)" in sql and "c.nome" in sql and "DESC LIMIT 5" in sql, sql


@pytest.mark.parametrize(
    ("deployment", "question", "column"),
    [
        ("clinics", "quantos pacientes novos em junho?", "p.cadastrado_em >= DATE '2026-06-01'"),
        ("clinics", "how many new patients in May?", "p.cadastrado_em >= DATE '2026-05-01'"),
        ("logistics", "quantos clientes novos em 2025?", "c.criado_em >= DATE '2025-01-01'"),
    ],
)
def test_new_rows_are_placed_by_their_registration(
    deployment: str, question: str, column: str
) -> None:
    assert column in sql_for(deployment, question)


@pytest.mark.parametrize(
    ("deployment", "question", "wanted"),
    [
        (
            "logistics",
            "which customers have overdue receivables?",
            "SELECT DISTINCT c.cod_cliente, c.nome FROM titulos AS t JOIN clientes AS c",
        ),
        (
            "logistics",
            "quais clientes têm títulos vencidos?",
            "SELECT DISTINCT c.cod_cliente, c.nome FROM titulos AS t JOIN clientes AS c",
        ),
        (
            "clinics",
            "quais pacientes têm exames cancelados?",
            "SELECT DISTINCT p.cod_paciente, p.nome FROM exames AS e JOIN pacientes AS p",
        ),
        ("clinics", "which patients have no-shows in 2025?", "(e.status = 'FALTOU')"),
    ],
)
def test_rows_that_have_others_are_listed_once(deployment: str, question: str, wanted: str) -> None:
    sql = sql_for(deployment, question)
    assert wanted in sql and "sum(" not in sql, sql


@pytest.mark.parametrize(
    ("deployment", "question", "wanted"),
    [
        (
            "clinics",
            "Unimed ou Bradesco, quem pagou mais em 2025?",
            "GROUP BY 1 ORDER BY receita DESC",
        ),
        ("clinics", "Unimed or Bradesco - who paid more in 2025?", "e.convenio IN ('UNIMED'"),
        ("logistics", "EDI ou portal, qual canal vendeu mais em 2025?", "p.canal AS canal"),
    ],
)
def test_two_values_compared_are_the_groups(deployment: str, question: str, wanted: str) -> None:
    sql = sql_for(deployment, question)
    assert wanted in sql and "LIMIT 2" in sql, sql
