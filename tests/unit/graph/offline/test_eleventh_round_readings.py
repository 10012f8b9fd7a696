"""Eleventh round of the offline model: how a term is worked out is a knowledge question;
rows more than N days past their deadline; an amount's maximum, minimum and average asked
together."""

from __future__ import annotations

import pytest

from tests.unit.graph.offline.offline_sql import route_of, sql_for


@pytest.mark.parametrize(
    ("deployment", "question"),
    [
        ("logistics", "How is the delinquency rate worked out?"),
        ("logistics", "quando falam em carteira de pedidos, o que entra nessa conta?"),
        ("logistics", "o que compõe a carteira de pedidos?"),
        ("logistics", "what goes into the order backlog?"),
        ("clinics", "how is the no-show rate figured out?"),
        ("clinics", "o que entra nesse cálculo de taxa de falta?"),
    ],
)
def test_how_a_term_is_worked_out_is_knowledge(deployment: str, question: str) -> None:
    """ "How is the delinquency rate worked out?" was answered with the rate's value."""
    assert route_of(deployment, question) == "KNOWLEDGE"


def test_the_same_term_with_a_period_is_still_data() -> None:
    assert route_of("logistics", "what goes into the order backlog this month?") == "ANALYTICS"


@pytest.mark.parametrize(
    ("deployment", "question", "condition"),
    [
        ("logistics", "quantos títulos vencidos há mais de 60 dias?", "t.vencimento < "),
        ("logistics", "quanto a gente tem vencido ha mais de 60 dias?", "t.vencimento < "),
        ("logistics", "how many bills are more than 30 days overdue?", "t.vencimento < "),
        ("logistics", "títulos vencidos a mais de 90 dias por cliente", "t.vencimento < "),
        ("clinics", "laudos com prazo estourado há mais de 2 dias", "l.prazo_em < "),
    ],
)
def test_rows_past_their_deadline_by_more_than_some_days(
    deployment: str, question: str, condition: str
) -> None:
    """ "vencido há mais de 60 dias" was every overdue bill, and its "mais" ranked ten."""
    sql = sql_for(deployment, question)
    days = next(n for n in ("60", "30", "90", "2") if n in question)
    assert f"{condition}CAST('2026-06-30' AS date) - {days}" in sql, sql
    assert not sql.endswith(("LIMIT 10", "LIMIT 1")), sql  # no ranking of "mais"


def test_days_past_due_with_a_second_measure() -> None:
    sql = sql_for(
        "logistics", "how many bills are over 30 days past due, and what do they add up to?"
    )
    assert "count(*)" in sql and "sum(t.valor)" in sql, sql
    assert "t.vencimento < CAST('2026-06-30' AS date) - 30" in sql, sql


@pytest.mark.parametrize(
    "question", ["pedidos com mais de 3 itens", "quantos pedidos tivemos nos últimos 30 dias?"]
)
def test_more_than_some_days_needs_a_deadline_passed(question: str) -> None:
    assert "- 3" not in sql_for("logistics", question)
    assert "- 30" not in sql_for("logistics", question)


@pytest.mark.parametrize(
    ("deployment", "question", "aggregates"),
    [
        ("logistics", "maior frete e frete médio das cargas aéreas", ["max", "avg"]),
        (
            "logistics",
            "For air shipments, what's the highest freight we paid on a single load and "
            "what's the average?",
            ["max", "avg"],
        ),
        (
            "logistics",
            "qual o menor, o maior e o valor médio dos pedidos em 2026?",
            ["min", "max", "avg"],
        ),
        ("logistics", "maior e menor peso de carga em maio", ["max", "min"]),
        (
            "clinics",
            "qual o maior, o menor e o valor médio dos exames em maio?",
            ["max", "min", "avg"],
        ),
    ],
)
def test_an_amounts_extremes_and_average_asked_together(
    deployment: str, question: str, aggregates: list[str]
) -> None:
    """ "o maior frete e o frete médio" gave the load with the highest freight (LIMIT 1)."""
    sql = sql_for(deployment, question)
    found = [a for a in ("max", "min", "avg") if f"{a}(" in sql.split(" FROM ")[0].lower()]
    assert sorted(found) == sorted(aggregates), sql
    positions = [sql.lower().index(f"{a}(") for a in aggregates]
    assert positions == sorted(positions), sql  # in the order said
    assert "LIMIT" not in sql and "GROUP BY" not in sql, sql


