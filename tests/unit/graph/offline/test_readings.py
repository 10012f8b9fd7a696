"""How the offline model reads people's own phrasing, on both sample deployments.

Each reading is a general rule over the catalog's metadata (synonyms, values, nullable
timestamps, joins, glossary metrics), so each is checked in the logistics demo and in the
clinics deployment, in Portuguese and in English where the language has the construction.
No database is needed: the SQL is checked by what it says.
"""

from __future__ import annotations

import pytest

from orquestra.offline.lexicon import verb_roots
from tests.unit.graph.offline.offline_sql import route_of, sql_for


@pytest.mark.parametrize(
    ("word", "root"),
    [("realizamos", "realiz"), ("comunicados", "comunic"), ("cadastramos", "cadastr")],
)
def test_verb_roots(word: str, root: str) -> None:
    assert root in verb_roots(word)


def test_short_roots_are_not_compared() -> None:
    assert verb_roots("pagos") == [] and verb_roots("emitiu") == []


@pytest.mark.parametrize(
    ("deployment", "with_verb", "without"),
    [
        ("clinics", "quais laudos estão vencidos?", "quais laudos vencidos?"),
        ("logistics", "quais cargas estão atrasadas?", "quais cargas atrasadas?"),
    ],
)
def test_a_linking_verb_does_not_split_a_name(
    deployment: str, with_verb: str, without: str
) -> None:
    assert sql_for(deployment, with_verb) == sql_for(deployment, without)


@pytest.mark.parametrize(
    ("deployment", "question", "rows", "defining"),
    [
        ("clinics", "quais laudos estão vencidos?", "l.num_laudo", ("l.prazo_em", "l.status")),
        ("logistics", "quais cargas estão atrasadas?", "c.cod_carga", ("c.previsao_entrega",)),
    ],
)
def test_listing_a_counting_metric_lists_its_rows(
    deployment: str, question: str, rows: str, defining: tuple[str, ...]
) -> None:
    sql = sql_for(deployment, question)
    assert sql.startswith(f"SELECT {rows}") and "count(" not in sql.lower()
    assert all(column in sql.split(" FROM ")[0] for column in defining)
    assert "< CAST('2026-06-30' AS date)" in sql  # the metric's own filter, as of today
    assert route_of(deployment, question) == "TRACKING"


@pytest.mark.parametrize(
    ("deployment", "question", "state", "time"),
    [
        ("clinics", "quantos exames realizamos em maio?", "'REALIZADO'", "e.data_realizacao"),
        ("clinics", "how many exams did we perform in May?", "'REALIZADO'", "e.data_realizacao"),
        ("clinics", "how many exams performed in May?", "'REALIZADO'", "e.data_realizacao"),
        ("logistics", "quantos pedidos faturamos em maio?", "'FATURADO'", "p.data_pedido"),
    ],
)
def test_a_verb_means_the_state_and_its_time(
    deployment: str, question: str, state: str, time: str
) -> None:
    sql = sql_for(deployment, question)
    assert f"status = {state}" in sql
    assert f"{time} >= DATE '2026-05-01' AND {time} < DATE '2026-06-01'" in sql


@pytest.mark.parametrize(
    "question",
    ["quantos pacientes cadastramos em 2026?", "quantos pacientes novos cadastramos em 2026?"],
)
def test_a_verb_picks_the_time_column_it_names(question: str) -> None:
    sql = sql_for("clinics", question)
    assert "p.cadastrado_em >= DATE '2026-01-01'" in sql and "data_nascimento" not in sql


@pytest.mark.parametrize(
    ("deployment", "question", "condition", "absent"),
    [
        (
            "clinics",
            "how many critical findings have never been communicated?",
            "la.comunicado_em IS NULL",
            None,
        ),
        (
            "clinics",
            "quantos achados críticos não foram comunicados?",
            "la.comunicado_em IS NULL",
            None,
        ),
        ("clinics", "quantos laudos não assinados?", "l.assinado_em IS NULL", "'ASSINADO'"),
        (
            "logistics",
            "how many loads were not delivered?",
            "c.data_entrega IS NULL",
            "'ENTREGUE'",
        ),
        ("logistics", "quantos pedidos não faturados temos?", "p.status <> 'FATURADO'", None),
    ],
)
def test_what_did_not_happen(
    deployment: str, question: str, condition: str, absent: str | None
) -> None:
    sql = sql_for(deployment, question)
    assert condition in sql
    assert absent is None or absent not in sql


@pytest.mark.parametrize(
    "question",
    [
        "how many critical findings have never been communicated?",
        "quantos achados críticos tivemos?",
    ],
)
def test_a_table_named_by_its_state_filters_by_it(question: str) -> None:
    assert "la.classificacao = 'CRITICO'" in sql_for("clinics", question)


@pytest.mark.parametrize(
    ("deployment", "question", "column"),
    [
        ("clinics", "qual é o prazo do laudo 5120?", "l.prazo_em"),
        ("clinics", "what is the deadline of report 5120?", "l.prazo_em"),
        ("logistics", "qual o valor do frete da carga 17038?", "c.valor_frete"),
    ],
)
def test_one_rows_attribute_is_not_the_metric_spelled_the_same(
    deployment: str, question: str, column: str
) -> None:
    sql = sql_for(deployment, question)
    assert column in sql and "avg(" not in sql.lower() and "sum(" not in sql.lower()
    assert route_of(deployment, question) == "TRACKING"


