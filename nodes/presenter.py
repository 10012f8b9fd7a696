"""presenter: cards, a table preview and a chart for the front end, chosen deterministically.

The chart is a Vega-Lite v5 specification picked from the data's shape — a time series is a
line, categories a sorted bar, shares of a whole an arc, two measures a scatter — and validated
against the schema (Altair) before it is sent. Model-written plotting code is never run.

A series over periods (a `date_trunc` in the query, or values that are all firsts of a month)
is drawn on an ordinal axis of its periods, one tick each ("06/2026", "Q2 2026"), in the
deployment's time zone, rather than a continuous time axis with ticks between them. How the
table and cards are written (labels, periods, money) goes out with the `result` event as
`display` (`nodes.display`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from datetime import date, datetime, time
from functools import cache, lru_cache
from typing import Any, NamedTuple

import altair as alt
import jsonschema
from altair.vegalite.v5.schema import core
from langgraph.runtime import Runtime

from orquestra.core.settings import Settings
from orquestra.ddl_catalog.model import currency_symbol, is_money, is_ratio
from orquestra.ddl_catalog.text import fold, is_code_name
from orquestra.graph.context import RunContext
from orquestra.graph.resources import Resources, warm_up
from orquestra.graph.stage import stage
from orquestra.graph.state import AgentState, QueryResultState, present
from orquestra.nodes.display import display_for, number_locale, period_label, read_result
from orquestra.nodes.units import row_limit
from orquestra.sandbox.analysis import column_kinds, jsonable_rows

CHART_ROWS = 500
MAX_BARS = 30
DENSE_TICKS = 12
"""Above this many periods, the axis' labels are slanted so that each keeps its tick."""
CROWDED_TICKS = 36
"""Above this many, Vega leaves out the labels that would overlap (every other one)."""
SHARE = re.compile(r"(participa|share|propor|percentual|distribui|fatia|breakdown)")


def cards_for(
    result: QueryResultState,
    analysis: Mapping[str, Any] | None,
    units: dict[str, str] | None = None,
) -> list[dict[str, Any]]:
    """The figures worth a card: a single row of numbers (shown as its cards alone, not
    again as a table), or a series' latest value.

    `units` (result column → unit, from the catalog) labels each card; a column without one
    has no unit, whatever its name.
    """
    units = units or {}
    columns, rows = result["columns"], jsonable_rows(result["rows"][:CHART_ROWS])
    kinds = column_kinds(columns, rows)
    trend = (analysis or {}).get("trend") or {}
    if trend.get("last"):
        previous = (trend.get("comparison") or {}).get("previous")
        return [
            {
                "label": trend["measure"],
                "value": trend["last"]["value"],
                "unit": units.get(trend["measure"]),
                "period": trend["last"]["period"],
                "delta_pct": trend.get("last_growth_pct"),
                "previous": previous["value"] if previous else None,
            }
        ]
    if len(rows) == 1:
        # Cards only when they are the whole row: a row that also holds words is shown once,
        # as the table, not its numbers twice (a card and the same cell).
        if any(kinds[name] != "number" for name in columns):
            return []
        return [
            {"label": name, "value": rows[0][i], "unit": units.get(name), "delta_pct": None}
            for i, name in enumerate(columns)
        ]
    top = (analysis or {}).get("top")
    if top and top.get("total") is not None:  # no "total" of averages or ratios
        return [
            {
                "label": f"total {top['measure']}",
                "value": top["total"],
                "unit": units.get(top["measure"]),
                "delta_pct": None,
            }
        ]
    return []


def chart_for(
    question: str,
    result: QueryResultState,
    identifiers: Collection[str] = (),
    periods: Mapping[str, str] | None = None,
    titles: Mapping[str, str] | None = None,
    lang: str | None = None,
    units: Mapping[str, str] | None = None,
) -> dict[str, Any] | None:
    """A validated Vega-Lite v5 spec for the result's shape, or None when no chart helps.
    `identifiers`: columns that name rows (keys), never charted as measures; `periods`: time
    columns cut to a period (`column_periods`; their rows local times), drawn one tick per
    period; `titles`: the axes' readable titles by column; `lang`: the turn's language, for
    period labels and number separators; `units`: a money measure's axis shows its currency."""
    columns = result["columns"]
    rows = jsonable_rows([[_midnight(v) for v in row] for row in result["rows"][:CHART_ROWS]])
    if len(rows) < 2:
        return None
    kinds = column_kinds(columns, rows)
    numbers = [
        c for c in columns if kinds[c] == "number" and c not in identifiers and not is_code_name(c)
    ]
    times = [c for c in columns if kinds[c] == "time"]
    categories = [c for c in columns if kinds[c] == "category"]
    period = (periods or {}).get(times[0]) if times else None
    if times and numbers:
        shape = Shape("line", (times[0], numbers[-1], *categories[:1]))
        if period:
            index = columns.index(times[0])
            rows = _period_rows(result["rows"][:CHART_ROWS], index, period, lang or "pt")
            count = len({row[index] for row in rows})
            ticks = "flat" if count <= DENSE_TICKS else "slanted"
            shape = shape._replace(
                period=period, ticks=ticks if count <= CROWDED_TICKS else "thinned"
            )
    elif categories and numbers and SHARE.search(fold(question)) and len(rows) <= 12:
        shape = Shape("arc", (numbers[-1], categories[0]))
    elif categories and numbers and len(rows) <= MAX_BARS:
        shape = Shape("bar", (numbers[-1], categories[0]))
    elif len(numbers) >= 2 and not categories:
        shape = Shape("point", (numbers[0], numbers[1]))
    else:
        return None
    if titles:
        shape = shape._replace(titles=tuple(titles.get(f, f) for f in shape.fields))
    if lang:
        unit = (units or {}).get(shape.fields[0 if shape.mark in ("arc", "bar") else 1])
        symbol = currency_symbol(unit) if unit is not None and is_money(unit) else None
        shape = shape._replace(lang=lang, currency=symbol, percent=is_ratio(unit))
    spec = spec_of(shape)
    spec["data"] = {"values": [dict(zip(columns, row, strict=True)) for row in rows]}
    return spec


