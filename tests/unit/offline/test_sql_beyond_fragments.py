"""Readings checked by more than the fragments the SQL holds (so not in the `readings/`
fixtures): what is left of the SQL once the part a reading keeps is taken out, the part after
ORDER BY, the order the aggregates are said in, and the guard's own scoping of the SQL."""

from __future__ import annotations

import pytest

from orquestra.guards import GuardPolicy, guard_sql
from tests.unit.offline.offline_sql import CATALOGS, sql_for


@pytest.mark.parametrize(
    ("deployment", "question", "fragment"),
    [
        (
            "logistics",
            "how much money is sitting in orders we haven't invoiced yet?",
            "WHERE p.status = 'ABERTO'",
        ),
        ("logistics", "quantos pedidos ainda não foram faturados?", "WHERE p.status = 'ABERTO'"),
        (
            "logistics",
            "what's the value of orders we haven't invoiced yet?",  # its metric excludes one
            "AND p.status = 'ABERTO'",
        ),
        (
            "logistics",
            "quantas cargas ainda não foram entregues?",
            "c.status IN ('PLANEJADA', 'EM_TRANSITO', 'ATRASADA')",  # late: still not delivered
        ),
        (
            "clinics",
            "how many reports are still not signed?",
            "l.status IN ('AGUARDANDO', 'EM_ELABORACAO', 'AGUARDANDO_ASSINATURA')",
        ),
    ],
)
def test_not_reached_yet(deployment: str, question: str, fragment: str) -> None:
    sql = sql_for(deployment, question)
    assert fragment in sql, sql
    assert "<>" not in sql.split("WHERE", 1)[1].replace("<> 'CANCELADO'", ""), sql


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


@pytest.mark.parametrize(
    ("deployment", "question", "order"),
    [
        ("logistics", "freight cost per kilo by carrier in March 2026, cheapest first", "ASC"),
        ("logistics", "frete por kg por transportadora, maiores primeiro", "DESC"),
        ("logistics", "frete por kg por transportadora, menores primeiro", "ASC"),
        ("clinics", "turnaround by doctor, lowest first", "ASC"),
        ("clinics", "tempo de laudo por médico, menores primeiro", "ASC"),
    ],
)
def test_an_order_asked_for_a_whole_list_keeps_every_row(
    deployment: str, question: str, order: str
) -> None:
    """ "cheapest first" ranked one carrier, most expensive first (LIMIT 1, DESC)."""
    sql = sql_for(deployment, question)
    assert f" {order}" in sql.split("ORDER BY")[1], sql
    assert "LIMIT" not in sql, sql


def test_rows_without_others_run_through_the_guard() -> None:
    """The subquery's table is a tenant's table too: the guard scopes it as the outer one."""
    sql = sql_for("logistics", "clientes sem pedidos em 2026")
    guarded = guard_sql(sql, GuardPolicy.from_catalog(CATALOGS["logistics"]), "101").sql
    assert guarded.count("cod_fornecedor = $1") == 2, guarded
