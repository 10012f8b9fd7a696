"""Eighth round of the offline model: a state word the glossary defines by dates means the
definition, not the state column's value; a rate never also filters by the state it
measures; a later clause's own state conditions only its own measure ("quanto faturamos e
quanto ficou em nota bloqueada"), with the first measure's filter moved to its own FILTER
when the two test one column."""

from __future__ import annotations

import pytest

from orquestra.offline.conditions import states_defined_apart
from orquestra.offline.lexicon import lexicon_for
from orquestra.offline.parser import parse
from tests.unit.graph.offline.offline_sql import CATALOGS, TODAY, route_of, sql_for

LATE = (
    "(CAST(c.data_entrega AS date) > c.previsao_entrega OR (c.data_entrega IS NULL"
    " AND c.status <> 'CANCELADA' AND c.previsao_entrega < CAST('2026-06-30' AS date)))"
)


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        (
            "On average, how many days late were the delayed deliveries that left in May?",
            ["AS dias_de_atraso", LATE, "c.data_saida >= DATE '2026-05-01'"],
        ),
        (
            "quantos dias de atraso em média tiveram as cargas atrasadas de maio?",
            ["AS dias_de_atraso", "CAST(c.data_entrega AS date) > c.previsao_entrega"],
        ),
        (
            "For shipments delivered late in 2026, how many days late were they on average,"
            " per carrier?",
            [LATE, "AS dias_de_atraso", "t.nome AS nome"],
        ),
    ],
)
def test_a_state_the_glossary_defines_by_dates_is_its_definition(
    question: str, wanted: list[str]
) -> None:
    sql = sql_for("logistics", question)
    for part in wanted:
        assert part in sql
    assert "'ATRASADA'" not in sql
    assert sql.count(LATE) <= 1  # said by the metric's words and the state's: once


def test_one_rows_state_is_left_to_the_one_row_readings() -> None:
    catalog = CATALOGS["logistics"]
    intent = parse("a carga 17086 está atrasada?", catalog, lexicon_for(catalog), TODAY)
    assert intent.entity == ("cargas", "cod_carga", 17086)
    assert intent.conditions == []  # no definition added of one row's state


def test_only_a_definition_by_other_columns_replaces_a_state() -> None:
    defined = states_defined_apart(CATALOGS["logistics"])
    late = [term.term for term, _phrases in defined[("cargas", "status", "ATRASADA")]]
    assert "carga atrasada" in late  # by the dates, not by the status
    assert ("titulos", "status", "ABERTO") not in defined  # "status <> 'PAGO'": the state's own
    assert ("notas_fiscais", "status", "BLOQUEADA") not in defined


@pytest.mark.parametrize(
    ("deployment", "question", "rate", "period"),
    [
        (
            "logistics",
            "qual foi a taxa de calote dos títulos que venceram em 2025?",
            "sum(CASE WHEN t.status = 'VENCIDO' THEN t.valor ELSE 0 END)",
            "t.vencimento >= DATE '2025-01-01'",
        ),
        (
            "clinics",
            "qual a taxa de falta dos pacientes que faltaram em maio?",
            "avg(CASE WHEN e.status = 'FALTOU' THEN 1.0 ELSE 0.0 END)",
            "e.data_agendada >= DATE '2026-05-01'",
        ),
        (
            "clinics",
            "what was the no-show rate of patients who missed their exams in May?",
            "avg(CASE WHEN e.status = 'FALTOU' THEN 1.0 ELSE 0.0 END)",
            "e.data_agendada >= DATE '2026-05-01'",
        ),
    ],
)
def test_a_rate_does_not_also_filter_by_the_state_it_measures(
    deployment: str, question: str, rate: str, period: str
) -> None:
    sql = sql_for(deployment, question)
    assert rate in sql and period in sql
    where = sql.split(" WHERE ", 1)[1]
    assert "status = 'VENCIDO'" not in where and "status = 'FALTOU'" not in where


