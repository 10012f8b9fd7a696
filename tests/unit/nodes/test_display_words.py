"""How a result is written for people: periods read from the query or the values, labels in
the deployment's words, kinds of cells, a chart per period (and cached per period), and a top
N's share said of the rows listed, not of a total the query never saw."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path
from types import SimpleNamespace

import pytest

from orquestra.ddl_catalog import load_catalog
from orquestra.graph.hints import ModelHints, ShownRows
from orquestra.nodes.display import (
    column_kind,
    local,
    number_locale,
    period_label,
    period_of,
    read_result,
    readable_label,
    total_label,
)
from orquestra.nodes.presenter import Shape, chart_for, spec_template
from orquestra.nodes.units import column_sources, row_limit, truncated_periods
from orquestra.offline.answers import answer
from orquestra.sandbox.analysis import analyze, share_scope

DEPLOYMENTS = Path(__file__).resolve().parents[3] / "deployments"
ZONE = "America/Sao_Paulo"


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(DEPLOYMENTS / "logistics" / "catalog")


def test_the_period_comes_from_the_query() -> None:
    sql = (
        "SELECT date_trunc('quarter', d)::date AS tri, date_trunc('month', d) AS mes, "
        "date_trunc('hour', d) AS hora, sum(v) AS total FROM t GROUP BY 1, 2, 3"
    )
    assert truncated_periods(sql) == {"tri": "quarter", "mes": "month"}
    assert truncated_periods("not sql") == {} and truncated_periods(None) == {}


def test_or_from_the_local_values() -> None:
    # Midnight in São Paulo is 03:00 UTC: read in UTC, every month would start at 03:00.
    months = [local(datetime(2026, m, 1, 3, tzinfo=UTC), ZONE) for m in (4, 5, 6)]
    assert months[0] == datetime(2026, 4, 1) and period_of(months) == "month"
    assert period_of([date(2026, m, 1) for m in (1, 4, 7)]) == "quarter"
    assert period_of([date(y, 1, 1) for y in (2024, 2025, 2026)]) == "year"
    assert period_of([date(2026, 6, d) for d in (1, 8, 15)]) == "week"  # Mondays
    assert period_of([date(2026, 6, d) for d in (2, 3, 4)]) == "day"
    assert period_of([datetime(2026, 6, 1, 10, 30), datetime(2026, 7, 1)]) is None
    assert period_of([date(2026, 6, 1), date(2026, 7, 1)]) == "day"  # two: too few to tell


def test_periods_read_as_people_write_them() -> None:
    june = date(2026, 6, 1)
    assert period_label(june, "month", "pt") == "06/2026"
    assert period_label(june, "month", "en") == "Jun 2026"
    assert period_label(june, "quarter", "pt") == "2º tri 2026"
    assert period_label(june, "quarter", "en") == "Q2 2026"
    assert period_label(june, "year", "en") == "2026"
    assert period_label(june, "day", "pt") == "01/06/2026"


def test_labels_are_the_deployments_words(catalog) -> None:
    assert readable_label("faturamento", catalog, "pt") == "Faturamento"
    assert readable_label("valor_vencido", catalog, "pt") == "Valor vencido"
    # The words the question used win: an English question reads "Revenue".
    assert readable_label("faturamento", catalog, "en", "revenue by month") == "Revenue"
    assert readable_label("valor_nota", catalog, "en") == "Invoice value"
    assert readable_label("count", catalog, "pt") == "Quantidade"
    assert readable_label("total_total_valor", catalog, "pt") == "Total de valor"  # no echo
    # an English turn reads the glossary term's English name, unless it asked in other words
    assert readable_label("faturamento", catalog, "en") == "Revenue"
    assert readable_label("faturamento", catalog, "en", "how much billing in may?") == "Billing"
    assert total_label("Valor vencido", "pt", 5) == "Valor vencido (soma dos 5 listados)"
    assert total_label("Revenue", "en", None) == "Revenue (total)"


def test_cell_kinds() -> None:
    assert column_kind("valor", [1.5, 2], "BRL", None, ()) == "money"
    assert column_kind("notas", [1200, 3], None, None, ()) == "integer"
    assert column_kind("peso", [1.5], "kg", None, ()) == "number"
    assert column_kind("num_nota", [40908], None, None, ()) == "text"  # a key, as it is
    assert column_kind("ano", [2026], None, None, ()) == "text"  # not "2.026"
    assert column_kind("mes", [date(2026, 6, 1)], None, "month", ()) == "period"
    assert column_kind("quando", [datetime(2026, 6, 1, 10)], None, None, ()) == "time"
    assert number_locale("pt", "R$")["currency"] == ["R$ ", ""]


def test_a_series_of_periods_has_one_tick_each_and_its_own_cached_spec() -> None:
    rows = [[date(2026, m, 1), m * 10.5] for m in (3, 1, 2)]
    result = {"columns": ["mes", "faturamento"], "rows": rows, "row_count": 3, "truncated": False}
    spec_template.cache_clear()
    plain = chart_for("faturamento por mês", result)
    monthly = chart_for(
        "faturamento por mês",
        result,
        periods={"mes": "month"},
        titles={"mes": "Mês", "faturamento": "Faturamento"},
        lang="pt",
        units={"faturamento": "BRL"},
    )
    assert plain is not None and monthly is not None
    assert plain["encoding"]["x"]["type"] == "temporal"  # no period known: a time axis
    x = monthly["encoding"]["x"]
    assert x["type"] == "ordinal" and x["sort"] is None and x["title"] == "Mês"
    assert [v["mes"] for v in monthly["data"]["values"]] == ["01/2026", "02/2026", "03/2026"]
    assert monthly["encoding"]["y"]["axis"]["format"] == "$,.0f"
    assert monthly["config"]["locale"]["number"]["thousands"] == "."
    assert spec_template.cache_info().misses == 2  # the period (and words) are part of the key
    assert Shape("line", ("mes", "faturamento"), period="month") != Shape(
        "line", ("mes", "faturamento")
    )


def test_a_top_five_share_is_of_the_five() -> None:
    assert row_limit("SELECT a, sum(b) FROM t GROUP BY a ORDER BY 2 DESC LIMIT 5") == 5
    assert row_limit("WITH x AS (SELECT a FROM t LIMIT 3) SELECT * FROM x") is None
    rows = [["A", 50.0], ["B", 30.0], ["C", 20.0]]
    job = {"columns": ["canal", "valor"], "rows": rows, "question": "top 3"}
    listed = share_scope(analyze(job), 3)
    assert listed["top"]["share_of"] == "listed" and listed["top"]["listed"] == 3
    assert share_scope(analyze(job), None) == analyze(job)
    shown = ShownRows(tuple({"canal": k, "valor": v} for k, v in rows), 3)
    hints = ModelHints(rows=shown, analysis=json.loads(json.dumps(listed)))
    assert "A responde por 50% do total dos 3 listados." in answer(hints, "pt")
    assert "A accounts for 50% of the 3 listed." in answer(hints, "en")
    whole = ModelHints(rows=shown, analysis=json.loads(json.dumps(analyze(job))))
    assert "A responde por 50% do total." in answer(whole, "pt")
    truncated = analyze({**job, "truncated": True, "row_count": 10})
    assert truncated["top"]["share_of"] == "listed"  # the rows are the first of more


def test_plain_dates_keep_a_time_axis_and_their_own_label(catalog) -> None:
    dates = [date(2026, 6, 3), date(2026, 6, 20), date(2026, 7, 2)]
    result = {
        "columns": ["vencimento", "valor"],
        "rows": [[d, 10.0 * i] for i, d in enumerate(dates)],
        "row_count": 3,
        "truncated": False,
    }
    state = {"lang": "pt", "question": "títulos e vencimentos", "draft_sql": "SELECT 1"}
    reading = read_result(result, state, ZONE, SimpleNamespace(catalog=catalog))
    assert reading.periods == {"vencimento": "day"}  # written as a date…
    assert reading.grouped == {} and reading.labels["vencimento"] != "Dia"  # …not a series
    spec = chart_for("x", {**result, "rows": reading.rows}, periods=reading.grouped, lang="pt")
    assert spec is not None and spec["encoding"]["x"]["type"] == "temporal"
    # Local midnight, which Vega reads as local time (a bare date it reads as UTC midnight).
    assert spec["data"]["values"][0]["vencimento"] == "2026-06-03T00:00:00"


@pytest.mark.parametrize(
    ("column", "pt", "en"),
    [
        # an aggregate word before or after a measure the deployment names
        ("media_custo_de_frete", "Média de custo de frete", "Average freight cost"),
        ("lead_time_medio", "Média de lead time", "Average lead time"),
        ("total_faturamento", "Total de faturamento", "Total revenue"),
        ("media_valor_nota", "Média de valor da nota", "Average invoice value"),
        # a count counts rows: a table's words, plural
        ("qtd_pedidos", "Quantidade de pedidos", "Number of orders"),
        # the words say it already
        ("total_peso_total_kg", "Peso total", "Total weight"),
        # a condition counted is not "the number of late": its name as it is
        ("quantidade_fora_do_prazo", "Quantidade fora do prazo", "Quantidade fora do prazo"),
    ],
)
def test_an_aggregates_alias_reads_as_the_aggregate_of_the_deployments_words(
    catalog, column: str, pt: str, en: str
) -> None:
    assert readable_label(column, catalog, "pt") == pt
    assert readable_label(column, catalog, "en") == en


def test_a_column_selected_as_it_is_reads_as_its_own_tables_words(catalog) -> None:
    sql = (
        "SELECT t.nome, avg(c.valor_frete) AS media_custo_de_frete FROM cargas AS c "
        "JOIN transportadoras AS t ON c.cod_transportadora = t.cod_transportadora GROUP BY 1"
    )
    sources = column_sources(sql)
    assert sources == {"nome": ("transportadoras", "nome")}  # the average is computed
    # a carrier's name, not the first table's "nome" (a customer's)
    assert readable_label("nome", catalog, "en", "", sources["nome"]) == "Carrier name"
    assert readable_label("nome", catalog, "pt", "", sources["nome"]) == "Nome da transportadora"
    assert readable_label("nome", catalog, "pt", "", ("clientes", "nome")) == "Nome do cliente"


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        (
            "SELECT nome, cidade FROM clientes",
            {"nome": ("clientes", "nome"), "cidade": ("clientes", "cidade")},
        ),
        ("SELECT c.nome AS cliente FROM clientes AS c", {"cliente": ("clientes", "nome")}),
        # an unqualified column over a join, a CTE's column, a subquery's: not known
        ("SELECT nome FROM a JOIN b ON a.k = b.k", {}),
        ("WITH s AS (SELECT nome FROM clientes) SELECT nome FROM s", {}),
        ("SELECT x.nome FROM (SELECT nome FROM clientes) AS x", {}),
        ("not sql", {}),
        # a count of rows counts the first table's (not one with a FILTER: a condition's)
        (
            "SELECT count(*) AS n FROM notas AS n JOIN cargas AS c ON n.k = c.k",
            {"n": ("notas", "*")},
        ),
        ("SELECT count(*) FILTER (WHERE x) AS n FROM notas", {}),
    ],
)
def test_column_sources_only_where_the_table_is_certain(sql: str, expected: dict) -> None:
    assert column_sources(sql) == expected


def test_a_count_of_rows_reads_as_the_number_of_its_tables_rows(catalog) -> None:
    """ "how many blocked invoices?" was answered "Quantity: 19" (an item column's word)."""
    counted = ("notas_fiscais", "*")
    assert readable_label("quantidade", catalog, "en", "", counted) == "Number of invoices"
    assert readable_label("quantidade", catalog, "pt", "", counted).startswith("Quantidade de")
    # an alias that names a glossary term keeps the term's words
    volume = readable_label("volume_de_pedidos", catalog, "en", "", ("pedidos", "*"))
    assert volume == "Order volume"


def test_a_ratio_metric_reads_as_a_percentage(catalog) -> None:
    """ "OTIF: 0,83" read as a fraction: a glossary metric with `unit: ratio` is a share
    from 0 to 1, shown as a percentage in the table, the cards, the chart and the answer."""
    from orquestra.nodes.units import column_units

    sql = (
        "SELECT t.nome, avg(CASE WHEN c.data_entrega::date <= c.previsao_entrega THEN 1.0"
        " ELSE 0.0 END) AS otif FROM cargas AS c JOIN transportadoras AS t"
        " ON c.cod_transportadora = t.cod_transportadora GROUP BY 1"
    )
    units = column_units(sql, ["nome", "otif"], catalog)
    assert units == {"otif": "ratio"}
    # the name alone does not make a count a ratio
    assert column_units("SELECT count(*) AS otif FROM cargas", ["otif"], catalog) == {}
    assert column_kind("otif", [0.834, 0.91], "ratio", None, set()) == "percent"
    shown = ShownRows(({"nome": "A", "otif": 0.834}, {"nome": "B", "otif": 0.5}), 2)
    assert "83,4%" in answer(ModelHints(rows=shown, units={"otif": "ratio"}), "pt")
    assert "83.4%" in answer(ModelHints(rows=shown, units={"otif": "ratio"}), "en")
    rows = [["A", 0.834], ["B", 0.5]]
    result = {"columns": ["nome", "otif"], "rows": rows}
    spec = chart_for("otif por transportadora", result, lang="pt", units={"otif": "ratio"})
    assert spec["encoding"]["x"]["axis"]["format"] == ".0%"
