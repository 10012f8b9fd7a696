"""Paraphrases the offline model understands (issue 19), each a general reading over the
catalog and glossary, checked on both sample deployments and in both languages where the
catalog allows. No database is needed: the SQL is checked by what it says, and passes the
guard."""

from __future__ import annotations

import pytest

from orquestra.offline.conversation import resolve
from orquestra.offline.lexicon import lexicon_for
from orquestra.offline.parser import parse
from orquestra.offline.sql import Unmappable, build_sql
from orquestra.offline.understanding import about, explain, suggestions
from tests.unit.graph.offline.offline_sql import CATALOGS, TODAY, route_of, sql_for


def assert_in(sql: str, *fragments: str) -> None:
    for fragment in fragments:
        assert fragment in sql, f"{fragment!r} not in {sql}"


@pytest.mark.parametrize(
    ("deployment", "question", "fragments"),
    [
        (
            "logistics",
            "qual foi o mês com mais pedidos em 2025?",
            ["date_trunc('month', p.data_pedido) AS mes", "count(*)", "DESC LIMIT 1"],
        ),
        (
            "logistics",
            "in which month did we get the most orders in 2025?",
            ["date_trunc('month', p.data_pedido) AS mes", "count(*)", "DESC LIMIT 1"],
        ),
        (
            "logistics",
            "which carrier had the most delays?",
            ["t.nome", "c.previsao_entrega", "GROUP BY 1", "DESC LIMIT 1"],
        ),
        (
            "logistics",
            "o pior cliente em atraso",
            ["c.nome", "sum(t.valor)", "t.status = 'VENCIDO'", "DESC LIMIT 1"],
        ),
        (
            "logistics",
            "qual canal teve menos pedidos este ano?",
            ["p.canal", "count(*)", "ASC LIMIT 1"],
        ),
        (
            "clinics",
            "qual convênio teve mais exames em 2025?",
            ["e.convenio", "count(*) AS quantidade FROM exames", "DESC LIMIT 1"],
        ),
        (
            "clinics",
            "which month had the most exams in 2025?",
            ["date_trunc('month', e.", "count(*) AS quantidade FROM exames", "DESC LIMIT 1"],
        ),
    ],
)
def test_which_group_wins(deployment: str, question: str, fragments: list[str]) -> None:
    """Group, order by the measure, take the first: the group with its measure."""
    assert_in(sql_for(deployment, question), "GROUP BY 1", *fragments)


@pytest.mark.parametrize(
    ("deployment", "question", "fragments"),
    [
        (
            "logistics",
            "top 3 categorias de produto por quantidade vendida",
            # sold: the cancelled orders' items aside (the metric of what was sold says so)
            ["x.categoria AS categoria", "sum(ip.quantidade)", "<> 'CANCELADO'", "LIMIT 3"],
        ),
        (
            "logistics",
            "top 3 product categories by quantity sold",
            ["x.categoria AS categoria", "sum(ip.quantidade)", "<> 'CANCELADO'", "LIMIT 3"],
        ),
        (
            "clinics",
            "top 3 modalidades por receita",
            ["te.modalidade AS modalidade", "sum(e.valor)", "JOIN tipos_exame", "LIMIT 3"],
        ),
        (
            "clinics",
            "top 3 specialties by revenue",
            ["ex.nome AS nome", "JOIN especialidades", "LIMIT 3"],
        ),
    ],
)
def test_ranked_by_an_attribute_of_a_related_table(
    deployment: str, question: str, fragments: list[str]
) -> None:
    assert_in(sql_for(deployment, question), *fragments)


@pytest.mark.parametrize(
    ("deployment", "question", "fragments"),
    [
        ("logistics", "a carga mais recente", ["FROM cargas", "c.data_saida DESC LIMIT 1"]),
        ("logistics", "the latest order", ["FROM pedidos", "ORDER BY p.data_pedido DESC LIMIT 1"]),
        (
            "logistics",
            "o primeiro pedido do cliente 5",
            ["FROM pedidos", "c.cod_cliente = 5", "ORDER BY p.data_pedido ASC LIMIT 1"],
        ),
        (
            "logistics",
            "customer 5's first order",
            ["FROM pedidos", "c.cod_cliente = 5", "ORDER BY p.data_pedido ASC LIMIT 1"],
        ),
        ("logistics", "os 5 pedidos mais recentes", ["ORDER BY p.data_pedido DESC LIMIT 5"]),
        ("clinics", "o exame mais recente", ["FROM exames", "DESC LIMIT 1"]),
        (
            "clinics",
            "the oldest exam of patient 12",
            ["FROM exames", "p.cod_paciente = 12", "ASC LIMIT 1"],
        ),
    ],
)  # fmt: skip
def test_most_recent_and_oldest_by_the_rows_own_date(
    deployment: str, question: str, fragments: list[str]
) -> None:
    sql = sql_for(deployment, question)
    assert_in(sql, *fragments)
    assert "count(" not in sql and "sum(" not in sql