@pytest.mark.parametrize(
    ("deployment", "question", "wanted", "unwanted"),
    [
        (
            "logistics",
            "Em 2026, quanto faturamos e quanto ficou parado em nota bloqueada?",
            [
                "sum(nf.valor_nota) FILTER (WHERE nf.status = 'AUTORIZADA') AS faturamento",
                "sum(nf.valor_nota) FILTER (WHERE nf.status = 'BLOQUEADA')",
                "nf.data_emissao >= DATE '2026-01-01'",
            ],
            ["nf.status"],
        ),
        (
            "logistics",
            "how much did we bill in 2026 and how much is stuck in blocked invoices?",
            [
                "FILTER (WHERE nf.status = 'AUTORIZADA') AS faturamento",
                "FILTER (WHERE nf.status = 'BLOQUEADA')",
            ],
            ["nf.status"],
        ),
        (
            "logistics",
            "quanto temos a receber e quanto disso já venceu?",
            [
                "sum(t.valor) FILTER (WHERE t.status <> 'PAGO') AS contas_a_receber",
                "sum(t.valor) FILTER (WHERE t.status = 'VENCIDO')",
            ],
            ["WHERE"],
        ),
        (
            "clinics",
            "quantos exames fizemos em maio e quantos deles o paciente faltou?",
            ["count(*) FILTER (WHERE e.status = 'FALTOU')"],
            ["e.status"],
        ),
    ],
)
def test_a_later_clauses_own_state_conditions_only_its_measure(
    deployment: str, question: str, wanted: list[str], unwanted: list[str]
) -> None:
    sql = sql_for(deployment, question)
    for part in wanted:
        assert part in sql
    for part in unwanted:
        assert part not in sql.split(" FROM ", 1)[1]


@pytest.mark.parametrize(
    ("deployment", "question", "where"),
    [
        (
            "logistics",
            "quantos pedidos cancelados e qual o valor total deles?",
            "WHERE p.status = 'CANCELADO'",
        ),
        (
            "clinics",
            "quantos exames cancelados tivemos em maio e qual o valor deles?",
            "e.status = 'CANCELADO'",
        ),
    ],
)
def test_a_state_said_by_the_first_clause_describes_every_clauses_rows(
    deployment: str, question: str, where: str
) -> None:
    sql = sql_for(deployment, question)
    assert where in sql.split(" FROM ", 1)[1]


@pytest.mark.parametrize(
    ("deployment", "question", "rate", "period"),
    [
        (
            "logistics",
            "What share of our shipments made it on time in Q1?",
            "THEN 1.0 ELSE 0.0 END) AS otif",
            "c.data_saida >= DATE '2026-01-01'",
        ),
        (
            "logistics",
            "percentual de cargas entregues no prazo em maio",
            "THEN 1.0 ELSE 0.0 END) AS otif",
            "c.data_saida >= DATE '2026-05-01'",
        ),
        (
            "clinics",
            "Qual o percentual de laudos assinados dentro do prazo para os exames de maio?",
            "avg(CASE WHEN l.assinado_em <= l.prazo_em THEN 1.0 ELSE 0.0 END) AS sla_de_laudo",
            "l.criado_em >= DATE '2026-05-01'",
        ),
        (
            "clinics",
            "What share of the reports from May 2026 exams were signed within the deadline?",
            "AS sla_de_laudo",
            "l.criado_em >= DATE '2026-05-01'",
        ),
    ],
)
def test_the_share_done_by_the_deadline_is_the_glossarys_rate(
    deployment: str, question: str, rate: str, period: str
) -> None:
    sql = sql_for(deployment, question)
    assert rate in sql and period in sql
    assert "count(*)" not in sql


def test_how_many_done_by_the_deadline_is_still_a_count() -> None:
    sql = sql_for("clinics", "quantos laudos foram assinados dentro do prazo em maio?")
    assert "count(*) AS quantidade" in sql and "l.assinado_em <= l.prazo_em" in sql


