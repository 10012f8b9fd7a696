"""Seventh round of the offline model, questions about one row: a yes/no question whose
other table is a verb's subject ("did the customer receive invoice 12?", "o paciente faltou
ao exame 7?") asks the row's state, not that table's row; its state asked beside its own
columns ("status e motivo", "status and value") is read from its own row; a state asked
beside a column only its events hold ("em que cidade… e qual o status") keeps that column."""

from __future__ import annotations

import pytest

from tests.unit.graph.offline.offline_sql import route_of, sql_for

EVENTS = "FROM eventos_rastreamento WHERE num_nota = 40321 ORDER BY"


@pytest.mark.parametrize(
    ("deployment", "question", "wanted", "unwanted"),
    [
        (
            "logistics",
            "Did the customer already receive the goods on invoice 40321?",
            ["num_nota, status " + EVENTS],
            ["c.nome"],
        ),
        ("logistics", "o cliente já recebeu a nota 40321?", ["status " + EVENTS], ["c.nome"]),
        ("clinics", "o paciente faltou ao exame 720831?", ["e.status"], ["p.nome"]),
        ("clinics", "Exam 720831: did the patient attend or miss it?", ["e.status"], ["p.nome"]),
        ("clinics", "did the patient show up for exam 720831?", ["e.status"], ["p.nome"]),
        # an interrogative asks for the other table's row, as before
        ("clinics", "quem é o paciente do exame 720831?", ["p.nome"], []),
        ("logistics", "cliente da nota 40321", ["c.nome"], []),
        # a state word after the table is its rows' state, in a ranking
        ("logistics", "ultima NF emitida pro cliente 1900", ["ORDER BY nf.data_emissao DESC"], []),
    ],
)
def test_a_yes_no_about_one_row_asks_its_state(
    deployment: str, question: str, wanted: list[str], unwanted: list[str]
) -> None:
    sql = sql_for(deployment, question)
    assert all(w in sql for w in wanted) and not any(u in sql for u in unwanted), sql


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        (
            "qual o status da nota fiscal 44974 e, se estiver retida, qual o motivo?",
            "SELECT nf.num_nota, nf.status, nf.motivo_bloqueio FROM notas_fiscais",
        ),
        (
            "what's the status and value of invoice 44974?",
            "SELECT nf.num_nota, nf.status, nf.valor_nota FROM notas_fiscais",
        ),
        (
            "em que cidade estava a nota 44974 e qual o status?",
            "num_nota, status, cidade FROM eventos_rastreamento",
        ),
        ("status da nota 44974", "num_nota, status FROM eventos_rastreamento"),
    ],
)
def test_a_state_beside_other_columns(question: str, wanted: str) -> None:
    assert route_of("logistics", question) == "TRACKING"
    assert wanted in sql_for("logistics", question)
