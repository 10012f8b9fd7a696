"""The built-in analysis of a query result: what a senior analyst would point out.

Pure Python over JSON-ready rows (it runs inside the sandbox process): totals and ranges per
measure, the trend of a time series with period-over-period growth, the top categories with
their share of the total, robust outliers (modified z-score on the median absolute
deviation), nulls, and truncation. Small enough to put in a prompt.
"""

from __future__ import annotations

import re
import statistics
from datetime import date, datetime
from decimal import Decimal
from itertools import pairwise
from typing import Any, TypedDict

from orquestra.ddl_catalog.text import is_code_name


class Point(TypedDict):
    period: str
    value: float


class Trend(TypedDict, total=False):
    """A time series: first, last, best and worst periods, and growth."""

    time: str
    measure: str
    periods: int
    first: Point
    last: Point
    best: Point
    worst: Point
    last_growth_pct: float | None
    change_first_to_last_pct: float | None
    comparison: dict[str, Any]
    """Current versus previous period, when the question asks for a comparison."""
    by: str
    """A line of several (`Analysis.lines`): the category column that separates the lines."""
    label: Any
    """A line of several: its value of `by` ("EDI")."""


class Analysis(TypedDict, total=False):
    """What the analyzer found; small enough to put in a prompt."""

    row_count: int
    rows_analyzed: int
    truncated: bool
    columns: list[dict[str, Any]]
    """Each column's name, kind (time, number, category) and null count."""
    measures: dict[str, dict[str, float | None]]
    """Sum (None for averages, ratios and other measures that do not add up), min, max and
    mean of each measure."""
    trend: Trend
    lines: list[Trend]
    """A series of several lines (a time column and a category): each line's own trend, the
    largest movers first; then there is no one `trend`, which would compare one line's
    period with another's."""
    top: dict[str, Any]
    """The leading categories with their value and share of the total (`share_of: listed`:
    the total of the `listed` rows only, a top N of more)."""
    outliers: list[dict[str, Any]]
    """Rows far from the median (modified z-score above 3.5)."""
    notes: list[str]
    figures: Any
    """Code mode: the figures the model's own analysis code computed, checked to keep to the
    query's columns and values (`output.checked_figures`)."""


def jsonable(value: Any) -> Any:
    """A database value as JSON can carry it: decimals as floats, times as ISO text."""
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    return value


def jsonable_rows(rows: list[list[Any]]) -> list[list[Any]]:
    return [[jsonable(item) for item in row] for row in rows]


TOP = 5
OUTLIER_Z = 3.5
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")
COMPARISON = re.compile(
    r"(compar|anterior|vs\.?|versus|em relacao|previous|growth|crescimento|"
    r"variacao|change)",
    re.IGNORECASE,
)


def column_kinds(columns: list[str], rows: list[list[Any]]) -> dict[str, str]:
    """`time`, `number` or `category` for each column, from its values."""
    kinds = {}
    for index, name in enumerate(columns):
        values = [row[index] for row in rows if row[index] is not None]
        if values and all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
            kinds[name] = "number"
        elif values and all(isinstance(v, str) and ISO_DATE.match(v) for v in values):
            kinds[name] = "time"
        else:
            kinds[name] = "category"
    return kinds