def _midnight(value: Any) -> Any:
    """A date as its local midnight: Vega reads a bare "2026-06-01" as UTC midnight, which is
    the day before west of Greenwich; "2026-06-01T00:00:00" it reads as local time."""
    if isinstance(value, date) and not isinstance(value, datetime):
        return datetime.combine(value, time())
    return value


def _period_rows(rows: list[list[Any]], index: int, period: str, lang: str) -> list[list[Any]]:
    """JSON rows in time order, the time column written as its period ("06/2026")."""
    ordered = sorted(rows, key=lambda row: (row[index] is None, str(row[index])))
    labelled = [
        [period_label(v, period, lang) if i == index else v for i, v in enumerate(row)]
        for row in ordered
    ]
    return jsonable_rows(labelled)


class Shape(NamedTuple):
    """What a chart is drawn from: its mark, and the columns it encodes, in the mark's order
    (line: time, measure, optional series; arc and bar: measure, category; point: x, y).
    The spec is cached per shape, so everything it depends on is here."""

    mark: str
    fields: tuple[str, ...]
    period: str | None = None
    """The time column's period: an ordinal axis of period labels, one tick each."""
    ticks: str = "flat"
    """A period axis' labels: `flat`, `slanted` (many: each still shown) or `thinned` (too
    many to show each: overlapping ones are left out)."""
    titles: tuple[str, ...] = ()
    """The axes' titles, in `fields`' order (default: the column names)."""
    lang: str | None = None
    """Numbers written with this language's separators (None: Vega's defaults)."""
    currency: str | None = None
    """The measure's currency symbol, on its axis."""
    percent: bool = False
    """The measure is a ratio: its axis reads as a percentage."""


def spec_of(shape: Shape) -> dict[str, Any]:
    """The validated Vega-Lite v5 spec of `shape`, with no rows (`data.values` empty): a
    copy of its form's template (`spec_template`) with the shape's own columns and titles.

    >>> spec = spec_of(Shape("bar", ("pedidos", "canal"), titles=("Pedidos", "Canal")))
    >>> spec["encoding"]["y"]["field"], spec["encoding"]["x"]["title"]
    ('canal', 'Pedidos')
    """
    names = {FIELD.format(i): f for i, f in enumerate(shape.fields)}
    names |= {TITLE.format(i): t for i, t in enumerate(shape.titles or shape.fields)}
    spec: dict[str, Any] = _named(spec_template(form_of(shape)), names)
    return spec


FIELD, TITLE = "orquestra-field-{}", "orquestra-title-{}"
"""Stand-ins for a shape's columns and titles in its form's template."""


def form_of(shape: Shape) -> Shape:
    """`shape` without its columns' names and titles: what its spec is built from, so that
    the template cache holds no word any tenant's query wrote (whether another tenant drew a
    chart of the same columns cannot be told from how long one takes)."""
    count = len(shape.fields)
    return shape._replace(
        fields=tuple(FIELD.format(i) for i in range(count)),
        titles=tuple(TITLE.format(i) for i in range(count)),
    )


def _named(spec: Any, names: Mapping[str, str]) -> Any:
    """A copy of `spec` with every stand-in string replaced by its name."""
    if isinstance(spec, dict):
        return {k: _named(v, names) for k, v in spec.items()}
    if isinstance(spec, list):
        return [_named(v, names) for v in spec]
    return names.get(spec, spec) if isinstance(spec, str) else spec


@lru_cache(maxsize=1024)
def spec_template(form: Shape) -> dict[str, Any]:
    """The validated spec of a chart's form (`form_of`): built with Altair and checked
    against the schema once per form, since building and validating cost more than the rest
    of a turn's stage work together. Callers get a copy (`spec_of`)."""
    return build_spec(form)


