"""The built-in analysis and the presenter's choices, on small synthetic results."""

from __future__ import annotations

import json

import altair as alt
import pytest

from orquestra.nodes.presenter import cards_for, chart_for
from orquestra.sandbox.analysis import analyze, column_kinds

SERIES = {
    "columns": ["mes", "faturamento"],
    "rows": [["2026-01-01", 100.0], ["2026-02-01", 120.0], ["2026-03-01", 90.0]],
}
CATEGORIES = {"columns": ["canal", "pedidos"], "rows": [["EDI", 50], ["API", 30], ["PORTAL", 20]]}


def test_column_kinds() -> None:
    assert column_kinds(["a", "b", "c"], [["2026-01-01", 1, "x"], ["2026-02-01", 2.5, None]]) == {
        "a": "time",
        "b": "number",
        "c": "category",
    }


def test_trend_with_growth_and_comparison() -> None:
    analysis = analyze({**SERIES, "question": "faturamento comparado com o mês anterior"})
    trend = analysis["trend"]
    assert trend["last"] == {"period": "2026-03-01", "value": 90.0}
    assert trend["best"]["period"] == "2026-02-01"
    assert trend["last_growth_pct"] == -25.0
    assert trend["comparison"]["previous"]["value"] == 120.0
    assert analysis["measures"]["faturamento"] == {
        "sum": 310.0,
        "min": 90.0,
        "max": 120.0,
        "mean": 103.33,
    }


def test_top_items_with_shares() -> None:
    top = analyze(CATEGORIES)["top"]
    assert top["total"] == 100.0
    assert top["items"][0] == {"label": "EDI", "value": 50.0, "share_pct": 50.0}


def test_outliers_nulls_and_truncation() -> None:
    rows = [[f"c{i}", 10.0 + i % 3] for i in range(30)] + [["big", 500.0], ["none", None]]
    analysis = analyze(
        {"columns": ["cliente", "valor"], "rows": rows, "row_count": 900, "truncated": True}
    )
    assert analysis["outliers"][0]["label"] == "big"
    assert analysis["columns"][1]["nulls"] == 1
    assert analysis["notes"] == ["only the first 32 of 900 rows were analysed"]


@pytest.mark.parametrize(
    ("question", "result", "mark"),
    [
        ("faturamento por mês", SERIES, "line"),
        ("pedidos por canal", CATEGORIES, "bar"),
        ("participação de cada canal nos pedidos", CATEGORIES, "arc"),
        ("peso e frete", {"columns": ["peso", "frete"], "rows": [[1.0, 2.0], [2.0, 3.5]]}, "point"),
    ],
)
def test_chart_follows_the_shape(question: str, result: dict, mark: str) -> None:
    spec = chart_for(question, {**result, "row_count": 3, "truncated": False})
    assert spec is not None and spec["mark"]["type"] == mark
    assert spec["$schema"].startswith("https://vega.github.io/schema/vega-lite/v5")
    alt.Chart.from_dict(spec)  # valid against the schema, as Altair itself checks it


def test_an_invalid_specification_is_refused() -> None:
    from orquestra.nodes.presenter import validate_spec

    spec = chart_for("pedidos por canal", {**CATEGORIES, "row_count": 3, "truncated": False})
    with pytest.raises(ValueError):
        validate_spec({**spec, "mark": {"type": "banana"}})


def test_no_chart_for_a_single_value() -> None:
    assert chart_for("quantas notas?", {"columns": ["n"], "rows": [[3]]}) is None


def test_cards() -> None:
    series = cards_for(SERIES, analyze(SERIES), {"faturamento": "BRL"})
    assert series == [
        {
            "label": "faturamento",
            "value": 90.0,
            "unit": "BRL",
            "period": "2026-03-01",
            "delta_pct": -25.0,
            "previous": None,
        }
    ]
    single = cards_for(
        {"columns": ["quantidade", "valor_total"], "rows": [[3, 10.5]]},
        None,
        {"valor_total": "BRL"},
    )
    assert [c["unit"] for c in single] == [None, "BRL"]
    # Units come from the catalog only: a name that sounds like money is not money.
    unnamed = cards_for({"columns": ["customer_id", "valor_total"], "rows": [[3, 10.5]]}, None)
    assert [c["unit"] for c in unnamed] == [None, None]