def test_a_period_word_is_not_a_recency() -> None:
    sql = sql_for("logistics", "faturamento dos últimos 90 dias")
    assert "ORDER BY" not in sql and "DATE '2026-04-01'" in sql
    assert route_of("logistics", "qual o último status da nota 40908") == "TRACKING"


def select_list(sql: str) -> str:
    return sql.split(" FROM ")[0]


@pytest.mark.parametrize(
    ("deployment", "question", "shown"),
    [
        ("logistics", "qual o valor e a data do pedido 109635?", ["valor_total", "data_pedido"]),
        ("logistics", "the value and date of order 109635?", ["valor_total", "data_pedido"]),
        ("logistics", "a nota 44803 está bloqueada? qual o motivo?", ["status", "motivo_bloqueio"]),
        ("logistics", "is invoice 44803 blocked? what reason?", ["status", "motivo_bloqueio"]),
        ("clinics", "qual o status e o prazo do laudo 7?", ["status", "prazo_em"]),
        ("clinics", "what is the status and the deadline of report 7?", ["status", "prazo_em"]),
    ],
)  # fmt: skip
def test_the_columns_asked_of_one_row(deployment: str, question: str, shown: list[str]) -> None:
    selected = select_list(sql_for(deployment, question))
    assert all(column in selected for column in shown), selected
    assert selected.count(",") <= len(shown), selected  # what was asked, not every column


@pytest.mark.parametrize(
    ("deployment", "question", "fragments"),
    [
        (
            "logistics",
            "em que cidade estava a nota 40908?",
            ["cidade", "FROM eventos_rastreamento", "last_updated DESC"],
        ),
        (
            "logistics",
            "in which city was invoice 40908?",
            ["cidade", "FROM eventos_rastreamento", "last_updated DESC"],
        ),
        ("clinics", "qual a modalidade do exame 5?", ["te.modalidade", "JOIN tipos_exame"]),
        ("clinics", "what is the modality of exam 5?", ["te.modalidade", "JOIN tipos_exame"]),
    ],
)
def test_a_column_only_a_related_table_has(
    deployment: str, question: str, fragments: list[str]
) -> None:
    """The row's latest event when its events carry it, else the nearest joined table."""
    assert_in(sql_for(deployment, question), *fragments)


@pytest.mark.parametrize(
    "question", ["why is invoice 41514 blocked?", "por que a nota 41514 está bloqueada?"]
)
def test_why_asks_for_the_reason(question: str) -> None:
    assert "motivo_bloqueio" in select_list(sql_for("logistics", question))


@pytest.mark.parametrize(
    ("deployment", "question", "measures"),
    [
        (
            "logistics",
            "quantos pedidos recebi em 2026 e qual o valor total?",
            ["count(*) AS quantidade", "sum(p.valor_total)"],
        ),
        (
            "logistics",
            "how many orders did I receive in 2026 and what was the total value?",
            ["count(*) AS quantidade", "sum(p.valor_total)"],
        ),
        (
            "logistics",
            "qual o faturamento e o ticket médio de 2025?",
            ["sum(nf.valor_nota) AS faturamento", "avg(nf.valor_nota) AS ticket_medio"],
        ),
        (
            "clinics",
            "quantos exames realizados em 2025 e qual a receita?",
            ["count(*) AS quantidade", "sum(e.valor) FILTER (WHERE e.status = 'REALIZADO')"],
        ),
        (
            "clinics",
            "how many exams were performed in 2025 and what was the revenue?",
            ["count(*) AS quantidade", "sum(e.valor) FILTER (WHERE e.status = 'REALIZADO')"],
        ),
    ],
)
def test_several_measures_at_once(deployment: str, question: str, measures: list[str]) -> None:
    sql = sql_for(deployment, question)
    assert_in(select_list(sql), *measures)
    assert "2025-01-01" in sql or "2026-01-01" in sql  # the whole question's period


