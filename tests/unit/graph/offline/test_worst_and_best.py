"""Which end of a ranking "pior"/"worst" and "melhor"/"best" mean, read from the glossary:
a metric said to be better when higher ranks its worst from the lowest; a time taken is
better when lower; a metric that says nothing ranks the most first for both words."""

from __future__ import annotations

import pytest

from orquestra.ddl_catalog.model import GlossaryTerm
from orquestra.offline.ranking import better
from tests.unit.graph.offline.offline_sql import CATALOGS, sql_for


@pytest.mark.parametrize(
    ("deployment", "question", "order"),
    [
        ("logistics", "qual modal teve o pior OTIF em 2025?", "ORDER BY otif ASC LIMIT 1"),
        ("logistics", "which carrier has the worst on-time rate?", "ORDER BY otif ASC LIMIT 1"),
        ("logistics", "which carrier has the best on-time rate?", "ORDER BY otif DESC LIMIT 1"),
        ("logistics", "qual transportadora tem o melhor lead time?", "lead_time ASC LIMIT 1"),
        ("logistics", "which carrier had the worst lead time?", "lead_time DESC LIMIT 1"),
        ("logistics", "o pior cliente em atraso", "DESC LIMIT 1"),
        ("clinics", "which unit has the best turnaround time?", "tempo_de_laudo ASC LIMIT 1"),
        ("clinics", "qual unidade tem o pior tempo de laudo?", "tempo_de_laudo DESC LIMIT 1"),
    ],
)
def test_worst_and_best_follow_the_metrics_direction(
    deployment: str, question: str, order: str
) -> None:
    assert order in sql_for(deployment, question)


@pytest.mark.parametrize(
    ("deployment", "question", "fragments"),
    [
        # "our best month": the possessive opens the ranking, the grain is its subject
        (
            "logistics",
            "what was our best month for revenue in 2025?",
            ["date_trunc('month'", "DESC LIMIT 1"],
        ),
        (
            "clinics",
            "qual foi o nosso melhor mês de receita em 2025?",
            ["date_trunc('month'", "DESC LIMIT 1"],
        ),
        # a metric's word inside a longer phrase of a column ("sales" in "sales channel")
        (
            "logistics",
            "which sales channel had the fewest orders in 2025?",
            ["p.canal", "count(*)", "ASC LIMIT 1"],
        ),
        # "mais vendido" with no measure: the units of the rows tying the thing to the sales
        (
            "logistics",
            "qual o produto mais vendido em 2025?",
            ["sum(ip.quantidade)", "'CANCELADO'", "LIMIT 1"],
        ),
        (
            "logistics",
            "which product category sold the most last year?",
            ["px.categoria", "sum(ip.quantidade)"],
        ),
        (
            "logistics",
            "what are our top 3 best-selling products?",
            ["sum(ip.quantidade)", "LIMIT 3"],
        ),
        # the metric itself when nothing ties them ("o canal mais vendido", "mais faturado")
        ("logistics", "qual o canal mais vendido?", ["p.canal", "sum(p.valor_total)", "LIMIT 1"]),
        (
            "clinics",
            "qual o convênio mais faturado em 2025?",
            ["e.convenio", "sum(e.valor)", "'REALIZADO'"],
        ),
    ],
)
def test_what_a_ranking_ranks(deployment: str, question: str, fragments: list[str]) -> None:
    sql = sql_for(deployment, question)
    for fragment in fragments:
        assert fragment in sql, f"{fragment!r} not in {sql}"


@pytest.mark.parametrize(
    ("deployment", "question", "fragments"),
    [
        # an average of rows named: the column a word names beside its table, else the amount
        (
            "logistics",
            "quanto custa em média o frete de uma carga em cada modal?",
            ["avg(c.valor_frete)", "t.modal"],
        ),
        ("logistics", "what is the average order worth in 2025?", ["avg(p.valor_total)"]),
        (
            "logistics",
            "quanto vale em média cada nota faturada em 2025?",
            ["avg(nf.valor_nota)", "'AUTORIZADA'"],
        ),
        ("clinics", "what is the average exam worth in 2025?", ["avg(e.valor)"]),
    ],
)
def test_an_average_of_the_rows_named(deployment: str, question: str, fragments: list[str]) -> None:
    sql = sql_for(deployment, question)
    for fragment in fragments:
        assert fragment in sql, f"{fragment!r} not in {sql}"


@pytest.mark.parametrize(
    ("question", "fragments", "absent"),
    [
        # a word that is both a rate's name and a state, counted: the rows in that state
        ("which month of 2025 had the most no-shows?", ["e.status = 'FALTOU'", "count(*)"], "avg("),
        ("how many no-shows in May?", ["e.status = 'FALTOU'", "count(*)"], "avg("),
        # the rate itself when it is asked as one
        ("which unit has the highest no-show rate?", ["avg(CASE"], "count(*)"),
    ],
)
def test_a_counted_state_is_not_its_rate(question: str, fragments: list[str], absent: str) -> None:
    sql = sql_for("clinics", question)
    for fragment in fragments:
        assert fragment in sql, f"{fragment!r} not in {sql}"
    assert absent not in sql, sql


def test_each_row_averaged_is_not_a_group() -> None:
    sql = sql_for("logistics", "quanto vale em média cada nota faturada em 2025?")
    assert "GROUP BY" not in sql, sql


def _term(deployment: str, name: str) -> GlossaryTerm:
    return next(t for t in CATALOGS[deployment].glossary if t.term == name)


def test_a_sum_of_hours_is_not_better_lower_an_average_time_is() -> None:
    # "horas trabalhadas" adds hours up (more is not worse); a lead time averages them
    assert better(_term("clinics", "horas trabalhadas")) in (None, "higher")
    assert better(_term("logistics", "lead time")) == "lower"


@pytest.mark.parametrize("said", ["higher", "lower"])
def test_the_metrics_own_better_comes_first(said: str) -> None:
    term = _term("logistics", "lead time")
    assert term.metric is not None
    metric = term.metric.model_copy(update={"better": said})
    plain = term.model_copy(update={"metric": metric, "definition": "", "definition_en": ""})
    assert better(plain) == said