def test_the_extremes_of_a_metric_keep_its_filter() -> None:
    sql = sql_for("logistics", "valor médio e máximo dos títulos vencidos")
    assert "WHERE (t.status = 'VENCIDO')" in sql and "max(t.valor)" in sql, sql


@pytest.mark.parametrize(
    "question", ["qual o maior pedido de 2026?", "qual o maior cliente e qual a média de compras?"]
)
def test_one_extreme_or_a_grouped_one_still_ranks(question: str) -> None:
    assert "LIMIT 1" in sql_for("logistics", question)


@pytest.mark.parametrize(
    ("deployment", "question", "over"),
    [
        ("logistics", "média de itens por pedido em 2026", "count(DISTINCT ip.num_pedido)"),
        (
            "logistics",
            "On average, how many orders did each customer place in 2025?",
            "count(DISTINCT p.cod_cliente)",
        ),
        ("logistics", "média de pedidos por cliente", "count(DISTINCT p.cod_cliente)"),
        (
            "logistics",
            "quantas cargas em média por transportadora em 2026?",
            "count(DISTINCT c.cod_transportadora)",
        ),
        ("clinics", "média de exames por paciente em 2026", "count(DISTINCT e.cod_paciente)"),
        (
            "clinics",
            "how many reports per physician on average in May?",
            "count(DISTINCT l.cod_medico)",
        ),
    ],
)
def test_an_average_count_per_row_of_another_table(
    deployment: str, question: str, over: str
) -> None:
    """ "média de itens por pedido" averaged a product's price per order; "on average, how
    many orders did each customer place" listed every customer's count."""
    sql = sql_for(deployment, question)
    assert sql.startswith(f"SELECT count(*)::numeric / NULLIF({over}, 0) AS "), sql
    assert "GROUP BY" not in sql and "LIMIT" not in sql, sql


def test_an_average_per_row_keeps_the_period_of_the_rows_they_belong_to() -> None:
    sql = sql_for("logistics", "média de itens por pedido em 2026")
    assert "p.data_pedido >= DATE '2026-01-01'" in sql, sql


@pytest.mark.parametrize(
    "question", ["ticket médio por cliente", "valor médio dos pedidos por cliente"]
)
def test_an_average_amount_per_group_is_still_grouped(question: str) -> None:
    sql = sql_for("logistics", question)
    assert "avg(" in sql and "GROUP BY" in sql, sql


@pytest.mark.parametrize(
    ("deployment", "question", "kept"),
    [
        ("logistics", "quantas notas foram emitidas em junho?", None),
        ("logistics", "list the invoices issued in 2023", None),
        ("logistics", "liste as notas bloqueadas emitidas em maio", "nf.status = 'BLOQUEADA'"),
        (
            "logistics",
            "How many authorized invoices have we issued since April 15?",
            "nf.status = 'AUTORIZADA'",
        ),
        ("clinics", "exames agendados em maio", None),
    ],
)
def test_the_first_state_placed_in_a_past_period_is_its_event(
    deployment: str, question: str, kept: str | None
) -> None:
    """ "quantas notas foram emitidas em junho" counted the notes still waiting in the
    EMITIDA state (none), not the notes issued in June."""
    sql = sql_for(deployment, question)
    assert "'EMITIDA'" not in sql and "'AGENDADO'" not in sql, sql
    if kept:
        assert kept in sql, sql


@pytest.mark.parametrize(
    ("deployment", "question", "state"),
    [
        ("clinics", "quantos exames agendados para amanhã?", "e.status = 'AGENDADO'"),
        ("clinics", "quantos exames agendados para hoje?", "e.status = 'AGENDADO'"),
        ("logistics", "quantas notas emitidas?", "nf.status = 'EMITIDA'"),
        ("logistics", "notas emitidas ou canceladas em maio", "'EMITIDA', 'CANCELADA'"),
    ],
)
def test_the_first_state_stays_a_state_without_a_past_period(
    deployment: str, question: str, state: str
) -> None:
    assert state in sql_for(deployment, question)


