"""Ninth round of the offline model: a reference shown with the name of the row it points
at; what is asked of one row and of the rows it refers to, in one row; "non-" negates;
the date a verb names, by its own words first; a date said never to have happened places
no row in time; two values of one column each said apart are measured apart."""

from __future__ import annotations

import pytest

from tests.unit.graph.offline.offline_sql import sql_for


@pytest.mark.parametrize(
    ("deployment", "question", "wanted", "unwanted"),
    [
        (
            "logistics",
            "What's our latest shipment? I need its code and the carrier.",
            ["c.cod_transportadora", "t.nome AS nome_transportadora", "ORDER BY c.data_saida DESC"],
            [],
        ),
        (
            "logistics",
            "qual o título vencido mais antigo?",
            ["t.cod_cliente, c.nome AS nome_cliente", "ORDER BY t.vencimento ASC LIMIT 1"],
            [],
        ),
        (
            "clinics",
            "Qual foi o último exame que a paciente 108838 fez com a gente, e quando?",
            ["te.descricao AS descricao_tipo_exame", "LEFT JOIN profissionais AS"],
            ["JOIN pacientes AS px"],  # the patient already joined is not joined again
        ),
        (
            "clinics",
            "exame 726378",
            ["p.nome AS nome_paciente", "LEFT JOIN profissionais AS px ON e.cod_tecnico"],
            [],
        ),
        # a reference whose row is named by its own key shows as it is
        ("logistics", "nota 40908", ["nf.num_pedido"], ["JOIN"]),
    ],
)
def test_a_reference_is_shown_with_the_name_of_its_row(
    deployment: str, question: str, wanted: list[str], unwanted: list[str]
) -> None:
    sql = sql_for(deployment, question)
    assert all(w in sql for w in wanted), sql
    assert not any(u in sql for u in unwanted), sql


@pytest.mark.parametrize(
    ("deployment", "question", "wanted"),
    [
        (
            "logistics",
            "Invoice 40502: which order, which customer?",
            ["nf.num_pedido", "p.cod_cliente", "c.nome AS nome_cliente", "nf.num_nota = 40502"],
        ),
        (
            "logistics",
            "nota 40502: qual pedido e qual cliente?",
            ["nf.num_pedido", "p.cod_cliente", "c.nome AS nome_cliente"],
        ),
        (
            "clinics",
            "Exam 726355: which patient, what kind of exam?",
            ["e.cod_paciente", "p.nome AS nome_paciente", "te.descricao"],
        ),
        (
            "clinics",
            "qual exame é o do laudo 11052 e de que modalidade",
            ["l.cod_exame", "te.descricao", "te.modalidade", "WHERE l.num_laudo = 11052"],
        ),
    ],
)
def test_one_row_and_the_rows_it_refers_to_in_one_row(
    deployment: str, question: str, wanted: list[str]
) -> None:
    sql = sql_for(deployment, question)
    assert all(w in sql for w in wanted), sql
    assert "DISTINCT" not in sql  # references never multiply the row


def test_rows_tied_to_one_row_are_still_listed() -> None:
    """Its items are rows that refer to it, not rows it refers to: listed, each named."""
    sql = sql_for("logistics", "quais itens do pedido 100234")
    assert "ip.quantidade" in sql and "p.descricao AS descricao_produto" in sql


@pytest.mark.parametrize(
    ("deployment", "question", "wanted"),
    [
        (
            "logistics",
            "How many non-cancelled shipments went out in Q1 2026?",
            "c.status <> 'CANCELADA'",
        ),
        ("logistics", "non cancelled orders by channel", "p.status <> 'CANCELADO'"),
        ("clinics", "non-cancelled reports in June", "l.status <> 'CANCELADO'"),
    ],
)
def test_non_negates_the_state_it_prefixes(deployment: str, question: str, wanted: str) -> None:
    sql = sql_for(deployment, question)
    assert wanted in sql, sql
    assert "= 'CANCELAD" not in sql


@pytest.mark.parametrize(
    ("deployment", "question", "wanted", "unwanted"),
    [
        (
            "logistics",
            "Load 16222: which carrier hauled it and when did it leave?",
            "c.data_saida",
            "previsao_entrega",
        ),
        (
            "logistics",
            "Load 16215: carrier, freight, delivered when?",
            "c.data_entrega",
            "previsao_entrega",
        ),
        ("logistics", "quando a carga 16215 foi entregue", "c.data_entrega", "previsao_entrega"),
        (
            "clinics",
            "exame 726378: que dia foi feito e por qual convênio?",
            "e.data_realizacao",
            "data_agendada",
        ),
    ],
)
def test_when_is_the_date_the_verb_names(
    deployment: str, question: str, wanted: str, unwanted: str
) -> None:
    sql = sql_for(deployment, question)
    assert wanted in sql and unwanted not in sql, sql


@pytest.mark.parametrize(
    ("question", "wanted", "unwanted"),
    [
        (
            "How many critical findings were never passed on to the referring doctor?",
            ["la.comunicado_em IS NULL", "la.classificacao = 'CRITICO'"],
            [],
        ),
        (
            "How many critical findings in 2026 were never passed on to the referring doctor?",
            ["la.comunicado_em IS NULL", "l.criado_em >= DATE '2026-01-01'"],
            ["la.comunicado_em >="],
        ),
        (
            "quantos achados críticos de 2026 nunca foram comunicados",
            ["la.comunicado_em IS NULL", "l.criado_em >= DATE '2026-01-01'"],
            ["la.comunicado_em >="],
        ),
    ],
)
def test_a_date_that_never_happened_places_no_row_in_time(
    question: str, wanted: list[str], unwanted: list[str]
) -> None:
    sql = sql_for("clinics", question)
    assert all(w in sql for w in wanted), sql
    assert not any(u in sql for u in unwanted), sql


@pytest.mark.parametrize(
    ("deployment", "question", "group"),
    [
        ("logistics", "peso médio por carga no rodoviário e no aéreo em 2026", "t.modal AS modal"),
        ("logistics", "average weight per load by road and by air", "t.modal AS modal"),
        ("logistics", "faturamento EDI vs portal", "p.canal AS canal"),
        ("clinics", "receita da Unimed x Amil em 2026", "e.convenio AS convenio"),
    ],
)
def test_two_values_said_apart_are_measured_apart(
    deployment: str, question: str, group: str
) -> None:
    sql = sql_for(deployment, question)
    assert group in sql and "GROUP BY 1" in sql, sql


@pytest.mark.parametrize(
    ("deployment", "question"),
    [
        ("logistics", "quantos pedidos EDI e portal em 2026"),
        ("logistics", "pedidos do EDI e do portal juntos em 2026, quantos?"),
        ("logistics", "quanto pelo EDI e quanto pelo portal"),
    ],
)
def test_values_listed_together_stay_one_measure(deployment: str, question: str) -> None:
    assert "GROUP BY" not in sql_for(deployment, question)


@pytest.mark.parametrize(
    ("deployment", "question"),
    [
        ("logistics", "volume de pedidos do ano passado mês a mês"),
        ("logistics", "How did revenue grow month over month in 2026 so far?"),
        ("clinics", "Discrepancy rate by quarter in 2025"),
        ("clinics", "no-show rate by month from March to May"),
    ],
)
def test_a_time_grain_beside_values_is_read(deployment: str, question: str) -> None:
    """A time grain is a group of no table: reading groups of values must not look it up."""
    assert "GROUP BY 1" in sql_for(deployment, question)
