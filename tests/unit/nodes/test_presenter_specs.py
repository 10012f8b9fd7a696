"""The presenter builds and validates a chart's Vega-Lite spec once per form (mark, number
of columns, period, words of the axes' numbers — never the columns' names), and hands every
turn a copy of it with the turn's own columns, titles and rows."""

from __future__ import annotations

from typing import Any

from orquestra.nodes.presenter import Shape, build_spec, chart_for, form_of, spec_template

MONTHS = ["2026-01-01", "2026-02-01", "2026-03-01"]


def result(columns: list[str], rows: list[list[Any]]) -> dict[str, Any]:
    return {"columns": columns, "rows": rows, "row_count": len(rows), "truncated": False}


def test_each_form_is_built_and_validated_once() -> None:
    spec_template.cache_clear()
    for month_total in (
        [[m, i * 10] for i, m in enumerate(MONTHS)],
        [[MONTHS[0], 1], [MONTHS[1], 2]],
    ):
        chart_for("revenue by month", result(["month", "revenue"], month_total))
    assert spec_template.cache_info().misses == 1 and spec_template.cache_info().hits == 1
    chart_for("orders by channel", result(["channel", "orders"], [["web", 3], ["shop", 5]]))
    assert spec_template.cache_info().misses == 2  # another form, built anew
    chart_for("pedidos por canal", result(["canal", "pedidos"], [["EDI", 3], ["API", 5]]))
    assert spec_template.cache_info().misses == 2  # the same form, other columns: no new build


def test_the_template_cache_holds_no_word_of_any_query() -> None:
    spec_template.cache_clear()
    chart_for("valor vencido por cliente", result(["Cliente Secreto", "valor"], [["a", 1]] * 2))
    chart_for("valor por canal", result(["canal", "valor secreto"], [["EDI", 3], ["API", 5]]))
    assert spec_template.cache_info().currsize == 1
    held = str(spec_template(form_of(Shape("bar", ("valor", "canal")))))
    assert "Secreto" not in held and "valor" not in held and "canal" not in held


def test_the_spec_is_the_one_built_for_it_with_the_rows_attached() -> None:
    rows = [[m, i * 10, "web"] for i, m in enumerate(MONTHS)]
    spec = chart_for("revenue by month and channel", result(["month", "revenue", "channel"], rows))
    assert spec is not None
    built = build_spec(Shape("line", ("month", "revenue", "channel")))  # from the names
    assert {**spec, "data": {"values": []}} == built
    assert spec["data"]["values"][1] == {"month": MONTHS[1], "revenue": 10, "channel": "web"}


def test_a_turn_changing_its_spec_changes_no_other_turns() -> None:
    shop = result(["channel", "orders"], [["web", 3], ["shop", 5]])
    first = chart_for("orders by channel", shop)
    assert first is not None
    first["encoding"]["x"]["title"] = "changed"
    first["mark"]["type"] = "changed"
    second = chart_for("orders by channel", shop)
    assert second is not None
    assert second["encoding"]["x"]["title"] == "orders" and second["mark"]["type"] == "bar"


def test_the_docstring_examples_hold() -> None:
    import doctest

    from orquestra.nodes import presenter

    results = doctest.testmod(presenter)
    assert results.attempted >= 2 and results.failed == 0