@pytest.mark.parametrize(
    ("deployment", "question", "wanted"),
    [
        ("logistics", "quais clientes têm título vencido há mais de 60 dias?", "ANALYTICS"),
        (
            "logistics",
            "Quais clientes compraram em maio/26 mas não fizeram nenhum pedido em junho?",
            "ANALYTICS",
        ),
        ("logistics", "quais clientes de MG compraram da gente em 2026? só os nomes", "ANALYTICS"),
        ("logistics", "quais clientes têm títulos vencidos?", "TRACKING"),
        ("clinics", "quais pacientes fizeram exame em maio?", "ANALYTICS"),
    ],
)
def test_rows_listed_by_their_others_period_or_age_are_analytics(
    deployment: str, question: str, wanted: str
) -> None:
    """ "quais clientes compraram em 2026" was routed as rows in a state right now."""
    assert route_of(deployment, question) == wanted


@pytest.mark.parametrize(
    ("deployment", "question"),
    [
        ("logistics", "tenho uma NF travada aqui, como faço pra liberar?"),
        ("logistics", "minha nota ficou bloqueada, o que eu faço pra liberar ela?"),
        ("logistics", "quem pode liberar uma nota bloqueada e em quanto tempo ela sai?"),
        ("logistics", "Qual é o procedimento para liberar uma nota retida?"),
        ("logistics", "No aging dos títulos vencidos, quais são as faixas que vocês usam?"),
        ("logistics", "OTIF - what exactly counts as on time for you guys?"),
        ("logistics", "how are we supposed to compute freight per kg?"),
        ("logistics", "Does accounts receivable include renegotiated bills?"),
        ("clinics", "meu laudo ficou pendente, como faço pra liberar?"),
        ("clinics", "who can sign a report?"),
    ],
)
def test_a_procedure_is_knowledge_even_of_ones_own_rows(deployment: str, question: str) -> None:
    """ "tenho uma NF travada, como faço pra liberar?" read "tenho" as asking for data."""
    assert route_of(deployment, question) == "KNOWLEDGE"


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        ("quantas notas bloqueadas eu tenho?", "ANALYTICS"),
        ("what was my revenue in May?", "ANALYTICS"),
        ("nfs bloqueadas agora: qtas são e qto $ tá travado nelas?", "ANALYTICS"),
        ("how many invoices are on hold right now?", "TRACKING"),
        ("What's going on with invoice 41193? Latest status, where it is", "TRACKING"),
        ("pedido 120725 — cadê a mercadoria? qual o último status e em que cidade", "TRACKING"),
        ("qual o último pedido do cliente 1002?", "ANALYTICS"),
    ],
)
def test_routes_of_counts_now_and_of_one_rows_latest_state(question: str, wanted: str) -> None:
    """Two measures of the rows in a state now are a summary; "o último status" of one row
    is its state, not a ranking of other rows."""
    assert route_of("logistics", question) == wanted


def test_one_rows_latest_state_is_read_from_its_own_row() -> None:
    """ "pedido 120725: qual o último status" failed: its products have no date to order by."""
    sql = sql_for("logistics", "pedido 120725 — cadê a mercadoria? qual o último status?")
    assert "p.num_pedido = 120725" in sql and "p.status" in sql, sql


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("quantas ocorrências no 1º sem/26?", "2026-01-01", "2026-07-01"),
        ("quantas notas emitidas no 2º sem/25?", "2025-07-01", "2026-01-01"),
        ("quantos títulos emitidos no 1º tri/26?", "2026-01-01", "2026-04-01"),
        ("quantos pedidos no 1º trim de 2025?", "2025-01-01", "2025-04-01"),
        ("frete por kg de jul/25 a jun/26", "2025-07-01", "2026-07-01"),
        ("frete por kg de julho de 2025 a junho de 2026", "2025-07-01", "2026-07-01"),
        ("freight per kg from July 2025 to June 2026", "2025-07-01", "2026-07-01"),
    ],
)
def test_parts_of_a_year_and_month_ranges_with_their_years(
    question: str, start: str, end: str
) -> None:
    """ "1º sem/26" was no period; "de jul/25 a jun/26" was two months, July and June."""
    sql = sql_for("logistics", question)
    assert f">= DATE '{start}'" in sql and f"< DATE '{end}'" in sql, sql
    assert " OR " not in sql, sql


