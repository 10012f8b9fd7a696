"""Sixth round of the offline model: readings that follow from the catalog rather than from
a phrasing. A code spelled like a pronoun ("US", "us") is the code only when typed in
capitals; a grouping only another table's rows have is said, not answered with their
column; an amount by what its items hold sums the items' own amount; unknown filler is
ignored, an unknown kind of the rows is said. In both languages, on both deployments."""

from __future__ import annotations

import pytest

from orquestra.offline import _write_sql
from orquestra.offline.lexicon import lexicon_for
from tests.unit.graph.offline.offline_sql import CATALOGS, TODAY, sql_for


@pytest.mark.parametrize(
    "question",
    [
        "Unimed or Bradesco - who paid us more in 2025?",
        "how much did Unimed pay us in 2025?",
        "which insurer sent us the most exams this year?",
    ],
)
def test_the_pronoun_us_is_not_the_exam_type(question: str) -> None:
    assert "'US'" not in sql_for("clinics", question)


@pytest.mark.parametrize(
    "question", ["how many US exams in May?", "quantos exames de US em maio?", "exames US em 2025"]
)
def test_the_code_typed_in_capitals_is_the_exam_type(question: str) -> None:
    assert "te.modalidade = 'US'" in sql_for("clinics", question)


@pytest.mark.parametrize(
    ("question", "lang", "said"),
    [
        ("pedidos cancelados por motivo", "pt", 'pedidos não têm "motivo"'),
        ("cancelled orders by reason", "en", 'orders have no "reason"'),
    ],
)
def test_a_grouping_only_other_rows_have_is_said_not_answered(
    question: str, lang: str, said: str
) -> None:
    # The reason is an invoice's (invoices refer to orders): orders are not grouped by it.
    catalog = CATALOGS["logistics"]
    written = _write_sql(question, catalog, lexicon_for(catalog), TODAY, {}, lang)
    assert written["sql"] == "" and said in written["missing_info"], written


@pytest.mark.parametrize(
    ("deployment", "question", "wanted"),
    [
        ("logistics", "notas bloqueadas por motivo", "GROUP BY 1"),
        ("logistics", "pedidos por cidade", "c.cidade"),
        ("clinics", "exames por convênio", "e.convenio"),
    ],
)
def test_a_grouping_of_the_rows_or_of_what_they_refer_to_stays(
    deployment: str, question: str, wanted: str
) -> None:
    assert wanted in sql_for(deployment, question)


@pytest.mark.parametrize(
    "question",
    [
        "valor vendido por categoria de produto em 2026",
        "quanto vendemos por categoria em 2025?",
        "how much did we sell per product category last year?",
        "sales value by product in 2025",
    ],
)
def test_an_amount_by_what_its_items_hold_sums_the_items_own_amount(question: str) -> None:
    # Items refer to their order, and their description defines an item's value as
    # quantidade * valor_unitario: summing the order's total per item would count it again.
    sql = sql_for("logistics", question)
    assert "sum(ip.quantidade * ip.valor_unitario)" in sql and "p.status <> 'CANCELADO'" in sql


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        ("how much did we sell per customer last year?", "sum(p.valor_total)"),
        ("how much did we bill per customer in 2025?", "sum(nf.valor_nota)"),
        ("quanto faturamos por cliente em 2025?", "sum(nf.valor_nota)"),
    ],
)
def test_a_verbs_metric_is_grouped_by_the_table_named_after_per(question: str, wanted: str) -> None:
    sql = sql_for("logistics", question)
    assert wanted in sql and "GROUP BY 1, c.cod_cliente" in sql, sql


def _said(deployment: str, question: str, lang: str) -> dict:
    catalog = CATALOGS[deployment]
    return _write_sql(question, catalog, lexicon_for(catalog), TODAY, {}, lang)


@pytest.mark.parametrize(
    ("deployment", "question", "lang", "word"),
    [
        ("logistics", "quantos pedidos urgentes em maio?", "pt", "urgentes"),
        ("logistics", "how many fragile orders in May?", "en", "fragile"),
        ("clinics", "quantos exames pediátricos em maio?", "pt", "pediatricos"),
        ("clinics", "how many outpatient exams last month?", "en", "outpatient"),
    ],
)
def test_an_unknown_kind_of_the_rows_is_said_not_dropped(
    deployment: str, question: str, lang: str, word: str
) -> None:
    # Answering for all the rows would answer another question.
    written = _said(deployment, question, lang)
    assert written["sql"] == "" and f'"{word}"' in written["missing_info"], written