@pytest.mark.parametrize(
    ("deployment", "question", "wanted"),
    [
        ("logistics", "tem alguma NF retida no momento? quais?", "nf.status = 'BLOQUEADA'"),
        ("logistics", "quantas notas travadas temos?", "nf.status = 'BLOQUEADA'"),
        ("logistics", "which invoices are on hold?", "nf.status = 'BLOQUEADA'"),
        ("logistics", "A nota 42007 tá travada? Se estiver, qual o motivo?", "nf.status,"),
        ("clinics", "quantas retificações tivemos em 2026?", "l.status = 'RETIFICADO'"),
        ("clinics", "how many corrected reports in 2026?", "l.status = 'RETIFICADO'"),
    ],
)
def test_a_glossary_terms_other_names_mean_the_state_its_name_says(
    deployment: str, question: str, wanted: str
) -> None:
    assert wanted in sql_for(deployment, question)


def test_a_term_name_that_negates_is_not_read_as_the_state_alone() -> None:
    sql = sql_for("clinics", "quantos achados críticos não comunicados?")
    assert "la.classificacao = 'CRITICO'" in sql and "la.comunicado_em IS NULL" in sql


@pytest.mark.parametrize(
    ("deployment", "question", "excluded"),
    [
        (
            "logistics",
            "Quantos pedidos a Drogaria Horizonte Ltda fez em 2026 e quanto deu em valor,"
            " sem contar os cancelados?",
            "p.status <> 'CANCELADO'",
        ),
        (
            "logistics",
            "In May, how many orders came in through each channel and how much did each one"
            " sell? Leave cancelled orders out.",
            "p.status <> 'CANCELADO'",
        ),
        ("clinics", "exames de maio desconsiderando os cancelados", "e.status <> 'CANCELADO'"),
    ],
)
def test_rows_left_out_in_more_words(deployment: str, question: str, excluded: str) -> None:
    sql = sql_for(deployment, question)
    assert excluded in sql.split(" FROM ", 1)[1]
    assert "status = 'CANCELADO'" not in sql


def test_what_a_metric_already_leaves_out_is_not_said_again() -> None:
    sql = sql_for(
        "logistics", "Quanto ainda temos pra receber dos clientes, somando tudo que não foi pago?"
    )
    assert sql.endswith("WHERE (t.status <> 'PAGO')")


@pytest.mark.parametrize(
    ("deployment", "question", "wanted"),
    [
        ("logistics", "quanto eu vendi no mês retrasado?", "AS valor_vendido"),
        ("logistics", "quanto nós faturamos em maio?", "AS faturamento"),
        ("clinics", "quanto eu faturei em maio?", "AS receita"),
    ],
)
def test_a_metric_verb_in_the_first_person_singular(
    deployment: str, question: str, wanted: str
) -> None:
    assert wanted in sql_for(deployment, question)
    assert route_of(deployment, question) == "ANALYTICS"


@pytest.mark.parametrize(
    ("deployment", "question", "route"),
    [
        ("logistics", "What exactly does OTIF mean in this platform?", "KNOWLEDGE"),
        ("logistics", "how does a blocked invoice get released?", "KNOWLEDGE"),
        ("clinics", "how does an amended report get signed?", "KNOWLEDGE"),
        ("logistics", "how many orders get cancelled per month?", "ANALYTICS"),
    ],
)
def test_meanings_and_procedures_in_more_words(deployment: str, question: str, route: str) -> None:
    assert route_of(deployment, question) == route


@pytest.mark.parametrize(
    ("deployment", "question", "wanted"),
    [
        (
            "logistics",
            "Em qual segmento de cliente a gente vendeu mais de janeiro a maio deste ano?",
            ["c.segmento AS segmento, sum(p.valor_total) AS valor_vendido", "LIMIT 1"],
        ),
        (
            "logistics",
            "which customer segment did we sell the most to in 2026?",
            ["c.segmento AS segmento", "AS valor_vendido", "LIMIT 1"],
        ),
        (
            "clinics",
            "em qual convênio a gente faturou mais em maio?",
            ["e.convenio AS convenio", "AS receita", "LIMIT 1"],
        ),
    ],
)
def test_a_group_asked_of_our_own_verb_wins_by_its_metric(
    deployment: str, question: str, wanted: list[str]
) -> None:
    sql = sql_for(deployment, question)
    for part in wanted:
        assert part in sql


