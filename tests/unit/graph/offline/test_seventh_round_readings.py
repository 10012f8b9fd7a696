"""Seventh round of the offline model, readings new authors wrote: quarters and halves
written short ("1T26", "Q3-2025", "H1 2026"), a whole year named beside parts of it as
where they lie ("junho x maio deste ano"), the weakest period of rows named, "longest" and
"leva mais tempo" as a duration's slow end, "ninguém"/"nobody" as a negation, and a list
of measures whose first item names its rows (their count)."""

from __future__ import annotations

from datetime import date

import pytest

from orquestra.offline.joins import Unmappable
from orquestra.offline.periods import find_periods
from tests.unit.graph.offline.offline_sql import TODAY, route_of, sql_for


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("receita no 1t26", date(2026, 1, 1), date(2026, 4, 1)),
        ("revenue in 1q 2026", date(2026, 1, 1), date(2026, 4, 1)),
        ("in q3 2025", date(2025, 7, 1), date(2025, 10, 1)),
        ("in h1 2026", date(2026, 1, 1), date(2026, 7, 1)),
        ("vendas do 2s25", date(2025, 7, 1), date(2026, 1, 1)),
        ("in h2", date(2025, 7, 1), date(2026, 1, 1)),  # the latest second half begun
    ],
)
def test_parts_of_a_year_written_short(text: str, start: date, end: date) -> None:
    periods = find_periods(text, TODAY)
    assert [(p.start, p.end) for p in periods] == [(start, end)]


@pytest.mark.parametrize("text", ["top 2 s", "as 2 transportadoras", "quais as 4 t"])
def test_digits_alone_are_no_period(text: str) -> None:
    assert find_periods(text, TODAY) == []


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("receita de maio deste ano", [(date(2026, 5, 1), date(2026, 6, 1))]),
        (
            "receita de junho x maio deste ano",
            [(date(2026, 6, 1), date(2026, 7, 1)), (date(2026, 5, 1), date(2026, 6, 1))],
        ),
        ("receita de 2025 por mes, de marco a maio", [(date(2025, 3, 1), date(2025, 6, 1))]),
        (  # two years are compared, not one the frame of the other
            "receita de 2025 vs 2026",
            [(date(2025, 1, 1), date(2026, 1, 1)), (date(2026, 1, 1), date(2027, 1, 1))],
        ),
    ],
)
def test_a_year_beside_its_parts_is_where_they_lie(
    text: str, wanted: list[tuple[date, date]]
) -> None:
    assert [(p.start, p.end) for p in find_periods(text, TODAY)] == wanted


@pytest.mark.parametrize(
    ("deployment", "question", "wanted"),
    [
        (
            "clinics",
            "em 2025, qual foi o mês mais fraco em exames realizados?",
            ["count(*) AS quantidade", "ORDER BY quantidade ASC LIMIT 1", "date_trunc('month'"],
        ),
        (
            "clinics",
            "Which radiologist takes the longest to sign off reports in 2026?",
            ["ORDER BY tempo_de_laudo DESC LIMIT 1", "p.nome AS nome"],
        ),
        (
            "clinics",
            "qual médico leva mais tempo pra assinar laudo?",
            ["ORDER BY tempo_de_laudo DESC LIMIT 1"],
        ),
        (
            "clinics",
            "achados críticos que ninguém comunicou ao médico solicitante: quantos são?",
            ["la.classificacao = 'CRITICO'", "la.comunicado_em IS NULL"],
        ),
        (
            "clinics",
            "no 1º tri de 2026: exames realizados, receita e ticket médio",
            ["count(*) AS quantidade", "AS receita", "AS ticket_medio", "2026-04-01"],
        ),
        (
            "logistics",
            "Em 2025, cargas entregues, gasto com frete e peso",
            ["count(*) AS quantidade", "AS custo_de_frete", "sum(c.peso_total_kg)"],
        ),
        ("clinics", "receita por modalidade no 1T26", ["e.data_realizacao < DATE '2026-04-01'"]),
    ],
)
def test_new_authors_readings(deployment: str, question: str, wanted: list[str]) -> None:
    sql = sql_for(deployment, question)
    assert all(w in sql for w in wanted), sql