def test_a_concept_and_a_count_is_one_measure() -> None:
    sql = sql_for("logistics", "o que é nota bloqueada e quantas eu tenho?")
    assert select_list(sql) == "SELECT count(*) AS quantidade"


@pytest.mark.parametrize(
    ("deployment", "question", "counted"),
    [
        (
            "logistics",
            "quantas notas distintas tiveram ocorrência?",
            "count(DISTINCT (er.serie, er.num_nota))",
        ),
        (
            "logistics",
            "how many distinct invoices had incidents in 2026?",
            "count(DISTINCT (er.serie, er.num_nota))",
        ),
        (
            "logistics",
            "quantos clientes diferentes fizeram pedidos em 2026?",
            "count(DISTINCT p.cod_cliente) AS quantidade FROM pedidos",
        ),
        (
            "clinics",
            "quantos pacientes diferentes fizeram exames em 2025?",
            "count(DISTINCT e.cod_paciente) AS quantidade FROM exames",
        ),
        (
            "clinics",
            "how many distinct reports had critical findings?",
            "count(DISTINCT la.id_laudo) AS quantidade FROM laudo_achados",
        ),
    ],
)
def test_distinct_counts_count_the_whole_key(deployment: str, question: str, counted: str) -> None:
    assert counted in sql_for(deployment, question)


@pytest.mark.parametrize(
    ("deployment", "question", "fragments"),
    [
        (
            "logistics",
            "quantas cargas foram entregues depois da previsão em 2026?",
            [
                "CAST(c.data_entrega AS date) > c.previsao_entrega",
                "c.data_saida >= DATE '2026-01-01'",  # the late-delivery metric's date
            ],
        ),
        (
            "logistics",
            "how many shipments were delivered after the promised date in 2026?",
            ["CAST(c.data_entrega AS date) > c.previsao_entrega", "c.data_saida >= DATE"],
        ),
        (
            "clinics",
            "quantos laudos foram assinados depois do prazo em 2025?",
            ["l.assinado_em > l.prazo_em", "DATE '2025-01-01'"],
        ),
        (
            "clinics",
            "how many reports were signed after the deadline in 2025?",
            ["l.assinado_em > l.prazo_em", "DATE '2025-01-01'"],
        ),
    ],
)
def test_a_condition_between_two_dates(
    deployment: str, question: str, fragments: list[str]
) -> None:
    sql = sql_for(deployment, question)
    assert_in(sql, *fragments)
    assert "'ENTREGUE'" not in sql  # the verb made the comparison, not a state filter


@pytest.mark.parametrize(
    ("deployment", "question", "fragments"),
    [
        (
            "logistics",
            "custo médio de frete por modal",
            ["t.modal", "avg(c.valor_frete)", "c.status <> 'CANCELADA'"],
        ),
        (
            "logistics",
            "average freight cost by transport mode",
            ["t.modal", "avg(c.valor_frete)", "c.status <> 'CANCELADA'"],
        ),
        (
            "clinics",
            "receita média por convênio em 2025",
            ["e.convenio", "avg(e.valor)", "e.status = 'REALIZADO'", "e.data_realizacao >="],
        ),
        (
            "clinics",
            "average revenue by insurer in 2025",
            ["e.convenio", "avg(e.valor)", "e.status = 'REALIZADO'", "e.data_realizacao >="],
        ),
    ],
)
def test_a_metric_named_inside_a_longer_phrase_is_data(
    deployment: str, question: str, fragments: list[str]
) -> None:
    """Its filter and date column apply; and it is data, not a concept to explain."""
    assert_in(sql_for(deployment, question), *fragments)
    assert route_of(deployment, question) == "ANALYTICS"