def build_spec(shape: Shape) -> dict[str, Any]:
    """The validated Vega-Lite v5 spec of `shape`, built with Altair (uncached)."""
    # Rows are attached after building: Altair copies them slowly. (Altair's `Data` has no
    # annotated constructor.)
    data = alt.Data(values=[])  # type: ignore[no-untyped-call]
    fields, titles = shape.fields, shape.titles or shape.fields
    if shape.mark == "line":
        series = {"color": alt.Color(f"{fields[2]}:N", title=titles[2])} if len(fields) > 2 else {}
        if shape.period:  # periods in data order (time order), every label kept
            axis = alt.Axis(
                labelAngle=0 if shape.ticks == "flat" else -45,
                labelOverlap=shape.ticks == "thinned",
            )
            x = alt.X(f"{fields[0]}:O", title=titles[0], sort=None, axis=axis)
        else:
            x = alt.X(f"{fields[0]}:T", title=titles[0])
        chart = (  # one line per category ("por mês e por canal"), not one zig-zag line
            alt.Chart(data)
            .mark_line(point=True)
            .encode(x=x, y=alt.Y(f"{fields[1]}:Q", title=titles[1]), **series)
        )
    elif shape.mark == "arc":
        chart = (
            alt.Chart(data)
            .mark_arc()
            .encode(
                theta=alt.Theta(f"{fields[0]}:Q", title=titles[0]),
                color=alt.Color(f"{fields[1]}:N", title=titles[1]),
            )
        )
    elif shape.mark == "bar":
        chart = (
            alt.Chart(data)
            .mark_bar()
            .encode(
                x=alt.X(f"{fields[0]}:Q", title=titles[0]),
                y=alt.Y(f"{fields[1]}:N", sort="-x", title=titles[1]),
            )
        )
    else:
        chart = (
            alt.Chart(data)
            .mark_point()
            .encode(
                x=alt.X(f"{fields[0]}:Q", title=titles[0]),
                y=alt.Y(f"{fields[1]}:Q", title=titles[1]),
            )
        )
    spec: dict[str, Any] = chart.properties(width="container").to_dict(validate=False)
    if shape.lang:
        spec["config"] = {"locale": {"number": number_locale(shape.lang, shape.currency)}}
        measure = "y" if shape.mark == "line" else "x" if shape.mark == "bar" else None
        if shape.currency and measure:
            spec["encoding"][measure].setdefault("axis", {})["format"] = "$,.0f"
        elif shape.percent and measure:
            spec["encoding"][measure].setdefault("axis", {})["format"] = ".0%"
    validate_spec(spec)
    return spec


@cache
def _validator() -> Any:
    """The Vega-Lite v5 JSON schema Altair ships, compiled once."""
    schema = core.load_schema()
    return jsonschema.validators.validator_for(schema)(schema)


@warm_up
def _read_chart_machinery(settings: Settings) -> None:
    """At start-up, off the event loop: the Vega-Lite schema and Altair's package metadata,
    which the first chart would otherwise read inside a run (~0.24 s, once per process)."""
    for mark, fields in (("line", "tv"), ("arc", "vc"), ("bar", "vc"), ("point", "xy")):
        spec_of(Shape(mark, tuple(fields)))


def validate_spec(spec: dict[str, Any]) -> None:
    """Raise `ValueError` unless `spec` is a valid Vega-Lite v5 specification.

    The inline data rows are plain JSON; the structure (marks, encodings) is what is checked.
    """
    errors = list(_validator().iter_errors({**spec, "data": {"values": []}}))
    if errors:
        raise ValueError(f"invalid Vega-Lite specification: {errors[0].message}")


def _summary(update: dict[str, Any]) -> str:
    chart = update.get("chart")
    mark = chart.get("mark", {}).get("type") if chart else None
    return f"{len(update.get('cards') or [])} cards, chart: {mark or 'none'}"


@stage("presenter", summary=_summary)
async def presenter(
    state: AgentState, runtime: Runtime[RunContext], resources: Resources
) -> dict[str, Any]:
    result, analysis = present(state.get("result"), "result"), state.get("analysis")
    reading = read_result(result, state, runtime.context.limits.timezone, resources)
    cards = cards_for(result, analysis, reading.units)
    sql = state.get("draft_sql") or state.get("sql")
    limited = row_limit(sql) is not None or result["truncated"]
    profile = resources.profile
    display = display_for(
        reading, result, cards, analysis, len(result["rows"]) if limited else None
    )
    display.update(
        lang=reading.lang,
        locale=profile.locale_for(reading.lang),
        currency=profile.currency,
        timezone=reading.zone,
    )
    chart = chart_for(
        state.get("question", ""),
        {**result, "rows": reading.rows},
        reading.identifiers,
        reading.grouped,
        reading.labels,
        reading.lang,
        reading.units,
    )
    return {"cards": cards, "chart": chart, "display": display}