def analyze(job: dict[str, Any]) -> Analysis:
    """The analysis of `job` = {columns, rows, row_count, truncated, question, identifiers,
    additive, aggregated, limited} (`identifiers`: the catalog's key columns among them, never
    measured; `additive`: the columns whose values add up to a real total; `aggregated`:
    whether the query grouped its rows — rows listed one by one have no trend; either None
    if not known; `limited`: the query kept its first N rows, so periods out of time order
    are a ranking, not a series)."""
    columns, rows = job["columns"], job["rows"]
    kinds = column_kinds(columns, rows)
    identifiers = set(job.get("identifiers") or ())
    numbers = [
        c for c in columns if kinds[c] == "number" and c not in identifiers and not is_code_name(c)
    ]
    additive = job.get("additive")
    adds_up = {c: additive is None or c in additive for c in numbers}
    out: Analysis = {
        "row_count": job.get("row_count", len(rows)),
        "rows_analyzed": len(rows),
        "truncated": bool(job.get("truncated")),
        "columns": [
            {"name": c, "kind": kinds[c], "nulls": _nulls(rows, i)} for i, c in enumerate(columns)
        ],
        "measures": {c: _measure(_values(rows, columns.index(c)), adds_up[c]) for c in numbers},
        "notes": [],
    }
    time = next((c for c in columns if kinds[c] == "time"), None)
    category = next((c for c in columns if kinds[c] == "category"), None)
    main = numbers[-1] if numbers else None
    series = job.get("aggregated") is not False  # a series, not a listing
    if time and job.get("limited") and not _in_time_order(rows, columns.index(time)):
        series = False  # nor a top N of periods ranked by the measure: the rest were cut
    compare = bool(COMPARISON.search(job.get("question", "")))
    if time and main and series and category and _several_lines(rows, columns.index(category)):
        out["lines"] = _lines(rows, columns, time, category, main, compare)
    elif time and main and series:
        out["trend"] = _trend(rows, columns.index(time), columns.index(main), time, main, compare)
    if category and main and not time:
        out["top"] = _top(
            rows, columns.index(category), columns.index(main), category, main, adds_up[main]
        )
        if out["truncated"]:
            out = share_scope(out, len(rows))
    if main:
        label = time or category
        out["outliers"] = _outliers(
            rows, columns.index(main), columns.index(label) if label else None
        )
    if out["truncated"]:
        out["notes"].append(truncation_note(len(rows), out["row_count"]))
    return out


def truncation_note(analysed: int, row_count: int) -> str:
    """The note of a result cut short: the one note an analysis writes."""
    return f"only the first {analysed} of {row_count} rows were analysed"


def share_scope(analysis: Analysis, listed: int | None) -> Analysis:
    """`analysis` with its top list's shares marked as of the `listed` rows only, when the
    rows are a top N of more (a `LIMIT`, a truncated result): a share of those is not a
    share of the whole, and the answer must say so. `listed` None: unchanged."""
    top = analysis.get("top")
    if not top or listed is None:
        return analysis
    return {**analysis, "top": {**top, "share_of": "listed", "listed": listed}}


def _values(rows: list[list[Any]], index: int) -> list[float]:
    return [float(row[index]) for row in rows if isinstance(row[index], int | float)]


def _nulls(rows: list[list[Any]], index: int) -> int:
    return sum(row[index] is None for row in rows)


def _measure(values: list[float], adds_up: bool = True) -> dict[str, float | None]:
    """Sum (only of values that add up: never of averages or ratios), min, max and mean."""
    if not values:
        return {"sum": None, "min": None, "max": None, "mean": None}
    return {
        "sum": round(sum(values), 2) if adds_up else None,
        "min": round(min(values), 2),
        "max": round(max(values), 2),
        "mean": round(statistics.fmean(values), 2),
    }


def _in_time_order(rows: list[list[Any]], index: int) -> bool:
    """Whether the rows come in the order of their time column (either way)."""
    times = [row[index] for row in rows if row[index] is not None]
    pairs = list(pairwise(times))
    return all(a <= b for a, b in pairs) or all(a >= b for a, b in pairs)