@pytest.mark.parametrize(
    ("deployment", "question", "lang", "understood", "unknown"),
    [
        ("logistics", "qual a cor das cargas?", "pt", "cargas", "cor"),
        ("logistics", "what colour are my shipments?", "en", "shipments", "colour"),
        ("logistics", "faturamento por signo do cliente", "pt", "notas", "signo"),
        ("clinics", "qual o signo dos pacientes?", "pt", "pacientes", "signo"),
        ("clinics", "revenue by zodiac sign", "en", "exams", "zodiac"),
    ],
)
def test_an_unmapped_question_says_what_was_understood_and_what_can_be_asked(
    deployment: str, question: str, lang: str, understood: str, unknown: str
) -> None:
    """No SQL (a clear non-answer beats a wrong number), what was understood, and two or
    three questions about the same tables that the offline model does answer."""
    catalog = CATALOGS[deployment]
    intent = parse(question, catalog, lexicon_for(catalog), TODAY)
    with pytest.raises(Unmappable):
        build_sql(intent, catalog, TODAY.isoformat())
    said = explain(intent, catalog, lang, TODAY)
    assert understood in said and f'"{unknown}"' in said
    asks = suggestions(about(intent), catalog, lang, TODAY)
    assert 2 <= len(asks) <= 3 and all(ask in said for ask in asks)
    for ask in asks:
        assert sql_for(deployment, ask)  # each suggestion is answered


@pytest.mark.parametrize(
    ("deployment", "question"),
    [
        ("logistics", "faturamento por mês em 2026"),
        ("logistics", "sum of invoice_value of authorized invoices in May by data_nota"),
        ("logistics", "liste as cargas"),
        ("clinics", "receita por mês em 2026"),
    ],
)
def test_words_of_the_catalog_or_the_language_are_not_unknown(
    deployment: str, question: str
) -> None:
    assert sql_for(deployment, question)


@pytest.mark.parametrize(
    ("deployment", "question", "condition", "named"),
    [
        ("logistics", "clientes do segmento indústria", "c.segmento = 'INDUSTRIA'", "c.nome"),
        ("logistics", "customers in the retail segment", "c.segmento = 'VAREJO'", "c.nome"),
        ("clinics", "exames do convênio unimed em 2025", "e.convenio = 'UNIMED'", "e.cod_exame"),
    ],
)  # fmt: skip
def test_a_word_after_its_column_is_its_value(
    deployment: str, question: str, condition: str, named: str
) -> None:
    """And the rows listed are named as people know them (their name column, if any)."""
    sql = sql_for(deployment, question)
    assert condition in sql and named in select_list(sql)


def test_a_second_verb_with_a_state_is_a_condition_not_a_measure() -> None:
    sql = sql_for("logistics", "quantas cargas saíram em maio e chegaram atrasadas?")
    assert select_list(sql).count(" AS ") == 1 and "c.previsao_entrega" in sql


@pytest.mark.parametrize(
    "question", ["top 5 clientes em faturamento no ano passado", "revenue by customer segment"]
)
def test_joins_follow_a_rows_own_references_first(question: str) -> None:
    """Invoice → order → customer, not invoice ← receivables → customer: a table of children
    (several receivables an invoice) would count an invoice's value more than once."""
    sql = sql_for("logistics", question)
    assert "JOIN pedidos" in sql and "titulos" not in sql


@pytest.mark.parametrize(
    ("deployment", "question", "measure"),
    [
        ("logistics", "quanto faturei no primeiro trimestre?", "sum(nf.valor_nota) AS faturamento"),
        ("logistics", "quanto faturamos em maio?", "sum(nf.valor_nota) AS faturamento"),
        ("clinics", "quanto faturamos em maio?", "sum(e.valor) AS receita"),
    ],
)
def test_a_verb_names_its_metric(deployment: str, question: str, measure: str) -> None:
    sql = sql_for(deployment, question)
    assert measure in sql and "'FATURADO'" not in sql
    assert route_of(deployment, question) == "ANALYTICS"


def test_a_verb_about_named_rows_is_their_state() -> None:
    sql = sql_for("logistics", "quantos pedidos faturamos em maio?")
    assert "p.status = 'FATURADO'" in sql and "count(*)" in sql


@pytest.mark.parametrize(
    ("deployment", "question", "fragments"),
    [
        (
            "clinics",
            "qual foi o mês com mais faltas em 2025?",
            ["date_trunc('month', e.", "count(*)", "e.status = 'FALTOU'", "DESC LIMIT 1"],
        ),
        (
            "logistics",
            "which month had the most cancelled orders in 2025?",
            ["date_trunc('month', p.data_pedido)", "count(*)", "'CANCELADO'", "DESC LIMIT 1"],
        ),
    ],
)
def test_the_most_rows_in_a_state(deployment: str, question: str, fragments: list[str]) -> None:
    assert_in(sql_for(deployment, question), *fragments)