def test_a_verb_meeting_only_the_rows_word_of_a_metric_is_not_that_metric() -> None:
    sql = sql_for("logistics", "When did we ship our very first load?")
    assert "previsao_entrega" not in sql.split(" FROM ", 1)[1]
    assert "ORDER BY c.data_saida ASC LIMIT 1" in sql
    late = sql_for("logistics", "how many late shipments did we have?")
    assert "AS carga_atrasada" in late


@pytest.mark.parametrize(
    ("deployment", "question"),
    [
        ("logistics", "Como vocês contam o lead time de uma carga?"),
        ("clinics", "como o sistema conta um laudo atrasado?"),
    ],
)
def test_how_it_is_counted_is_knowledge(deployment: str, question: str) -> None:
    assert route_of(deployment, question) == "KNOWLEDGE"


@pytest.mark.parametrize(
    ("deployment", "question", "wanted"),
    [
        (
            "clinics",
            "Qual a taxa de no-show dos pacientes particulares em 2026?",
            "e.convenio = 'PARTICULAR'",
        ),
        (
            "clinics",
            "Em que mês de 2026 a gente teve mais pacientes faltando?",
            "date_trunc('month', e.data_agendada) AS mes",
        ),
        (
            "clinics",
            "What fraction of reports were signed within their deadline in May?",
            "AS sla_de_laudo",
        ),
    ],
)
def test_plurals_gerunds_and_deadlines_said_otherwise(
    deployment: str, question: str, wanted: str
) -> None:
    sql = sql_for(deployment, question)
    assert wanted in sql
    assert "data_nascimento" not in sql


@pytest.mark.parametrize(
    ("deployment", "question", "columns"),
    [
        (
            "clinics",
            "Atendimento 726403: qual o convênio e quanto foi cobrado?",
            "SELECT e.cod_exame, e.convenio, e.valor FROM exames AS e WHERE e.cod_exame = 726403",
        ),
        (
            "logistics",
            "order 120837 - which channel did it come in through and how much is it?",
            "SELECT p.num_pedido, p.canal, p.valor_total FROM pedidos AS p WHERE",
        ),
        (
            "logistics",
            "quanto deu o frete da carga 17086?",
            "SELECT c.cod_carga, c.valor_frete FROM cargas AS c WHERE",
        ),
    ],
)
def test_how_much_of_one_row_is_its_own_amount(
    deployment: str, question: str, columns: str
) -> None:
    sql = sql_for(deployment, question)
    assert sql.startswith(columns)
    assert "sum(" not in sql


@pytest.mark.parametrize(
    "question", ["quanto o cliente 1801 comprou em maio?", "how much did customer 1801 buy in May?"]
)
def test_how_much_one_row_did_in_other_rows_is_their_headline_amount(question: str) -> None:
    sql = sql_for("logistics", question)
    assert "sum(p.valor_total) AS valor_vendido" in sql
    assert "c.cod_cliente = 1801" in sql and "p.data_pedido >= DATE '2026-05-01'" in sql


@pytest.mark.parametrize(
    ("deployment", "question", "wanted"),
    [
        (
            "clinics",
            "Cancelamentos por convênio no primeiro semestre de 2026, do maior pro menor",
            "GROUP BY 1 ORDER BY quantidade DESC",
        ),
        ("clinics", "exames por modalidade em ordem crescente", "ORDER BY quantidade ASC"),
        ("logistics", "sales by channel from highest to lowest", "ORDER BY valor_vendido DESC"),
        ("logistics", "pedidos por canal do menor pro maior", "ORDER BY quantidade ASC"),
    ],
)
def test_an_order_asked_for_a_whole_list_is_no_ranking(
    deployment: str, question: str, wanted: str
) -> None:
    sql = sql_for(deployment, question)
    assert sql.endswith(wanted)  # every group, no LIMIT
    assert "max(" not in sql and "min(" not in sql


