"""A measure asked by its verb, in both languages and on both sample deployments: the verb
shares its root with a word of a glossary metric's name or synonyms ("quanto gastamos com
frete", "how much did we bill"), and a table's own rows in a state stay that state."""

from __future__ import annotations

import pytest

from tests.unit.graph.offline.offline_sql import sql_for


@pytest.mark.parametrize(
    ("deployment", "question", "fragments"),
    [
        ("logistics", "how much did we sell in 2025?", ["sum(p.valor_total)", "'CANCELADO'"]),
        ("logistics", "quanto vendemos no ano passado?", ["sum(p.valor_total)", "'2025-01-01'"]),
        ("logistics", "how much have we billed this year?", ["sum(nf.valor_nota)", "AUTORIZADA"]),
        ("logistics", "how much did we invoice in April?", ["sum(nf.valor_nota)", "'2026-04-01'"]),
        ("logistics", "what did we spend on freight last year?", ["sum(c.valor_frete)"]),
        ("logistics", "quanto gastamos com frete em 2026?", ["sum(c.valor_frete)"]),
        ("clinics", "how much did we bill in March?", ["sum(e.valor)", "'REALIZADO'"]),
        ("clinics", "quanto faturei em 2025?", ["sum(e.valor)", "'2025-01-01'"]),
        # every word of a metric's phrase said, the verb among them, whoever did it
        (
            "clinics",
            "quantas horas a equipe trabalhou em abril?",
            ["sum(p.horas)", "p.status = 'CUMPRIDO'", "p.data >= DATE '2026-04-01'"],
        ),
    ],
)
def test_a_verb_asks_for_its_metric(deployment: str, question: str, fragments: list[str]) -> None:
    sql = sql_for(deployment, question)
    for fragment in fragments:
        assert fragment in sql, f"{fragment!r} not in {sql}"


@pytest.mark.parametrize(
    ("deployment", "question", "fragment", "absent"),
    [
        ("logistics", "quantos pedidos faturamos em março?", "p.status = 'FATURADO'", "valor_nota"),
        ("clinics", "quantos laudos não assinados?", "l.assinado_em IS NULL", "'ASSINADO'"),
    ],
)
def test_a_tables_rows_in_a_state_stay_that_state(
    deployment: str, question: str, fragment: str, absent: str
) -> None:
    sql = sql_for(deployment, question)
    assert fragment in sql and absent not in sql, sql


@pytest.mark.parametrize(
    ("deployment", "question", "fragments", "absent"),
    [
        # an amount named, then a verb: the amount of the rows the verb is about, not a
        # metric that merely shares the verb's root ("late shipments")
        (
            "logistics",
            "what total weight did we ship last year?",
            ["sum(c.peso_total_kg)"],
            "count(",
        ),
        (
            "logistics",
            "quantos quilos despachamos no ano passado?",
            ["sum(c.peso_total_kg)", "'2025-01-01'"],
            "peso_kg)",
        ),
        # the metric that sums the amount named still answers ("hours worked")
        ("clinics", "how many hours did we work in May?", ["sum(p.horas)", "CUMPRIDO"], "count("),
    ],
)
def test_an_amount_named_keeps_the_verb_to_its_rows(
    deployment: str, question: str, fragments: list[str], absent: str
) -> None:
    sql = sql_for(deployment, question)
    assert all(f in sql for f in fragments), sql
    assert absent not in sql, sql


@pytest.mark.parametrize(
    ("deployment", "question", "fragments"),
    [
        # an amount averaged that one metric sums counts that metric's rows
        (
            "logistics",
            "quanto custa em média o frete de uma carga por transportadora?",
            ["avg(c.valor_frete)", "c.status <> 'CANCELADA'"],
        ),
        (
            "logistics",
            "what's the average freight per shipment by carrier?",
            ["avg(c.valor_frete)", "c.status <> 'CANCELADA'"],
        ),
        ("clinics", "what's the average exam value per insurer?", ["avg(e.valor)", "'REALIZADO'"]),
        # the question's own state comes first
        ("logistics", "qual o frete médio das cargas canceladas?", ["c.status = 'CANCELADA'"]),
    ],
)
def test_an_amount_averaged_counts_the_rows_its_metric_sums(
    deployment: str, question: str, fragments: list[str]
) -> None:
    sql = sql_for(deployment, question)
    assert all(f in sql for f in fragments), sql


@pytest.mark.parametrize(
    "question",
    [
        "qual transportadora saiu mais cara por quilo em 2025?",
        "which carrier was the most expensive per kilo last year?",
    ],
)
def test_per_a_columns_unit_names_the_metric_in_that_unit(question: str) -> None:
    # "por quilo": the metric measured in money per kilogram, not the kilos; the clinics
    # glossary has no metric per a unit
    sql = sql_for("logistics", question)
    assert "sum(c.valor_frete) / NULLIF(sum(c.peso_total_kg), 0)" in sql, sql
    assert "sum(p.peso_kg)" not in sql and "frete_por_kg DESC LIMIT 1" in sql, sql


@pytest.mark.parametrize(
    "question",
    [
        "qual transportadora saiu mais barata por quilo em 2025?",
        "which carrier was the cheapest per kilo last year?",
    ],
)
def test_the_cheapest_is_the_lowest(question: str) -> None:
    assert "frete_por_kg ASC LIMIT 1" in sql_for("logistics", question)


@pytest.mark.parametrize(
    ("question", "order"),
    [
        ("qual o produto mais barato?", "ASC LIMIT 1"),
        ("what's the cheapest product?", "ASC LIMIT 1"),
        ("qual o produto mais caro?", "DESC LIMIT 1"),
    ],
)
def test_cheap_and_dear_rank_one_row_by_its_amount(question: str, order: str) -> None:
    assert order in sql_for("logistics", question)
