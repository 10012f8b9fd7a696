"""A balance the glossary marks `snapshot: true` (what is open or overdue, a queue) asked
"today"/"now" is its value now, not its rows dated today; a flow (revenue, orders placed)
asked today is the day's; a period asked for still places a balance's rows by its date."""

from __future__ import annotations

import pytest

from orquestra.ddl_catalog.render import render_term
from tests.unit.graph.offline.offline_sql import CATALOGS, sql_for

TODAY = "DATE '2026-06-30'"


@pytest.mark.parametrize(
    ("deployment", "question"),
    [
        ("logistics", "saldo em aberto hoje"),
        ("logistics", "quantos boletos estão em atraso hoje e qual o valor total deles?"),
        ("logistics", "qual a inadimplência hoje?"),
        ("logistics", "how much is outstanding today?"),
        ("clinics", "quantos laudos atrasados hoje?"),
        ("clinics", "how many late reports are there today?"),
    ],
)
def test_a_balance_today_is_its_value_now(deployment: str, question: str) -> None:
    sql = sql_for(deployment, question)
    assert f">= {TODAY}" not in sql, sql


@pytest.mark.parametrize(
    ("deployment", "question", "fragment"),
    [
        ("logistics", "faturamento de hoje", f">= {TODAY}"),
        ("logistics", "what is our revenue today?", f">= {TODAY}"),
        ("logistics", "quantos pedidos foram feitos hoje?", f">= {TODAY}"),
        ("logistics", "títulos vencidos em maio", ">= DATE '2026-05-01'"),
    ],
)
def test_a_flow_today_or_a_balance_over_a_period_keeps_its_dates(
    deployment: str, question: str, fragment: str
) -> None:
    assert fragment in sql_for(deployment, question)


def test_the_sql_writer_is_told_which_metrics_are_balances() -> None:
    terms = {t.term: t for t in CATALOGS["logistics"].glossary}
    assert "a balance" in render_term(terms["contas a receber"])
    assert "a balance" not in render_term(terms["faturamento"])