def test_a_state_of_another_tables_rows_said_as_their_event_in_the_other_gender() -> None:
    """ "títulos emitidos": the receivables issued, not those of invoices still EMITIDA."""
    sql = sql_for("logistics", "quantos títulos emitidos no 1º tri/26?")
    assert "EMITIDA" not in sql and "JOIN" not in sql, sql


@pytest.mark.parametrize(
    "question",
    [
        "quantas cargas em maio? Desconsidera as canceladas.",
        "how many loads in May? exclude the cancelled ones",
        "quantas cargas em maio, sem contar as canceladas?",
    ],
)
def test_rows_left_out_by_an_order(question: str) -> None:
    assert "c.status <> 'CANCELADA'" in sql_for("logistics", question)


@pytest.mark.parametrize(
    ("deployment", "question", "measure"),
    [
        ("logistics", "quantas cargas e quantos kg em maio?", "sum(c.peso_total_kg)"),
        ("logistics", "kg por transportadora em 2026", "sum(c.peso_total_kg)"),
    ],
)
def test_a_measures_unit_names_it(deployment: str, question: str, measure: str) -> None:
    """ "quantos kg" named nothing: "kg" is the weight's unit, not one of its synonyms."""
    assert measure in sql_for(deployment, question)


@pytest.mark.parametrize(
    "question",
    [
        "Preciso do nº de títulos pagos e do total recebido em maio",
        "qual o nº de cargas em maio?",
        "nro de cargas em maio",
    ],
)
def test_the_number_sign_before_de_counts(question: str) -> None:
    assert "count(*)" in sql_for("logistics", question)


def test_the_number_sign_before_a_number_is_still_a_key() -> None:
    assert "nf.num_nota = 40908" in sql_for("logistics", "nota nº 40908")


@pytest.mark.parametrize(
    "question",
    [
        "histórico da nota 41510 com status, cidade e data de cada evento",
        "me passa o histórico completo de rastreio da nota 41510 em ordem cronológica (status,"
        " cidade e data/hora de cada evento)",
    ],
)
def test_each_event_of_one_rows_history_is_a_line_not_a_group(question: str) -> None:
    """ "… de cada evento" grouped the invoice's events by their description."""
    sql = sql_for("logistics", question)
    assert "GROUP BY" not in sql and sql.endswith("ORDER BY last_updated"), sql


def test_a_rows_latest_event_is_still_read_from_its_events() -> None:
    sql = sql_for(
        "logistics", "qual o status atual da nota 41518 e a descrição do último evento dela?"
    )
    assert "FROM eventos_rastreamento" in sql and "last_updated DESC" in sql, sql


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("quantas notas autorizadas foram emitidas no dia 15/06/2026?", "2026-06-15", "2026-06-16"),
        ("quantas notas no dia 15/06?", "2026-06-15", "2026-06-16"),
        ("how many invoices on 2026-06-15?", "2026-06-15", "2026-06-16"),
        ("quantas notas em 15 de junho de 2026?", "2026-06-15", "2026-06-16"),
        ("quantas notas entre 10 e 20 de maio de 2026?", "2026-05-10", "2026-05-21"),
        ("quantas notas de 10 a 20 de maio?", "2026-05-10", "2026-05-21"),
        ("how many invoices between May 10 and May 20?", "2026-05-10", "2026-05-21"),
        ("how many invoices on June 15, 2026?", "2026-06-15", "2026-06-16"),
        ("clientes que não fizeram pedido de abril pra cá", "2026-04-01", "2026-07-01"),
    ],
)
def test_days_and_days_of_a_month_named(question: str, start: str, end: str) -> None:
    """ "no dia 15/06/2026" was the whole of 2026; "entre 10 e 20 de maio" all of May."""
    sql = sql_for("logistics", question)
    assert f">= DATE '{start}'" in sql and f"< DATE '{end}'" in sql, sql


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("quantas ocorrências desde o dia 16/06?", "2026-06-16", "2026-07-01"),
        ("top 5 clientes por faturamento de maio", "2026-05-01", "2026-06-01"),
        ("pedidos em 05/2026", "2026-05-01", "2026-06-01"),
    ],
)
def test_other_periods_with_digits_stay_as_they_were(question: str, start: str, end: str) -> None:
    sql = sql_for("logistics", question)
    assert f">= DATE '{start}'" in sql and f"< DATE '{end}'" in sql, sql


