"""Seventh round of the offline model: a list of measures after its rows ("cargas de maio:
quantidade, frete e peso"), and a list that goes on after its first "e"/"and" clause
("quantos …, quanto deu de receita e qual o ticket médio"), each its own measure; a counting
word that is also another table's column ("quantidade de cargas") counts the rows named."""

from __future__ import annotations

import pytest

from tests.unit.graph.offline.offline_sql import sql_for


@pytest.mark.parametrize(
    ("deployment", "question", "wanted"),
    [
        (
            "logistics",
            "Cargas despachadas no primeiro trimestre de 2026: quantidade, gasto com frete e "
            "peso total em kg.",
            ["count(*) AS quantidade", "AS custo_de_frete", "sum(c.peso_total_kg)", "FROM cargas"],
        ),
        (
            "logistics",
            "loads shipped in May: number, freight cost and total weight",
            ["count(*) AS quantidade", "AS custo_de_frete", "sum(c.peso_total_kg)", "2026-05-01"],
        ),
        (
            "clinics",
            "Preciso disso pra reunião de amanhã: quantos exames a gente fez no primeiro "
            "trimestre de 2026, quanto isso deu de receita e qual foi o ticket médio",
            ["count(*) AS quantidade", "AS receita", "AS ticket_medio"],
        ),
        (
            "logistics",
            "how many loads did we dispatch in Q1, what did we spend on freight and how many "
            "kilos?",
            ["count(*) AS quantidade", "AS custo_de_frete", "sum(c.peso_total_kg)"],
        ),
        (
            "logistics",
            "quantidade de cargas despachadas em maio",
            ["SELECT count(*) AS quantidade FROM cargas"],
        ),
        (  # "shipped" is what the loads did in May (their date), not the orders' state
            "logistics",
            "number of loads shipped in May",
            ["SELECT count(*) AS quantidade FROM cargas AS c WHERE (c.data_saida >="],
        ),
        (  # an item that is a table's word too is its amount called so, never dropped
            "logistics",
            "cargas de maio: quantidade, frete e peso",
            ["count(*) AS quantidade", "sum(c.valor_frete)", "sum(c.peso_total_kg)"],
        ),
        (
            "logistics",
            "loads in May: count, freight and weight",
            ["count(*) AS quantidade", "sum(c.valor_frete)", "sum(c.peso_total_kg)"],
        ),
        (  # the units of the products' own items: an amount, not a count
            "logistics",
            "quantidade de produtos vendidos em maio",
            ["sum(ip.quantidade)"],
        ),
    ],
)
def test_measures_listed(deployment: str, question: str, wanted: list[str]) -> None:
    sql = sql_for(deployment, question)
    assert all(w in sql for w in wanted), sql