@pytest.mark.parametrize(
    ("deployment", "question", "lang"),
    [
        ("logistics", "qual o faturamento de maio, por favor, obrigado", "pt"),
        ("logistics", "faturamento de maio exatamente, valeu", "pt"),
        ("logistics", "quantos pedidos recebidos em maio?", "pt"),
        ("logistics", "why is invoice 41208 on hold?", "en"),
        ("clinics", "quantos pacientes novos cadastramos em 2026?", "pt"),
        ("clinics", "revenue in May, thanks a lot", "en"),
    ],
)
def test_filler_words_are_ignored_and_the_rest_answered(
    deployment: str, question: str, lang: str
) -> None:
    assert _said(deployment, question, lang)["sql"], question


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        ("me mostra as unidades pedidas por categoria de produto em 2026", "sum(ip.quantidade)"),
        ("units ordered by product category in 2026", "sum(ip.quantidade)"),
        ("peso por transportadora em 2025", "sum(c.peso_total_kg)"),
        ("weight by carrier in 2025", "sum(c.peso_total_kg)"),
    ],
)
def test_an_amount_named_and_grouped_is_summed_where_the_rows_refer_to_the_group(
    question: str, wanted: str
) -> None:
    sql = sql_for("logistics", question)
    assert wanted in sql and ("2026-01-01" in sql or "2025-01-01" in sql), sql


@pytest.mark.parametrize(
    ("deployment", "question"),
    [
        ("logistics", "quantas notas tão retidas hoje?"),
        ("logistics", "how many invoices are on hold today?"),
        ("clinics", "quantos laudos estão atrasados hoje?"),
    ],
)
def test_a_state_holding_today_is_the_rows_in_it_now(deployment: str, question: str) -> None:
    assert "2026-06-30' AND" not in sql_for(deployment, question)


@pytest.mark.parametrize(
    ("deployment", "question"),
    [
        ("logistics", "quantas notas foram emitidas hoje?"),
        ("clinics", "how many exams are scheduled today?"),
        ("clinics", "quantos exames estão agendados pra hoje?"),
    ],
)
def test_a_state_done_today_or_dated_today_keeps_the_day(deployment: str, question: str) -> None:
    assert ">= DATE '2026-06-30'" in sql_for(deployment, question)


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("total sales for July through December 2025?", "2025-07-01", "2026-01-01"),
        ("monthly revenue for Jul-Dec 2025", "2025-07-01", "2026-01-01"),
        ("faturamento de julho até dezembro de 2025", "2025-07-01", "2026-01-01"),
        ("Quanto já faturamos de janeiro até hoje?", "2026-01-01", "2026-07-01"),
        ("revenue since March", "2026-03-01", "2026-07-01"),
        ("quantas ocorrências desde o dia 16/06?", "2026-06-16", "2026-07-01"),
        ("how many tracking events over the past week?", "2026-06-23", "2026-07-01"),
    ],
)
def test_ranges_and_since_are_one_period(question: str, start: str, end: str) -> None:
    sql = sql_for("logistics", question)
    assert f">= DATE '{start}'" in sql and f"< DATE '{end}'" in sql and " OR " not in sql, sql


@pytest.mark.parametrize(
    ("deployment", "question", "wanted"),
    [
        ("logistics", "Quem é o cliente com o maior valor em boletos vencidos?", "sum(t.valor)"),
        ("logistics", "the three categories with the highest sales in 2026", "px.categoria"),
        ("logistics", "Give me the three product categories with the highest sales", "LIMIT 3"),
        ("logistics", "qual transportadora tem o maior valor de frete?", "sum(c.valor_frete)"),
    ],
)
def test_groups_with_the_highest_amount_are_ranked_by_their_total(
    deployment: str, question: str, wanted: str
) -> None:
    sql = sql_for(deployment, question)
    assert wanted in sql and "max(" not in sql and "DESC LIMIT" in sql, sql


@pytest.mark.parametrize(
    ("question", "direction"),
    [
        ("Which month of 2025 was our strongest for billing?", "DESC"),
        ("qual foi o mês mais fraco de vendas em 2025?", "ASC"),
        ("what was our weakest month in 2025?", "ASC"),
    ],
)
def test_strongest_and_weakest_rank_like_best_and_worst(question: str, direction: str) -> None:
    sql = sql_for("logistics", question)
    assert "date_trunc('month'" in sql and f"{direction} LIMIT 1" in sql, sql


@pytest.mark.parametrize(
    ("deployment", "question"),
    [
        ("logistics", "How many separate invoices had at least one delivery incident this year?"),
        ("logistics", "quantas notas separadas tiveram ocorrência em 2026?"),
    ],
)
def test_separate_counts_distinct_rows(deployment: str, question: str) -> None:
    assert "count(DISTINCT" in sql_for(deployment, question)


def test_side_by_side_is_how_to_show_not_a_grouping() -> None:
    sql = sql_for("logistics", "Q1 2026 sales against Q1 2025, side by side please")
    assert "FILTER (WHERE p.data_pedido >= DATE '2025-01-01'" in sql, sql