def test_leaving_rows_out_is_not_their_departure() -> None:
    sql = sql_for(
        "logistics", "total weight shipped each month in Q1 2026, leaving out cancelled loads"
    )
    assert "c.status <> 'CANCELADA'" in sql, sql


@pytest.mark.parametrize(
    ("deployment", "question", "dated"),
    [
        ("logistics", "qtas cargas foram entregues ontem?", "c.data_entrega >= DATE '2026-06-29'"),
        ("logistics", "loads delivered yesterday", "c.data_entrega >= DATE '2026-06-29'"),
        ("clinics", "exames realizados ontem", "e.data_realizacao >= DATE '2026-06-29'"),
    ],
)
def test_a_later_event_said_with_a_day_dates_the_rows_by_its_own_date(
    deployment: str, question: str, dated: str
) -> None:
    """ "cargas entregues ontem" counted the loads that left yesterday."""
    assert dated in sql_for(deployment, question)


@pytest.mark.parametrize(
    "question",
    [
        "quem é o pior pagador hj? o cliente com mais dinheiro vencido",
        "quem é o pior pagador hoje? o cliente com mais dinheiro vencido",
    ],
)
def test_today_of_a_balances_state_is_now(question: str) -> None:
    """ "o pior pagador hoje" ranked only the bills due today (none)."""
    sql = sql_for("logistics", question)
    assert "t.vencimento" not in sql and sql.endswith("LIMIT 1"), sql


def test_a_balances_state_said_in_the_past_today_keeps_the_day() -> None:
    sql = sql_for("logistics", "títulos que venceram hoje")
    assert "t.vencimento >= DATE '2026-06-30'" in sql, sql


@pytest.mark.parametrize(
    ("deployment", "question", "condition"),
    [
        (
            "logistics",
            "How many invoices did we issue with an interstate CFOP (the ones starting with 6)"
            " in Q2 2026?",
            "nf.cfop ILIKE '6%'",
        ),
        ("logistics", "notas com cfop começando com 5 em maio", "nf.cfop ILIKE '5%'"),
        ("logistics", "clientes com nome começando com Loja", "c.nome ILIKE 'Loja%'"),
        ("clinics", "pacientes com nome começando com Ana", "p.nome ILIKE 'Ana%'"),
    ],
)
def test_a_value_said_to_start_with_something(
    deployment: str, question: str, condition: str
) -> None:
    """ "CFOP começando com 6" was every invoice."""
    assert condition in sql_for(deployment, question)


@pytest.mark.parametrize(
    "question",
    [
        "avg order value by customer segment in Q1 2026, cancelled orders excluded",
        "valor médio dos pedidos por segmento em 2026, cancelados excluídos",
    ],
)
def test_rows_left_out_after_their_name(question: str) -> None:
    """ "cancelled orders excluded" kept only the cancelled orders."""
    assert "p.status <> 'CANCELADO'" in sql_for("logistics", question)


@pytest.mark.parametrize(
    ("question", "group"),
    [
        ("no estado de SP, qual cidade faturou mais pra gente em 2025?", "c.cidade AS cidade"),
        ("em SP, qual cidade faturou mais em 2025?", "c.cidade AS cidade"),
    ],
)
def test_what_which_asks_is_ranked_past_what_places_the_question(question: str, group: str) -> None:
    """ "no estado de SP, qual cidade…" ranked states (one: SP), not cities."""
    sql = sql_for("logistics", question)
    assert sql.startswith(f"SELECT {group}") and "c.uf = 'SP'" in sql, sql