@pytest.mark.parametrize(
    ("deployment", "question", "shown"),
    [
        ("clinics", "qual o prazo do laudo 7 e quem é o médico?", ["l.prazo_em", "p.nome"]),
        ("logistics", "qual o valor e o cliente do pedido 109635?", ["p.valor_total", "c.nome"]),
    ],
)
def test_own_and_related_columns_of_one_row(
    deployment: str, question: str, shown: list[str]
) -> None:
    assert_in(select_list(sql_for(deployment, question)), *shown)


@pytest.mark.parametrize(
    ("deployment", "question", "expected"),
    [
        ("logistics", "custo médio de frete por modal", "ANALYTICS"),
        ("logistics", "what is the revenue by channel?", "ANALYTICS"),
        ("logistics", "what is the average lead time by carrier?", "ANALYTICS"),
        ("logistics", "o que é OTIF?", "KNOWLEDGE"),
        ("logistics", "what does OTIF mean?", "KNOWLEDGE"),
        ("logistics", "what is the difference between revenue and sales?", "KNOWLEDGE"),
        ("clinics", "qual o SLA de laudo por modalidade no último trimestre?", "ANALYTICS"),
        ("clinics", "what is the absenteeism rate by insurer in 2026?", "ANALYTICS"),
        ("clinics", "o que é absenteísmo?", "KNOWLEDGE"),
    ],
)
def test_a_data_question_worded_with_a_concept_is_data(
    deployment: str, question: str, expected: str
) -> None:
    assert route_of(deployment, question) == expected


def test_portuguese_plurals_the_stemmer_leaves_apart() -> None:
    assert "t.modal" in sql_for("logistics", "frete por kg por modais em 2026")


@pytest.mark.parametrize(
    ("deployment", "question", "fragments"),
    [
        (
            "logistics",
            "top 5 produtos mais vendidos em quantidade em 2026",
            ["p.status <> 'CANCELADO'", "p.data_pedido >= DATE '2026-01-01'"],
        ),
        (
            "logistics",
            "which product category sold the most units last year?",
            ["px.categoria", "p.data_pedido >= DATE '2025-01-01'", "JOIN pedidos"],
        ),
    ],
)
def test_rows_placed_in_time_and_kept_by_what_they_refer_to(
    deployment: str, question: str, fragments: list[str]
) -> None:
    """Items have no date: their order's places them, and "vendidos" keeps the sold ones
    (the sales metric's filter), though the measure is the quantity."""
    assert_in(sql_for(deployment, question), *fragments)


@pytest.mark.parametrize(
    ("deployment", "question", "grouped"),
    [
        ("logistics", "top 5 clientes por valor vencido", "GROUP BY 1, c.cod_cliente"),
        ("clinics", "top 3 especialidades por receita", "GROUP BY 1, ex.cod_especialidade"),
    ],
)
def test_groups_named_alike_stay_apart(deployment: str, question: str, grouped: str) -> None:
    assert grouped in sql_for(deployment, question)


def test_the_largest_total_ranks_groups() -> None:
    sql = sql_for("logistics", "qual cliente tem o maior valor vencido?")
    assert_in(sql, "sum(t.valor)", "c.nome", "DESC LIMIT 1")
    assert "max(" not in sql


@pytest.mark.parametrize(
    ("deployment", "question"),
    [
        ("logistics", "quem é o cliente que mais deve?"),
        ("logistics", "which customer owes the most?"),
        ("clinics", "qual paciente mais reclama?"),
    ],
)
def test_a_ranking_by_something_unknown_is_not_answered(deployment: str, question: str) -> None:
    catalog = CATALOGS[deployment]
    with pytest.raises(Unmappable):
        build_sql(parse(question, catalog, lexicon_for(catalog), TODAY), catalog, "2026-06-30")


def test_a_ranking_by_a_rows_own_amount_still_is() -> None:
    sql = sql_for("logistics", "qual foi a maior nota fiscal do mês passado?")
    assert "ORDER BY nf.valor_nota DESC LIMIT 1" in sql


def test_in_which_month_asks_for_one() -> None:
    assert "DESC LIMIT 1" in sql_for("logistics", "em qual mês faturamos mais em 2025?")