@pytest.mark.parametrize(
    ("question", "wanted", "unwanted"),
    [
        (  # "a gente" is "we": its verb asks the metric, as "vendemos" does
            "quanto a gente vendeu no mês retrasado?",
            ["AS valor_vendido", "p.data_pedido >= DATE '2026-04-01'"],
            [],
        ),
        (
            "junho/2026: total de cargas despachadas (tirando as canceladas), peso total e "
            "frete total",
            ["count(*) AS quantidade", "sum(c.peso_total_kg)", "AS custo_de_frete"],
            ["c.status = 'CANCELADA'"],
        ),
        (
            "top 3 categorias de produto em quantidade vendida em 2026 (pedidos cancelados fora)",
            ["p.status <> 'CANCELADO'", "LIMIT 3"],
            ["p.status = 'CANCELADO'"],
        ),
        ("how many orders in May excluding cancelled ones?", ["p.status <> 'CANCELADO'"], []),
        (  # "fora do prazo" says when, it leaves nothing out
            "no 1º semestre, qtd de cargas entregues dentro do prazo e qtd entregues fora do prazo",
            ["AS quantidade_fora_do_prazo"],
            ["<> 'ENTREGUE'"],
        ),
        (  # "total de" rows is how many, not a metric named "<table> total"
            "total de cargas em junho",
            ["SELECT count(*) AS quantidade FROM cargas"],
            ["valor_frete"],
        ),
        (
            "menor, maior e média do valor das notas autorizadas em 2025",
            ["min(nf.valor_nota)", "max(nf.valor_nota)", "avg(nf.valor_nota)"],
            ["LIMIT", "GROUP BY"],
        ),
    ],
)
def test_new_authors_logistics(question: str, wanted: list[str], unwanted: list[str]) -> None:
    sql = sql_for("logistics", question)
    assert all(w in sql for w in wanted) and not any(u in sql for u in unwanted), sql


@pytest.mark.parametrize(
    ("question", "wanted", "unwanted"),
    [
        (  # a kind word between "by" and the column
            "Average ticket by type of equipment in 2026",
            ["te.modalidade AS modalidade", "avg(e.valor)", "GROUP BY 1"],
            [],
        ),
        (  # "por qual …" asks which one: no grouping
            "O exame que gerou o laudo 11046 foi por qual plano de saúde e quanto custou?",
            ["l.num_laudo = 11046"],
            ["GROUP BY"],
        ),
        (  # "how many" of the hours a metric adds up is that sum
            "How many overtime hours were actually worked in Q2 2026?",
            ["sum(p.horas) AS hora_extra", "p.data >= DATE '2026-04-01'"],
            ["count("],
        ),
        (  # a state said as a noun of the rows it refers to counts its own rows
            "quantas faltas de paciente tivemos em junho/2026?",
            ["FROM exames AS e WHERE e.status = 'FALTOU'", "e.data_agendada >= DATE '2026-06-01'"],
            ["pacientes"],
        ),
    ],
)
def test_new_authors_clinics(question: str, wanted: list[str], unwanted: list[str]) -> None:
    sql = sql_for("clinics", question)
    assert all(w in sql for w in wanted) and not any(u in sql for u in unwanted), sql


def test_an_unknown_word_after_by_is_no_grouping() -> None:
    sql = sql_for("logistics", "sum of invoice_value of authorized invoices in May by data_nota")
    assert "GROUP BY" not in sql


@pytest.mark.parametrize(
    "question",
    [
        "Em 2025, qual foi o mês com mais pacientes faltando aos exames?",
        "quantos pacientes faltaram em junho?",
    ],
)
def test_a_state_said_as_another_form_of_its_verb(question: str) -> None:
    """ "faltaram", "faltando": the state whose synonym is "faltou" (a four-letter root,
    compared whole), on the exams' own date, never the patients' birth date."""
    sql = sql_for("clinics", question)
    assert "e.status = 'FALTOU'" in sql and "e.data_agendada >=" in sql, sql
    assert "data_nascimento" not in sql


@pytest.mark.parametrize(
    ("deployment", "question", "wanted"),
    [
        (  # a kind word followed by what it is a kind of
            "clinics",
            "Tempo médio de laudo, em horas, para cada tipo de prioridade",
            ["l.prioridade AS prioridade", "AS tempo_de_laudo"],
        ),
        (  # "em que etapa" asks the row's state, beside its deadline
            "clinics",
            "laudo 11016 ta parado em que etapa? e o prazo dele?",
            ["l.status", "l.prazo_em", "WHERE l.num_laudo = 11016"],
        ),
        (  # "para que dia" asks the date its verb names, beside another column
            "clinics",
            "Bom dia! O exame 727199 está marcado para que dia e por qual convênio?",
            ["e.convenio", "e.data_agendada"],
        ),
        (  # the latest row's columns, not the sum of its amount
            "logistics",
            "Último pedido da Marketplace Estrela: valor e data, por favor.",
            ["p.valor_total", "p.data_pedido", "ORDER BY p.data_pedido DESC LIMIT 1"],
        ),
    ],
)
def test_more_new_authors_readings(deployment: str, question: str, wanted: list[str]) -> None:
    sql = sql_for(deployment, question)
    assert all(w in sql for w in wanted) and "sum(" not in sql, sql


