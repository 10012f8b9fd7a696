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
        ("logistics", "me diga a data e o valor do pedido 120000", "ANALYTICS"),
        ("logistics", "for shipment 17100 give me the departure date and the freight", "ANALYTICS"),
        ("logistics", "quem é o cliente da nota 41000 e de que cidade ele é?", "ANALYTICS"),
        ("clinics", "me passa a data e o valor do exame 1200", "ANALYTICS"),
        ("logistics", "qual o valor do pedido 120000?", "TRACKING"),
        ("logistics", "which carrier is carrying invoice 41000?", "TRACKING"),
        ("logistics", "is invoice 41000 on hold, and if so what's the reason?", "TRACKING"),
        ("clinics", "o laudo 7 já foi assinado?", "TRACKING"),
        ("logistics", "show me the latest blocked invoice", "ANALYTICS"),
        ("clinics", "qual o exame mais recente cancelado?", "ANALYTICS"),
    ],
)
def test_one_attribute_is_tracking_several_are_a_report(
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
    ("deployment", "question", "expected"),
    [
        ("clinics", "what's the priority and the deadline of report 15000?", "ANALYTICS"),
        ("clinics", "quem assinou o laudo 6000 e quando?", "ANALYTICS"),
        ("logistics", "quem é o cliente do pedido 120000?", "TRACKING"),
        ("logistics", "a nota 41000 está bloqueada? qual o motivo?", "TRACKING"),
    ],
)
def test_a_state_column_is_the_rows_state_other_enumerations_are_attributes(
    deployment: str, question: str, expected: str
) -> None:
    assert route_of(deployment, question) == expected


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