def test_a_time_series_per_category_draws_a_line_per_category() -> None:
    result = {
        "columns": ["mes", "canal", "total"],
        "rows": [
            ["2026-01-01T00:00:00", "EDI", 10],
            ["2026-01-01T00:00:00", "API", 4],
            ["2026-02-01T00:00:00", "EDI", 12],
            ["2026-02-01T00:00:00", "API", 5],
        ],
        "row_count": 4,
        "truncated": False,
    }
    spec = chart_for("total por mês e por canal", result)
    assert spec["mark"]["type"] == "line"
    assert spec["encoding"]["color"]["field"] == "canal"


AVERAGES = {"columns": ["canal", "ticket_medio"], "rows": [["EDI", 50.0], ["API", 30.0]]}


@pytest.mark.parametrize(
    ("sql", "shared"),
    [
        ("SELECT canal, SUM(v) AS ticket_medio FROM t GROUP BY 1", True),
        ("SELECT canal, COUNT(*) AS ticket_medio FROM t GROUP BY 1", True),
        ("SELECT canal, ROUND(SUM(v), 2) AS ticket_medio FROM t GROUP BY 1", True),
        (
            "SELECT canal, ticket_medio FROM (SELECT canal, SUM(v) AS ticket_medio FROM t "
            "GROUP BY 1) AS x",
            True,
        ),
        ("SELECT canal, AVG(v) AS ticket_medio FROM t GROUP BY 1", False),
        ("SELECT canal, SUM(v) / COUNT(*) AS ticket_medio FROM t GROUP BY 1", False),
        ("SELECT canal, SUM(f) / NULLIF(SUM(kg), 0) AS ticket_medio FROM t GROUP BY 1", False),
        ("SELECT canal, MAX(v) AS ticket_medio FROM t GROUP BY 1", False),
        ("SELECT canal, COUNT(DISTINCT c) AS ticket_medio FROM t GROUP BY 1", False),
        (
            "WITH x AS (SELECT canal, AVG(v) AS ticket_medio FROM t GROUP BY 1) "
            "SELECT canal, ticket_medio FROM x",
            False,
        ),
    ],
)
def test_shares_and_totals_only_of_measures_that_add_up(sql: str, shared: bool) -> None:
    """ "X responde por 62% do total" of averages or ratios was said of a sum that means
    nothing; a measure has shares and a total card only when the query sums or counts it."""
    from orquestra.nodes.units import additive_columns

    analysis = analyze({**AVERAGES, "additive": sorted(additive_columns(sql) or ())})
    top = analysis["top"]
    assert (top["items"][0]["share_pct"] is not None) is shared
    assert (top["total"] is not None) is shared
    assert (analysis["measures"]["ticket_medio"]["sum"] is not None) is shared
    cards = cards_for({**AVERAGES, "row_count": 2, "truncated": False}, analysis)
    assert bool(cards) is shared


def test_one_group_has_no_share_of_itself() -> None:
    top = analyze({"columns": ["motivo", "n"], "rows": [[None, 160]]})["top"]
    assert top["items"][0]["share_pct"] is None and top["total"] is None


def test_rows_listed_one_by_one_have_no_trend() -> None:
    """ "Em 27/06/2026 18:00, valor subiu 571,70%" compared two exams of a listing."""
    from orquestra.nodes.units import aggregated_query

    listing = aggregated_query("SELECT id, d AS mes, v AS faturamento FROM t ORDER BY d")
    series = aggregated_query("SELECT date_trunc('month', d) AS mes, SUM(v) FROM t GROUP BY 1")
    assert listing is False and series is True
    assert "trend" not in analyze({**SERIES, "aggregated": listing})
    assert analyze({**SERIES, "aggregated": series})["trend"]["last_growth_pct"] == -25.0
    assert "trend" in analyze(SERIES)  # a query it could not read keeps the trend


def test_a_top_n_of_periods_is_a_ranking_not_a_trend() -> None:
    """ "qual foi o mês com mais pedidos?" (ORDER BY the count, LIMIT 3): the months kept
    are not consecutive, so "subiu 0% em relação ao período anterior" compared months the
    query never put side by side."""
    from orquestra.nodes.units import row_limit

    ranked = (
        "SELECT date_trunc('month', d) AS mes, count(*) AS n FROM t"
        " GROUP BY 1 ORDER BY 2 DESC LIMIT 3"
    )
    assert row_limit(ranked) == 3
    rows = [["2025-10-01", 40], ["2025-03-01", 38], ["2025-07-01", 38]]
    job = {"columns": ["mes", "n"], "rows": rows, "aggregated": True, "limited": True}
    assert "trend" not in analyze(job)
    # the last N periods in time order are still a series
    recent = {**job, "rows": sorted(rows)}
    assert analyze(recent)["trend"]["periods"] == 3
    assert "trend" in analyze({**job, "limited": False})  # every period: sorted by time