@pytest.mark.parametrize(
    ("deployment", "question", "wanted"),
    [
        (
            "clinics",
            "taxa de discordância por revisor",
            ["p.nome AS nome", "JOIN profissionais AS p ON rq.cod_revisor = p.cod_profissional"],
        ),
        (
            "clinics",
            "Discrepancy rate by reviewer, 2025.",
            ["p.nome AS nome", "rq.data_revisao >= DATE '2025-01-01'"],
        ),
        (
            "logistics",
            "frete por transportadora",
            ["t.nome AS nome", "JOIN transportadoras AS t"],
        ),
    ],
)
def test_grouping_by_a_reference_is_by_the_referred_rows_name(
    deployment: str, question: str, wanted: list[str]
) -> None:
    sql = sql_for(deployment, question)
    for part in wanted:
        assert part in sql


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        (
            "laudos por médico",
            "FROM laudos AS l JOIN profissionais AS p ON l.cod_medico = p.cod_profissional",
        ),
        (
            "exames por técnico em maio",
            "FROM exames AS e JOIN profissionais AS p ON e.cod_tecnico = p.cod_profissional",
        ),
        ("médicos por especialidade", "SELECT e.nome AS nome, count(*) AS quantidade"),
        ("doctors by specialty", "JOIN especialidades AS e"),
    ],
)
def test_rows_grouped_by_a_kind_of_other_rows_are_counted_not_those(
    question: str, wanted: str
) -> None:
    assert wanted in sql_for("clinics", question)


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        (
            "Quantas ressonâncias a gente fez no 2º trimestre?",
            ["FROM exames AS e JOIN tipos_exame AS te", "te.modalidade = 'RM'", "'2026-04-01'"],
        ),
        ("how many CT scans in May?", ["FROM exames AS e", "'2026-05-01'"]),
    ],
)
def test_kinds_counted_in_a_period_are_the_dated_rows_of_that_kind(
    question: str, wanted: list[str]
) -> None:
    sql = sql_for("clinics", question)
    for part in wanted:
        assert part in sql


def test_kinds_counted_with_no_period_are_the_kinds() -> None:
    assert "FROM tipos_exame AS te WHERE" in sql_for(
        "clinics", "quantos tipos de exame de RM temos?"
    )


@pytest.mark.parametrize(
    ("deployment", "question", "wanted"),
    [
        (
            "clinics",
            "Which radiologist had the slowest turnaround last quarter?",
            ["p.nome AS nome", "ORDER BY tempo_de_laudo DESC LIMIT 1"],
        ),
        (
            "logistics",
            "which carrier has the fastest lead time?",
            ["t.nome AS nome", "ORDER BY lead_time ASC LIMIT 1"],
        ),
        (
            "logistics",
            "qual transportadora tem o lead time mais rápido?",
            ["t.nome AS nome", "ORDER BY lead_time ASC LIMIT 1"],
        ),
    ],
)
def test_the_rows_named_ranked_by_a_time_taken(
    deployment: str, question: str, wanted: list[str]
) -> None:
    sql = sql_for(deployment, question)
    for part in wanted:
        assert part in sql


@pytest.mark.parametrize(
    ("deployment", "question", "wanted"),
    [
        (
            "clinics",
            "Top 3 exam types by volume performed this year.",
            "SELECT te.descricao AS descricao, count(*) AS quantidade FROM exames AS e",
        ),
        (
            "logistics",
            "top 3 transportadoras por quantidade de cargas",
            "SELECT t.nome AS nome, count(*) AS quantidade FROM cargas AS c",
        ),
    ],
)
def test_kinds_ranked_by_volume_count_the_rows_of_each(
    deployment: str, question: str, wanted: str
) -> None:
    sql = sql_for(deployment, question)
    assert sql.startswith(wanted) and "DESC LIMIT 3" in sql


# The review's probes: each reading above, pressed where it must not fire.