@pytest.mark.parametrize(
    ("deployment", "question", "name"),
    [
        ("clinics", "quem é o médico responsável pelo laudo 5090?", "p.nome"),
        ("clinics", "who is the physician of report 5090?", "p.nome"),
        ("logistics", "qual a transportadora da carga 17038?", "t.nome"),
        ("logistics", "quem é o cliente do pedido 7001?", "c.nome"),
    ],
)
def test_a_referenced_row_is_named(deployment: str, question: str, name: str) -> None:
    assert name in sql_for(deployment, question).split(" FROM ")[0]


def test_a_reference_column_asked_of_one_row_brings_its_name() -> None:
    sql = sql_for("clinics", "qual o médico responsável do laudo 5091?")
    assert "JOIN profissionais AS p ON l.cod_medico = p.cod_profissional" in sql
    assert "p.nome AS nome_medico" in sql and "LEFT JOIN" not in sql


def test_an_optional_reference_keeps_the_row_without_one() -> None:
    # An exam not yet performed has no technician: the row must still come back.
    sql = sql_for("clinics", "quem foi o executante do exame 726429?")
    assert "LEFT JOIN profissionais AS p ON e.cod_tecnico = p.cod_profissional" in sql
    assert "p.nome AS nome_tecnico" in sql


@pytest.mark.parametrize(
    ("deployment", "question", "shown", "hidden"),
    [
        # parts of the entity, keyed by it: what each one says
        (
            "clinics",
            "quais os achados do laudo 5110?",
            ("la.descricao", "la.classificacao"),
            (),
        ),
        ("clinics", "which findings are in report 5110?", ("la.item", "la.descricao"), ()),
        # things tied to it: which ones
        ("logistics", "quais notas estão na carga 17038?", ("nf.num_nota",), ("nf.valor_nota",)),
        ("logistics", "which carrier is carrying invoice 44879?", ("t.nome",), ("t.modal",)),
    ],
)
def test_related_rows_show_parts_whole_and_things_by_name(
    deployment: str, question: str, shown: tuple[str, ...], hidden: tuple[str, ...]
) -> None:
    selected = sql_for(deployment, question).split(" FROM ")[0]
    assert all(c in selected for c in shown) and not any(c in selected for c in hidden)


def test_an_asked_column_of_a_related_row_comes_with_the_entity() -> None:
    sql = sql_for("clinics", "qual o resultado da revisão de qualidade do laudo 5100?")
    assert sql.startswith("SELECT DISTINCT l.num_laudo,") and "rq.resultado" in sql


def test_a_metric_counted_in_its_own_unit_is_the_metric() -> None:
    sql = sql_for("clinics", "quantas horas extras fizeram em abril?")
    assert "sum(p.horas)" in sql and "p.tipo = 'EXTRA'" in sql


def test_counting_a_metric_in_other_words_counts_its_rows() -> None:
    sql = sql_for("logistics", "quantos títulos vencidos temos?")
    assert "count(*)" in sql and "status = 'VENCIDO'" in sql


@pytest.mark.parametrize(
    ("deployment", "question"),
    [
        ("clinics", "quantos laudos em atraso existem hoje?"),
        ("clinics", "how many late reports do we have today?"),
        ("logistics", "how many late loads do we have today?"),
    ],
)
def test_today_on_a_state_measured_as_of_today_is_not_a_period(
    deployment: str, question: str
) -> None:
    sql = sql_for(deployment, question)
    assert "< CAST('2026-06-30' AS date)" in sql and ">= DATE '2026-06-30'" not in sql


def test_today_still_places_rows_of_other_metrics() -> None:
    assert ">= DATE '2026-06-30'" in sql_for("logistics", "faturamento de hoje")


@pytest.mark.parametrize(
    "question",
    [
        "posso trocar um plantão com um colega?",
        "o que acontece quando um laudo passa do prazo?",
        "what happens when a report is late?",
        "should i report a critical finding by phone?",
    ],
)
def test_permission_and_consequence_questions_are_knowledge(question: str) -> None:
    assert route_of("clinics", question) == "KNOWLEDGE"


@pytest.mark.parametrize(
    "question", ["posso ver os laudos atrasados?", "can i see the late reports?"]
)
def test_asking_to_see_data_is_not_a_permission_question(question: str) -> None:
    assert route_of("clinics", question) != "KNOWLEDGE"


@pytest.mark.parametrize(
    ("deployment", "question", "state"),
    [
        ("clinics", "how many missed shifts were there last month?", "p.status = 'FALTA'"),
        ("clinics", "quantos plantões faltou alguém este ano?", "p.status = 'FALTA'"),
    ],
)
def test_a_state_belongs_to_the_table_named_whatever_the_order(
    deployment: str, question: str, state: str
) -> None:
    sql = sql_for(deployment, question)
    assert state in sql and "exames" not in sql