def test_a_period_equal_to_the_previous_is_not_said_to_rise() -> None:
    from orquestra.graph.hints import ModelHints, ShownRows
    from orquestra.offline.answers import answer

    flat = {**SERIES, "rows": [["2026-01-01", 100.0], ["2026-02-01", 100.0]]}
    analysis = json.loads(json.dumps(analyze(flat)))
    rows = ShownRows(({"mes": "2026-01-01", "faturamento": 100},), 2)
    text = answer(ModelHints(rows=rows, analysis=analysis), "pt")
    assert "ficou igual ao período anterior" in text and "subiu 0" not in text


def test_a_trends_periods_reach_the_answer_as_the_rows_write_them() -> None:
    """A `date_trunc('year', …)` of local times comes back as the UTC instant of the local
    new year ("2026-01-01T03:00:00+00:00"): the answer said "In Jan 01, 2026 03:00"."""
    from datetime import UTC, datetime

    from orquestra.nodes.streamer import shown_analysis

    years = [datetime(y, 1, 1, 3, tzinfo=UTC) for y in (2024, 2025, 2026)]
    result = {"columns": ["ano", "total"], "rows": [[y, 10.0 * i + 5] for i, y in enumerate(years)]}
    job = {**result, "rows": [[y.isoformat(), v] for y, v in result["rows"]], "aggregated": True}
    analysis = analyze(job)
    sql = "SELECT date_trunc('year', d) AS ano, sum(v) AS total FROM t GROUP BY 1 ORDER BY 1"
    shown = shown_analysis(analysis, result, "America/Sao_Paulo", sql, "en")
    assert shown["trend"]["last"]["period"] == "2026"
    assert shown["trend"]["first"]["period"] == "2024"
    assert analysis["trend"]["last"]["period"].startswith("2026-01-01T03")  # not changed
    quarters = [datetime(2025, m, 1, 3, tzinfo=UTC) for m in (1, 4, 7, 10)]
    result = {"columns": ["tri", "total"], "rows": [[q, 1.0 + i] for i, q in enumerate(quarters)]}
    job = {**result, "rows": [[q.isoformat(), v] for q, v in result["rows"]], "aggregated": True}
    sql = "SELECT date_trunc('quarter', d) AS tri, sum(v) AS total FROM t GROUP BY 1 ORDER BY 1"
    shown = shown_analysis(analyze(job), result, "America/Sao_Paulo", sql, "pt")
    assert shown["trend"]["last"]["period"] == "4º tri 2025"


LINES = {
    "columns": ["mes", "canal", "faturamento"],
    "rows": [
        ["2026-01-01", "EDI", 100.0],
        ["2026-01-01", "API", 400.0],
        ["2026-02-01", "EDI", 150.0],
        ["2026-02-01", "API", 200.0],
    ],
    "aggregated": True,
}


def test_a_series_of_several_lines_has_each_lines_trend_and_no_single_one() -> None:
    # Sorted by month alone, the rows would compare EDI's February with API's: one line's
    # period against another's, a figure that looks right and is not.
    analysis = analyze(LINES)
    assert "trend" not in analysis
    moved = [(line["label"], line["last_growth_pct"]) for line in analysis["lines"]]
    assert moved == [("EDI", 50.0), ("API", -50.0)]  # each its own, largest first
    assert {line["by"] for line in analysis["lines"]} == {"canal"}
    assert cards_for({"columns": LINES["columns"], "rows": LINES["rows"]}, analysis) == []


def test_a_label_beside_each_period_is_one_line() -> None:
    rows = [["2026-01-01", "jan", 10.0], ["2026-02-01", "fev", 12.0]]
    analysis = analyze({"columns": ["mes", "nome_mes", "valor"], "rows": rows})
    assert "lines" not in analysis and analysis["trend"]["last_growth_pct"] == 20.0