@pytest.mark.parametrize(
    ("deployment", "question", "wanted"),
    [
        (
            "clinics",
            "what percent of urgent reports made it on time last month?",
            "AS sla_de_laudo FROM laudos AS l WHERE (l.assinado_em IS NOT NULL) AND l.prioridade",
        ),
        (
            "clinics",
            "percentual de laudos urgentes assinados no prazo por médico",
            "ORDER BY sla_de_laudo DESC",
        ),
        (
            "clinics",
            "dos laudos assinados no prazo, qual percentual era urgente?",
            "100.0 * count(*) FILTER (WHERE l.prioridade = 'URGENTE')",
        ),
        (
            "logistics",
            "qual a % de cargas entregues dentro do prazo pela transportadora 3?",
            "AS otif FROM cargas",
        ),
    ],
)
def test_a_rate_narrowed_by_a_state_and_a_share_of_on_time_rows(
    deployment: str, question: str, wanted: str
) -> None:
    sql = sql_for(deployment, question)
    assert wanted in sql
    assert "NULLIF(avg(" not in sql  # never a ratio of two rates


@pytest.mark.parametrize(
    ("deployment", "question", "first", "second"),
    [
        (
            "logistics",
            "quanto vendemos pelo EDI e quanto pelo portal em maio?",
            "sum(p.valor_total) FILTER (WHERE p.canal = 'EDI')",
            "sum(p.valor_total) FILTER (WHERE p.canal = 'PORTAL')",
        ),
        (
            "logistics",
            "quanto faturamos com notas autorizadas e quanto ficou em notas bloqueadas?",
            "sum(nf.valor_nota) FILTER (WHERE nf.status = 'AUTORIZADA') AS faturamento",
            "sum(nf.valor_nota) FILTER (WHERE nf.status = 'BLOQUEADA')",
        ),
        (
            "logistics",
            "quantos pedidos tivemos em maio e qual o valor total dos pedidos cancelados?",
            "count(*) AS quantidade",
            "sum(p.valor_total) FILTER (WHERE p.status = 'CANCELADO')",
        ),
        (
            "clinics",
            "quanto faturamos com exames particulares e quanto com Unimed?",
            "FILTER (WHERE e.convenio = 'PARTICULAR')",
            "FILTER (WHERE e.convenio = 'UNIMED')",
        ),
    ],
)
def test_each_clause_its_own_state_of_one_column(
    deployment: str, question: str, first: str, second: str
) -> None:
    sql = sql_for(deployment, question)
    assert first in sql and second in sql
    where = sql.split(" FROM ", 1)[1]
    assert "canal =" not in where and "convenio =" not in where
    assert "<> 'CANCELADO' AND p.status = 'CANCELADO'" not in sql


@pytest.mark.parametrize(
    ("question", "state"),
    [
        ("how many orders did we leave open last month?", "p.status = 'ABERTO'"),
        ("which invoices did we leave blocked?", "nf.status = 'BLOQUEADA'"),
    ],
)
def test_leave_without_out_leaves_nothing_out(question: str, state: str) -> None:
    sql = sql_for("logistics", question)
    assert state in sql and "<>" not in sql.replace("c.status <> 'CANCELADA'", "")


@pytest.mark.parametrize(
    "question",
    [
        "quanto pesa a carga 17086?",
        "how much does load 17086 weigh?",
        "quanto tempo levou a carga 17086?",
    ],
)
def test_how_much_of_one_row_that_is_not_money_keeps_its_columns(question: str) -> None:
    assert "c.peso_total_kg" in sql_for("logistics", question)


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        ("how many voided orders in May?", "p.status = 'CANCELADO'"),
        ("quantas cargas anuladas?", "c.status = 'CANCELADA'"),
        ("A nota 42007 está travada? qual o motivo?", "nf.status, nf.motivo_bloqueio"),
    ],
)
def test_a_terms_short_state_word_is_the_state_of_that_name_of_the_rows_asked(
    question: str, wanted: str
) -> None:
    sql = sql_for("logistics", question)
    assert wanted in sql and "notas_fiscais" not in sql.replace("FROM notas_fiscais", "")


def test_a_terms_short_state_word_of_rows_without_that_state_is_said_not_understood() -> None:
    catalog = CATALOGS["logistics"]
    intent = parse("quantas cargas travadas?", catalog, lexicon_for(catalog), TODAY)
    assert intent.unmapped == ["travadas"]


@pytest.mark.parametrize(
    "question",
    ["how many loads did we deliver in May?", "quantas cargas a gente entregou em maio?"],
)
def test_a_verb_of_the_rows_date_is_not_the_late_metric(question: str) -> None:
    sql = sql_for("logistics", question)
    assert "previsao_entrega" not in sql and "c.data_entrega >= DATE '2026-05-01'" in sql