@pytest.mark.parametrize(
    ("deployment", "question", "rows"),
    [
        (
            "logistics",
            "which loads are late right now? load number and promised date",
            "WHERE (c.data_entrega IS NULL AND c.status <> 'CANCELADA'",
        ),
        (
            "logistics",
            "quantas cargas estão atrasadas agora?",
            "WHERE (c.data_entrega IS NULL AND c.status <> 'CANCELADA'",
        ),
    ],
)
def test_rows_late_now_are_the_open_ones(deployment: str, question: str, rows: str) -> None:
    """ "late right now" listed loads delivered late months ago too."""
    sql = sql_for(deployment, question)
    assert rows in sql and "> c.previsao_entrega" not in sql, sql


def test_rows_late_in_a_period_keep_both_kinds() -> None:
    sql = sql_for("logistics", "quantas cargas atrasadas em maio?")
    assert "CAST(c.data_entrega AS date) > c.previsao_entrega OR" in sql, sql


def test_the_same_days_said_again_are_one_period() -> None:
    """ "this quarter (since Apr 1)" compared the quarter with itself."""
    sql = sql_for("logistics", "orders this quarter (since Apr 1)")
    assert "FILTER" not in sql and sql.count("DATE '2026-04-01'") == 1, sql


def test_running_late_now_is_not_also_compared_as_ended() -> None:
    sql = sql_for(
        "logistics", "Which shipments are running late right now and still not delivered?"
    )
    assert "> c.previsao_entrega" not in sql and "c.previsao_entrega < " in sql, sql


# Misfires a probe review of this round found, each mended


@pytest.mark.parametrize(
    ("deployment", "question", "wanted"),
    [
        (
            "logistics",
            "qual o status do último pedido do cliente 1002?",
            "ORDER BY p.data_pedido DESC",
        ),
        ("logistics", "customer 1002: latest order and its status", "ORDER BY p.data_pedido DESC"),
    ],
)
def test_the_status_of_a_related_rows_latest_is_that_rows(
    deployment: str, question: str, wanted: str
) -> None:
    """ "qual o status do último pedido do cliente 1002" gave the customer's segment."""
    sql = sql_for(deployment, question)
    assert wanted in sql and "p.status" in sql, sql


@pytest.mark.parametrize(
    ("deployment", "question"),
    [
        ("clinics", "média de exames por unidade"),
        ("logistics", "média de pedidos por fornecedor"),
        ("logistics", "média de frete por transportadora"),
        ("logistics", "média de pedidos por segmento"),
    ],
)
def test_no_average_count_per_tenant_amount_or_kind(deployment: str, question: str) -> None:
    """ "média de exames por unidade" wrote count(DISTINCT ) (the tenant's own table)."""
    sql = sql_for(deployment, question)
    assert "count(DISTINCT )" not in sql and "::numeric /" not in sql, sql


@pytest.mark.parametrize(
    "question",
    [
        "qual o mês de maior e o de menor faturamento?",
        "which month had the highest and lowest revenue in 2025?",
    ],
)
def test_extremes_of_groups_are_not_read_as_rows(question: str) -> None:
    sql = sql_for("logistics", question)
    assert "GROUP BY" in sql and "max(nf.valor_nota)" not in sql, sql


def test_a_state_a_balance_leaves_out_is_not_its_balance() -> None:
    """ "pagos hoje" matched the receivables balance's `status <> 'PAGO'` and lost its day."""
    assert "DATE '2026-06-30'" in sql_for("logistics", "quantos títulos foram pagos hoje?")


@pytest.mark.parametrize(
    ("deployment", "question", "state"),
    [
        ("clinics", "exames agendados em junho que ainda não foram realizados", "'AGENDADO'"),
        ("logistics", "invoices issued in May that are still pending", "'EMITIDA'"),
    ],
)
def test_rows_still_in_their_first_state_keep_it(
    deployment: str, question: str, state: str
) -> None:
    assert state in sql_for(deployment, question)


