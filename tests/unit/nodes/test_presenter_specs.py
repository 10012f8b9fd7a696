"""The presenter builds and validates a chart's Vega-Lite spec once per shape (mark and
columns), and hands every turn a copy of it with the turn's own rows."""

from __future__ import annotations

from typing import Any

from orquestra.nodes.presenter import Shape, chart_for, spec_of

MONTHS = ["2026-01-01", "2026-02-01", "2026-03-01"]


def result(columns: list[str], rows: list[list[Any]]) -> dict[str, Any]:
    return {"columns": columns, "rows": rows, "row_count": len(rows), "truncated": False}


def test_each_shape_is_built_and_validated_once() -> None:
    spec_of.cache_clear()
    for month_total in (
        [[m, i * 10] for i, m in enumerate(MONTHS)],
        [[MONTHS[0], 1], [MONTHS[1], 2]],
    ):
        chart_for("revenue by month", result(["month", "revenue"], month_total))
    assert spec_of.cache_info().misses == 1 and spec_of.cache_info().hits == 1
    chart_for("orders by channel", result(["channel", "orders"], [["web", 3], ["shop", 5]]))
    assert spec_of.cache_info().misses == 2  # another shape, built anew


def test_the_spec_is_the_one_built_for_it_with_the_rows_attached() -> None:
    rows = [[m, i * 10, "web"] for i, m in enumerate(MONTHS)]
    spec = chart_for("revenue by month and channel", result(["month", "revenue", "channel"], rows))
    assert spec is not None
    built = spec_of.__wrapped__(Shape("line", ("month", "revenue", "channel")))  # uncached
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