@pytest.mark.parametrize(
    ("deployment", "question", "wanted"),
    [
        (
            "clinics",
            "Total billed to Unimed between 2026-04-01 and 2026-04-30.",
            [
                "sum(e.valor)",
                "e.convenio = 'UNIMED'",
                "(e.status = 'REALIZADO')",
                "e.data_realizacao >= DATE '2026-04-01' AND e.data_realizacao < DATE '2026-05-01'",
            ],
        ),
        (
            "logistics",
            "pedidos de 01/04 a 15/04/2026",
            ["p.data_pedido >= DATE '2026-04-01' AND p.data_pedido < DATE '2026-04-16'"],
        ),
        (
            "logistics",
            "how many loads left from 2026-03-01 to 2026-03-31?",
            ["c.data_saida >= DATE '2026-03-01' AND c.data_saida < DATE '2026-04-01'"],
        ),
    ],
)
def test_days_written_out_and_a_total_of_the_rows_money(
    deployment: str, question: str, wanted: list[str]
) -> None:
    sql = sql_for(deployment, question)
    for part in wanted:
        assert part in sql


@pytest.mark.parametrize(
    ("deployment", "question", "name"),
    [
        (
            "clinics",
            "sou o Dr. Roberto Lima Barbosa: quais laudos meus ainda não foram assinados?",
            "p.nome = 'Roberto Lima Barbosa'",
        ),
        (
            "clinics",
            "último laudo assinado pela Dra. Mariana Mendes Monteiro",
            "p.nome = 'Mariana Mendes Monteiro'",
        ),
        (
            "logistics",
            "pedidos da Sra. Drogaria Horizonte Ltda em maio",
            "Drogaria Horizonte Ltda'",
        ),
    ],
)
def test_a_title_before_a_name_is_not_part_of_it(deployment: str, question: str, name: str) -> None:
    sql = sql_for(deployment, question)
    assert name in sql and "Dr." not in sql and "Sra." not in sql


def test_two_periods_compared_with_nothing_measured_count_the_rows() -> None:
    sql = sql_for("clinics", "MRI scans performed in Q1 2026 vs Q1 2025")
    assert sql.startswith("SELECT count(*) FILTER (WHERE e.data_realizacao >= DATE '2026-01-01'")
    assert "AS quantidade_2" in sql


def test_a_further_measure_of_one_aggregate_with_nested_parentheses_is_kept() -> None:
    sql = sql_for(
        "clinics",
        "For reports opened in March 2026: how many got signed, and what was the average"
        " turnaround in hours?",
    )
    assert "AS tempo_de_laudo" in sql and "FILTER (WHERE l.assinado_em IS NOT NULL)" in sql


@pytest.mark.parametrize(
    ("deployment", "question", "wanted"),
    [
        (
            "logistics",
            "frete total das cargas canceladas",
            "sum(c.valor_frete) AS custo_de_frete FROM cargas AS c WHERE c.status = 'CANCELADA'",
        ),
        (
            "logistics",
            "valor vendido de pedidos cancelados",
            "FROM pedidos AS p WHERE p.status = 'CANCELADO'",
        ),
    ],
)
def test_rows_in_a_state_the_metric_leaves_out_are_measured_without_its_filter(
    deployment: str, question: str, wanted: str
) -> None:
    assert wanted in sql_for(deployment, question)


@pytest.mark.parametrize(
    ("deployment", "question", "route"),
    [
        (
            "clinics",
            "o que o médico tem que fazer quando acha um achado crítico no exame?",
            "KNOWLEDGE",
        ),
        ("logistics", "o que o financeiro deve fazer com uma nota bloqueada?", "KNOWLEDGE"),
    ],
)
def test_what_someone_must_do_is_knowledge(deployment: str, question: str, route: str) -> None:
    assert route_of(deployment, question) == route