@pytest.mark.parametrize(
    ("deployment", "question"),
    [
        ("logistics", "quem costuma atrasar mais as cargas?"),
        ("logistics", "o que fazemos de faturamento por mês?"),
        ("logistics", "how can I get the revenue for May?"),
        ("logistics", "como faço para saber quantos pedidos tivemos em maio?"),
        ("logistics", "who should I chase for overdue bills?"),
        ("clinics", "quem costuma assinar mais laudos?"),
        ("clinics", "quem pode dar plantão amanhã?"),
    ],
)
def test_data_asked_in_a_procedures_words_stays_data(deployment: str, question: str) -> None:
    assert route_of(deployment, question) != "KNOWLEDGE"


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("faturamento de 2 de maio a 15 de junho", "2026-05-02", "2026-06-16"),
        ("faturamento do dia 1 ao dia 15 de junho", "2026-06-01", "2026-06-16"),
        ("revenue from May 28 to June 3", "2026-05-28", "2026-06-04"),
        ("faturamento maio 26", "2026-05-01", "2026-06-01"),
        ("pedidos de 15 de junho", "2026-06-15", "2026-06-16"),
    ],
)
def test_day_ranges_across_months_and_a_months_year(question: str, start: str, end: str) -> None:
    sql = sql_for("logistics", question)
    assert f">= DATE '{start}'" in sql and f"< DATE '{end}'" in sql, sql
    assert "num_pedido = 15" not in sql, sql


def test_a_history_grouped_by_a_column_keeps_its_grouping() -> None:
    sql = sql_for("logistics", "histórico de rastreio da nota 41518 agrupado por uf")
    assert "GROUP BY" in sql and "er.uf" in sql, sql


def test_a_start_said_as_a_letter() -> None:
    sql = sql_for("logistics", "quantos clientes começam com a letra M?")
    assert "c.nome ILIKE 'M%'" in sql, sql


@pytest.mark.parametrize(
    ("question", "condition"),
    [
        (
            "quantos títulos vencidos há 90 dias ou mais?",
            "t.vencimento < CAST('2026-06-30' AS date) - 89",
        ),
        ("títulos vencidos há mais de 1 dia", "t.vencimento < CAST('2026-06-30' AS date) - 1"),
    ],
)
def test_more_ageing_wordings(question: str, condition: str) -> None:
    assert condition in sql_for("logistics", question)


def test_rows_late_by_days_are_the_open_ones() -> None:
    """ "cargas atrasadas há mais de 5 dias" kept loads delivered one day late long ago."""
    sql = sql_for("logistics", "cargas atrasadas há mais de 5 dias")
    assert "c.data_entrega IS NULL" in sql and "> c.previsao_entrega" not in sql, sql
    assert "c.previsao_entrega < CAST('2026-06-30' AS date) - 5" in sql, sql


def test_when_a_week_starts_is_not_a_value_starting() -> None:
    """ "(semana começando na segunda)" filtered exam types starting with "na"."""
    sql = sql_for("clinics", "exames realizados por semana em junho (semana começando na segunda)")
    assert "ILIKE" not in sql, sql


def test_an_ordinal_first_day_of_a_range() -> None:
    sql = sql_for("clinics", "total de horas trabalhadas por setor de 1º a 28 de junho")
    assert ">= DATE '2026-06-01'" in sql and "< DATE '2026-06-29'" in sql, sql


@pytest.mark.parametrize(
    "question",
    [
        "Que % do faturamento de 2026 veio de clientes da indústria?",
        "faturamento de clientes da indústria em 2026",
    ],
)
def test_a_value_of_the_rows_named_is_not_another_tables_name(question: str) -> None:
    """ "clientes da indústria" read "indústria" as the suppliers' table, not the segment."""
    assert "c.segmento = 'INDUSTRIA'" in sql_for("logistics", question)


@pytest.mark.parametrize("question", ["quantos kg em maio?", "quantos kg foram entregues em maio?"])
def test_a_unit_of_several_tables_said_with_a_period_is_the_dated_ones(question: str) -> None:
    """ "quantos kg em maio" summed the product catalogue's weights and dropped the month."""
    sql = sql_for("logistics", question)
    assert "sum(c.peso_total_kg)" in sql and ">= DATE '2026-05-01'" in sql, sql


@pytest.mark.parametrize("question", ["faturamento junho 26", "faturamento janeiro 15"])
def test_a_portuguese_month_before_a_number_is_not_an_english_day(question: str) -> None:
    """English month names only read "June 15" as a day: "junho 26" is no 26 June."""
    sql = sql_for("logistics", question)
    assert "DATE '2026-06-26'" not in sql and "DATE '2026-01-15'" not in sql, sql
