"""Questions about one row in people's own words: a state only its events have ("já foi
entregue?", "has it been delivered yet?") or an arrival ("chegou", "cadê") asks for its
latest event, and "where" adds the event columns whose synonyms say where; several
attributes of one row are a lookup report (analytics), one attribute or its state stays
tracking; the newest row is found by ranking dates (analytics)."""

from __future__ import annotations

import pytest

from tests.unit.graph.offline.offline_sql import route_of, sql_for


@pytest.mark.parametrize(
    "question",
    [
        "a nota 41000 já foi entregue?",
        "has invoice 41000 been delivered yet?",
        "cadê a NF 41000?",
        "a nota 41000 chegou no destino?",
        "how is invoice 41000 going?",
    ],
)
def test_a_state_of_its_events_asks_the_latest_event(question: str) -> None:
    sql = sql_for("logistics", question)
    assert sql.startswith("SELECT DISTINCT ON (serie, num_nota)"), sql
    assert "last_updated DESC" in sql and "status" in sql


@pytest.mark.parametrize("question", ["onde está a NF 41000 agora?", "where is invoice 41000?"])
def test_where_adds_the_columns_that_say_where(question: str) -> None:
    assert "cidade" in sql_for("logistics", question)


@pytest.mark.parametrize(
    ("deployment", "question", "expected"),
    [
        # the router's definition: TRACKING is "the state or details of one specific entity
        # identified by its number or code" — one column of it or several, its own or a
        # related row's, as the hosted router is told
        ("logistics", "me diga a data e o valor do pedido 120000", "TRACKING"),
        ("logistics", "for shipment 17100 give me the departure date and the freight", "TRACKING"),
        ("logistics", "quem é o cliente da nota 41000 e de que cidade ele é?", "TRACKING"),
        ("clinics", "me passa a data e o valor do exame 1200", "TRACKING"),
        ("clinics", "what's the priority and the deadline of report 15000?", "TRACKING"),
        ("clinics", "quem assinou o laudo 6000 e quando?", "TRACKING"),
        ("logistics", "qual o valor do pedido 120000?", "TRACKING"),
        ("logistics", "quem é o cliente do pedido 120000?", "TRACKING"),
        ("logistics", "which carrier is carrying invoice 41000?", "TRACKING"),
        ("logistics", "is invoice 41000 on hold, and if so what's the reason?", "TRACKING"),
        ("logistics", "a nota 41000 está bloqueada? qual o motivo?", "TRACKING"),
        ("clinics", "o laudo 7 já foi assinado?", "TRACKING"),
        # "how much" of one row's measure, or of a row it refers to, is its value
        ("logistics", "quanto custou o frete da carga 17110?", "TRACKING"),
        (
            "clinics",
            "O exame que gerou o laudo 11046 foi por qual plano de saúde e quanto custou?",
            "TRACKING",
        ),
        # no number: a row found by ranking dates, as other rankings
        ("logistics", "show me the latest blocked invoice", "ANALYTICS"),
        # a related row found by ranking dates, named by its columns
        ("logistics", "cliente 2003: número e data do pedido mais antigo", "ANALYTICS"),
        ("clinics", "qual o exame mais recente cancelado?", "ANALYTICS"),
        # a number that names a group of rows: numbers over them
        ("logistics", "quantos pedidos o cliente 1498 fez em 2026?", "ANALYTICS"),
        ("clinics", "how many exams did patient 300 have this year?", "ANALYTICS"),
        ("logistics", "quanto o cliente 1498 comprou?", "ANALYTICS"),  # a sum of its orders
    ],
)
def test_the_details_of_one_numbered_row_are_tracking(
    deployment: str, question: str, expected: str
) -> None:
    assert route_of(deployment, question) == expected


def test_the_row_named_beside_the_entity_is_shown_by_its_name() -> None:
    sql = sql_for("logistics", "who is the customer of invoice 41000 and which city are they in?")
    assert "c.nome" in sql and "c.cidade" in sql


@pytest.mark.parametrize(
    ("deployment", "question", "fragments"),
    [
        # a metric's name used of its rows: its filter, ordered by its date
        (
            "logistics",
            "qual é o título vencido mais antigo?",
            ["t.status = 'VENCIDO'", "ORDER BY t.vencimento ASC LIMIT 1"],
        ),
        ("clinics", "what is the oldest late report?", ["ORDER BY", "ASC LIMIT 1", "prazo_em <"]),
        # the date a verb names that records it happening, and only rows that have it
        (
            "logistics",
            "qual foi a última carga que a gente entregou?",
            ["c.data_entrega IS NOT NULL", "ORDER BY c.data_entrega DESC LIMIT 1"],
        ),
        (
            "clinics",
            "which was the last report we signed?",
            ["l.assinado_em IS NOT NULL", "ORDER BY l.assinado_em DESC LIMIT 1"],
        ),
    ],
)
def test_the_newest_rows_in_the_order_of_their_own_date(
    deployment: str, question: str, fragments: list[str]
) -> None:
    sql = sql_for(deployment, question)
    for fragment in fragments:
        assert fragment in sql, f"{fragment!r} not in {sql}"


@pytest.mark.parametrize(
    "question",
    [
        "quem é o médico responsável pelo laudo 8000?",
        "qual foi o resultado da revisão de qualidade do laudo 5000?",
    ],
)
def test_one_column_of_a_row_named_beside_it_is_one_attribute(question: str) -> None:
    assert route_of("clinics", question) == "TRACKING"


@pytest.mark.parametrize(
    "question", ["a NF 41000 tá travada? por quê?", "why is invoice 41000 on hold?"]
)
def test_why_a_row_is_in_its_state_shows_the_state_and_the_reason(question: str) -> None:
    sql = sql_for("logistics", question)
    assert "nf.status" in sql and "nf.motivo_bloqueio" in sql, sql