@pytest.mark.parametrize(
    ("deployment", "question", "measures"),
    [
        (
            "logistics",
            "qual o total e a média do valor dos pedidos em 2025?",
            ["sum(p.valor_total)", "avg(p.valor_total)"],
        ),
        (
            "clinics",
            "what is the total and the average revenue in 2025?",
            ["sum(e.valor)", "avg(e.valor)"],
        ),
    ],
)
def test_two_aggregates_of_one_subject(deployment: str, question: str, measures: list[str]) -> None:
    assert_in(select_list(sql_for(deployment, question)), *measures)


def test_a_word_naming_the_rows_table_and_its_column_beside_the_row_is_the_column() -> None:
    selected = select_list(sql_for("logistics", "qual o peso e o frete da carga 17038?"))
    assert "c.peso_total_kg" in selected and "c.valor_frete" in selected


@pytest.mark.parametrize(
    ("deployment", "question", "joined"),
    [
        ("clinics", "which unit had the most exams?", "JOIN unidades AS u ON e.cod_unidade"),
        ("logistics", "faturamento por fornecedor", "JOIN fornecedores AS f ON nf.cod_fornecedor"),
    ],
)
def test_the_tenants_own_table_joins_on_the_tenant_column(
    deployment: str, question: str, joined: str
) -> None:
    """One tenant's rows are grouped by that tenant (the guard keeps them its own)."""
    assert joined in sql_for(deployment, question)


@pytest.mark.parametrize(
    ("deployment", "question", "grouped"),
    [
        ("logistics", "custo de frete por nome da transportadora", "t.nome AS nome"),
        ("logistics", "soma do valor_frete por nome_transportadora em 2026", "t.nome AS nome"),
        ("clinics", "receita por nome do paciente", "p.nome AS nome"),
    ],
)
def test_a_column_and_the_table_that_has_it(deployment: str, question: str, grouped: str) -> None:
    assert grouped in sql_for(deployment, question)


@pytest.mark.parametrize(
    ("deployment", "previous", "message", "span"),
    [
        ("logistics", "faturamento de 2025", "e no primeiro trimestre?", "2025-01-01"),
        ("logistics", "revenue in 2025", "and in May?", "2025-05-01"),
        ("clinics", "receita de 2025", "e no 2º semestre?", "2025-07-01"),
    ],
)
def test_a_part_of_the_year_in_a_follow_up_is_the_years_before(
    deployment: str, previous: str, message: str, span: str
) -> None:
    catalog = CATALOGS[deployment]
    question = resolve(message, previous, catalog, lexicon_for(catalog), TODAY)
    assert f">= DATE '{span}'" in sql_for(deployment, question)


def test_the_later_recency_word_wins_in_a_follow_up() -> None:
    catalog = CATALOGS["logistics"]
    lexicon = lexicon_for(catalog)
    question = resolve("e o mais antigo?", "qual o pedido mais recente?", catalog, lexicon, TODAY)
    assert "ORDER BY p.data_pedido ASC LIMIT 1" in sql_for("logistics", question)


@pytest.mark.parametrize(
    ("deployment", "question", "expected", "absent"),
    [
        ("logistics", "qual o valor total faturado em maio?", "sum(nf.valor_nota)", "'FATURADO'"),
        ("logistics", "valor total das notas autorizadas em maio", "sum(nf.valor_nota)", "pedidos"),
        ("clinics", "qual o valor total dos exames realizados em maio?", "sum(e.valor)", "laudos"),
    ],
)  # fmt: skip
def test_the_amount_of_the_rows_named(
    deployment: str, question: str, expected: str, absent: str
) -> None:
    """A metric's own words are not a state of another table; "o valor total" of the rows
    named is their amount of that head word."""
    sql = sql_for(deployment, question)
    assert expected in sql and absent not in sql


@pytest.mark.parametrize(
    ("deployment", "question", "dated"),
    [
        ("logistics", "when was invoice 40908 issued?", "nf.data_emissao"),
        ("clinics", "when was report 7 signed?", "l.assinado_em"),
        ("clinics", "quando o laudo 7 foi assinado?", "l.assinado_em"),
    ],
)
def test_when_asks_for_the_rows_own_date_its_verb_names(
    deployment: str, question: str, dated: str
) -> None:
    assert dated in select_list(sql_for(deployment, question))