def _trend(
    rows: list[list[Any]], time_index: int, value_index: int, time: str, value: str, compare: bool
) -> Trend:
    series = sorted(
        (row[time_index], float(row[value_index]))
        for row in rows
        if row[time_index] is not None and isinstance(row[value_index], int | float)
    )
    if not series:
        return {}
    growth = [None] + [
        round((b[1] - a[1]) / a[1] * 100, 1) if a[1] else None for a, b in pairwise(series)
    ]
    best = max(series, key=lambda point: point[1])
    worst = min(series, key=lambda point: point[1])
    trend: Trend = {
        "time": time,
        "measure": value,
        "periods": len(series),
        "first": {"period": series[0][0], "value": round(series[0][1], 2)},
        "last": {"period": series[-1][0], "value": round(series[-1][1], 2)},
        "best": {"period": best[0], "value": round(best[1], 2)},
        "worst": {"period": worst[0], "value": round(worst[1], 2)},
        "last_growth_pct": growth[-1],
        "change_first_to_last_pct": (
            round((series[-1][1] - series[0][1]) / series[0][1] * 100, 1) if series[0][1] else None
        ),
    }
    if compare and len(series) >= 2:
        trend["comparison"] = {
            "current": trend["last"],
            "previous": {"period": series[-2][0], "value": round(series[-2][1], 2)},
            "change_pct": growth[-1],
        }
    return trend


def _several_lines(rows: list[list[Any]], index: int) -> bool:
    """Whether a category's values repeat over the periods (one line each), rather than
    naming each period once (a month's name beside its date)."""
    labels = [row[index] for row in rows]
    return 1 < len(set(labels)) < len(labels)


def _lines(
    rows: list[list[Any]], columns: list[str], time: str, by: str, value: str, compare: bool
) -> list[Trend]:
    """Each line's trend ("por canal": one per channel), the largest last movement first,
    at most `TOP` of them.

    >>> rows = [["2026-01", "EDI", 10], ["2026-02", "EDI", 12], ["2026-01", "API", 50],
    ...         ["2026-02", "API", 25]]
    >>> [(t["label"], t["last_growth_pct"]) for t in _lines(rows, ["m", "c", "v"], "m", "c",
    ...                                                      "v", False)]
    [('API', -50.0), ('EDI', 20.0)]
    """
    at = columns.index(by)
    labels = list(dict.fromkeys(row[at] for row in rows))
    lines: list[Trend] = []
    for label in labels:
        own = [row for row in rows if row[at] == label]
        trend = _trend(own, columns.index(time), columns.index(value), time, value, compare)
        if trend:
            lines.append({**trend, "by": by, "label": label})
    moved = sorted(lines, key=lambda t: -abs(t.get("last_growth_pct") or 0.0))
    return moved[:TOP]


def _top(
    rows: list[list[Any]],
    label_index: int,
    value_index: int,
    label: str,
    value: str,
    adds_up: bool = True,
) -> dict[str, Any]:
    """The leading categories; their shares and the total only for a measure that adds up."""
    pairs = [
        (row[label_index], float(row[value_index]))
        for row in rows
        if isinstance(row[value_index], int | float)
    ]
    # A share needs a whole of several parts that add up to it.
    whole = adds_up and len(pairs) > 1
    total = sum(v for _, v in pairs) if whole else 0.0
    ranked = sorted(pairs, key=lambda pair: -pair[1])[:TOP]
    return {
        "label": label,
        "measure": value,
        "total": round(total, 2) if whole else None,
        "items": [
            {
                "label": k,
                "value": round(v, 2),
                "share_pct": round(v / total * 100, 1) if total else None,
            }
            for k, v in ranked
        ],
    }


def _outliers(
    rows: list[list[Any]], value_index: int, label_index: int | None
) -> list[dict[str, Any]]:
    values = _values(rows, value_index)
    if len(values) < 5:
        return []
    median = statistics.median(values)
    mad = statistics.median(abs(v - median) for v in values)
    if not mad:
        return []
    found: list[dict[str, Any]] = []
    for row in rows:
        value = row[value_index]
        if isinstance(value, int | float):
            score = 0.6745 * (float(value) - median) / mad
            if abs(score) > OUTLIER_Z:
                label = row[label_index] if label_index is not None else None
                found.append(
                    {"label": label, "value": round(float(value), 2), "z": round(score, 1)}
                )
    return sorted(found, key=lambda item: -abs(item["z"]))[:TOP]