@pytest.mark.parametrize(
    "question",
    [
        "List the reports that blew their deadline and still have no signature.",
        "quais laudos estouraram o prazo e ainda não foram assinados?",
    ],
)
def test_past_the_deadline_and_still_not_done_in_more_words(question: str) -> None:
    assert "l.assinado_em IS NULL AND l.status <> 'CANCELADO'" in sql_for("clinics", question)


@pytest.mark.parametrize(
    ("question", "columns"),
    [
        (
            "qual era a data prometida da carga 17100 e quando ela foi entregue de fato?",
            "SELECT c.cod_carga, c.previsao_entrega, c.data_entrega FROM cargas AS c",
        ),
        (
            "When is bill 920061 due and how much is it for?",
            "SELECT t.num_titulo, t.valor, t.vencimento FROM titulos AS t",
        ),
        ("quando vence o título 920061?", "SELECT t.num_titulo, t.vencimento FROM titulos AS t"),
    ],
)
def test_when_of_one_row_is_the_date_its_verb_names_beside_a_date_already_asked(
    question: str, columns: str
) -> None:
    sql = sql_for("logistics", question)
    assert sql.startswith(columns) and "eventos_rastreamento" not in sql


def test_when_of_a_row_whose_own_dates_no_verb_names_keeps_its_events_date() -> None:
    sql = sql_for("logistics", "quando a nota 40908 foi entregue?")
    assert "last_updated FROM eventos_rastreamento" in sql


@pytest.mark.parametrize(
    ("question", "group"),
    [
        ("qual cliente compra mais da gente?", "c.nome AS nome"),
        ("quais clientes compram mais?", "c.nome AS nome"),
        ("qual estado compra mais da gente?", "c.uf AS uf"),
        ("which state buys the most from us?", "c.uf AS uf"),
        ("qual segmento comprou mais em 2026?", "c.segmento AS segmento"),
    ],
)
def test_rows_or_their_column_ranked_by_what_they_do_in_the_present_too(
    question: str, group: str
) -> None:
    sql = sql_for("logistics", question)
    assert sql.startswith(f"SELECT {group}, sum(p.valor_total) AS valor_vendido FROM pedidos")


@pytest.mark.parametrize(
    ("deployment", "question", "wanted"),
    [
        (
            "logistics",
            "qtas NFs distintas tiveram ocorrência em mai/26?",
            "er.last_updated >= DATE '2026-05-01' AND er.last_updated < DATE '2026-06-01'",
        ),
        (
            "logistics",
            "faturamento março/26",
            "nf.data_emissao >= DATE '2026-03-01' AND nf.data_emissao < DATE '2026-04-01'",
        ),
        (
            "logistics",
            "faturamento março/2025",
            "nf.data_emissao >= DATE '2025-03-01' AND nf.data_emissao < DATE '2025-04-01'",
        ),
        (
            "logistics",
            "How many authorized invoices have we issued since April 15?",
            "nf.data_emissao >= DATE '2026-04-15' AND nf.data_emissao < DATE '2026-07-01'",
        ),
        (
            "clinics",
            "quantos exames realizados desde 15 de abril?",
            ">= DATE '2026-04-15'",
        ),
    ],
)
def test_months_with_their_year_after_a_slash_and_days_since(
    deployment: str, question: str, wanted: str
) -> None:
    assert wanted in sql_for(deployment, question)


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        ("qtd NF bloq e valor total", "WHERE nf.status = 'BLOQUEADA'"),
        ("pedidos canc em maio", "WHERE p.status = 'CANCELADO'"),
        ("cargas canc em maio", "WHERE c.status = 'CANCELADA'"),
    ],
)
def test_a_state_cut_short_is_the_state_of_the_rows_named(question: str, wanted: str) -> None:
    assert wanted in sql_for("logistics", question)


@pytest.mark.parametrize(
    "question",
    [
        "quais laudos estão só esperando a assinatura do médico agora?",
        "Which reports are sitting there waiting for a signature right now?",
        "quantos laudos aguardando assinatura?",
    ],
)
def test_a_waiting_state_said_in_other_words(question: str) -> None:
    assert "l.status = 'AGUARDANDO_ASSINATURA'" in sql_for("clinics", question)