@pytest.mark.parametrize(
    "question",
    [
        "Me mostra a carga entregue mais recentemente e a data da entrega.",
        "what was the last shipment delivered?",
    ],
)
def test_the_latest_row_in_a_state_is_ordered_by_that_states_date(question: str) -> None:
    assert "ORDER BY c.data_entrega DESC LIMIT 1" in sql_for("logistics", question)


@pytest.mark.parametrize(
    ("deployment", "question", "start", "end"),
    [
        (
            "logistics",
            "Qual a participação do EDI nos pedidos deste ano?",
            "2026-01-01",
            "2027-01-01",
        ),
        (
            "clinics",
            "taxa de discordância nos quatro primeiros meses do ano",
            "2026-01-01",
            "2026-05-01",
        ),
        ("clinics", "no-show rate in the first 3 months of 2025", "2025-01-01", "2025-04-01"),
    ],
)
def test_this_year_and_the_first_months_in_every_wording(
    deployment: str, question: str, start: str, end: str
) -> None:
    sql = sql_for(deployment, question)
    assert f">= DATE '{start}'" in sql and f"< DATE '{end}'" in sql, sql


@pytest.mark.parametrize(
    ("deployment", "question", "wanted"),
    [
        ("clinics", "Em maio, qual dos técnicos realizou o menor número de exames?", "ASC LIMIT 1"),
        ("clinics", "which doctor signed the highest number of reports in 2025?", "DESC LIMIT 1"),
    ],
)
def test_the_smallest_or_highest_number_of_rows_ranks_who_did_them(
    deployment: str, question: str, wanted: str
) -> None:
    sql = sql_for(deployment, question)
    assert "GROUP BY 1, p.cod_profissional" in sql and "count(*)" in sql and wanted in sql, sql


@pytest.mark.parametrize(
    ("question", "direction"),
    [("qual o menor pedido de 2025?", "ASC"), ("qual o maior pedido de 2025?", "DESC")],
)
def test_the_smallest_row_is_the_other_end(question: str, direction: str) -> None:
    assert f"ORDER BY p.valor_total {direction} LIMIT 1" in sql_for("logistics", question)


def test_combined_value_is_a_total() -> None:
    sql = sql_for("logistics", "Number of orders placed in May 2026 and their combined value?")
    assert "count(*)" in sql and "sum(p.valor_total)" in sql, sql


@pytest.mark.parametrize(
    ("deployment", "question", "wanted", "unwanted"),
    [
        (
            "logistics",
            "notas emitidas em jun/26: quantas bloqueadas, quantas canceladas?",
            "count(*) FILTER (WHERE nf.status = 'CANCELADA')",
            "EMITIDA",
        ),
        (
            "clinics",
            "Dos exames agendados para junho/2026, quantos eram no total e em quantos o "
            "paciente não apareceu?",
            "count(*) FILTER (WHERE e.status = 'FALTOU')",
            "AGENDADO",
        ),
    ],
)
def test_a_state_said_before_the_clauses_places_all_their_rows(
    deployment: str, question: str, wanted: str, unwanted: str
) -> None:
    sql = sql_for(deployment, question)
    assert wanted in sql and unwanted not in sql and "DATE '2026-06-01'" in sql, sql


@pytest.mark.parametrize(
    ("question", "filtered"),
    [
        ("Quanto faturamos em 2025 com cada tipo de cliente (varejo, atacado etc.)?", False),
        ("faturamento de varejo e atacado por segmento", True),
    ],
)
def test_values_given_as_examples_of_the_groups_filter_nothing(
    question: str, filtered: bool
) -> None:
    sql = sql_for("logistics", question)
    assert "GROUP BY 1" in sql and ("c.segmento IN" in sql) == filtered, sql


@pytest.mark.parametrize(
    ("question", "direction"),
    [
        ("cliente 2003: número e data do pedido mais antigo", "ASC"),
        ("customer 2003: number and date of their latest order", "DESC"),
    ],
)
def test_columns_of_a_related_row_first_in_time(question: str, direction: str) -> None:
    sql = sql_for("logistics", question)
    assert "c.cod_cliente = 2003" in sql and f"ORDER BY p.data_pedido {direction} LIMIT 1" in sql


@pytest.mark.parametrize(
    ("question", "limit"),
    [
        ("Das transportadoras, qual é a que menos entrega no prazo?", "LIMIT 1"),
        ("qual transportadora tem o pior OTIF?", "LIMIT 1"),
        ("quais clientes compraram mais em 2025?", "LIMIT 10"),
    ],
)
def test_one_asked_for_wherever_which_stands(question: str, limit: str) -> None:
    assert sql_for("logistics", question).endswith(limit)