@pytest.mark.parametrize(
    ("deployment", "question"),
    [
        ("logistics", "nota travada: o que preciso fazer pra liberar?"),
        ("clinics", "How is the report deadline set for urgent exams?"),
        ("logistics", "what should I do when an invoice is blocked?"),
    ],
)
def test_procedures_and_cases_are_knowledge(deployment: str, question: str) -> None:
    assert route_of(deployment, question) == "KNOWLEDGE"


def test_a_name_said_without_its_last_words() -> None:
    """ "Marketplace Estrela" of "Marketplace Estrela Ltda": the name whole, else (no row
    has it whole) the first words of a row's name."""
    sql = sql_for("logistics", "Último pedido da Marketplace Estrela: valor e data, por favor.")
    assert "(c.nome = 'Marketplace Estrela' OR (c.nome ILIKE 'Marketplace Estrela %'" in sql
    assert "AND NOT EXISTS (SELECT 1 FROM clientes WHERE nome = 'Marketplace Estrela')))" in sql


def test_a_function_word_of_a_metric_phrase_is_not_its_word() -> None:
    """ "de março a maio" has an "a", as "a receber" does: "recebemos" of orders named is
    not the receivables (a phrase is said whole by its own words)."""
    sql = sql_for("logistics", "Quantos pedidos recebemos de março a maio deste ano?")
    assert "FROM pedidos" in sql and "titulos" not in sql, sql


def test_a_comparison_a_rate_makes_is_not_its_condition() -> None:
    """ "delivered on time" beside the on-time rate is the rate's own comparison: as a
    condition too it would make the rate 100%."""
    sql = sql_for("logistics", "what percentage of loads were delivered on time in Q1?")
    assert "AS otif" in sql and sql.count("<= c.previsao_entrega") == 1, sql
    counted = sql_for("logistics", "quantas cargas foram entregues no prazo em maio?")
    assert "CAST(c.data_entrega AS date) <= c.previsao_entrega" in counted


@pytest.mark.parametrize(
    ("deployment", "question", "unwanted"),
    [
        # a state's short root is only of a form that says it happened
        ("logistics", "quantos títulos a vencer em dezembro", "'VENCIDO'"),
        ("logistics", "quantas notas faltam emitir", "'EMITIDA'"),
        ("clinics", "how many doctors are working tomorrow", "'CUMPRIDO'"),
        # an article after "by" names one row: no grouping
        ("logistics", "how many loads were delivered by the carrier Rapidão", "GROUP BY"),
        # a participle after a table is its rows' state, not rows of the state's table
        ("logistics", "quantos clientes vencidos", "FROM titulos AS t WHERE"),
        # "fora dos prazos" says when; it leaves nothing out
        ("logistics", "cargas entregues fora dos prazos", "<> 'ENTREGUE'"),
        # no yes/no asked: the client's row, not the state
        ("logistics", "invoice 12 customer please", "eventos_rastreamento"),
        # a time still to run is no time taken
        ("logistics", "quantos dias faltam para vencer os títulos em aberto", "avg("),
        # the worst month of rows in a state is the one with most of them
        ("logistics", "qual o pior mês em pedidos cancelados", "ASC"),
    ],
)
def test_readings_that_must_not_fire(deployment: str, question: str, unwanted: str) -> None:
    assert unwanted not in sql_for(deployment, question)


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        (  # a year of its own, written short
            "receita de 2025 comparada com o 1t26",
            [(date(2025, 1, 1), date(2026, 1, 1)), (date(2026, 1, 1), date(2026, 4, 1))],
        ),
        (  # a period relative to today stays where today puts it
            "faturamento em 2025 e no mes passado",
            [(date(2025, 1, 1), date(2026, 1, 1)), (date(2026, 5, 1), date(2026, 6, 1))],
        ),
    ],
)
def test_parts_a_year_does_not_frame(text: str, wanted: list[tuple[date, date]]) -> None:
    assert sorted((p.start, p.end) for p in find_periods(text, TODAY)) == wanted


@pytest.mark.parametrize(
    ("deployment", "question"),
    [
        ("logistics", "qual transportadora trabalha conosco há mais tempo"),
        ("clinics", "quantos laudos em cada fase"),
    ],
)
def test_what_is_not_understood_is_said(deployment: str, question: str) -> None:
    """ "há mais tempo" is no duration without its verb; "cada fase" of many rows is a
    grouping this model does not make: both are said, not answered with something else."""
    with pytest.raises(Unmappable):
        sql_for(deployment, question)
