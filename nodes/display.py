"""How a result is shown to a person: readable column labels, periods, and number kinds.

The presenter sends this beside the rows (its `node` end event's `display`), and the web chat
formats from it: a date cut to a month shows as "06/2026" (or "Jun 2026" in English) in the
deployment's time zone, money with the profile's currency and the turn's locale, counts with
thousands separators, keys as they are. Labels come from the deployment's words — a glossary
term or synonym, a catalog column's synonyms in the turn's language, preferring the words the
question itself used — and only then from the column's name, never as machine joins.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import date, datetime
from decimal import Decimal
from typing import Any, NamedTuple
from zoneinfo import ZoneInfo

from orquestra.ddl_catalog.model import Catalog, is_money, is_ratio, per_catalog
from orquestra.ddl_catalog.text import fold, is_code_name, phrase_key, words
from orquestra.graph.resources import Resources
from orquestra.graph.state import AgentState, QueryResultState
from orquestra.nodes.units import (
    column_sources,
    column_units,
    identifier_columns,
    truncated_periods,
)

ROWS_READ = 500
"""Rows read for periods and kinds (the chart's own cap)."""

PERIOD_NAMES = {
    "pt": {"day": "Dia", "week": "Semana", "month": "Mês", "quarter": "Trimestre", "year": "Ano"},
    "en": {"day": "Day", "week": "Week", "month": "Month", "quarter": "Quarter", "year": "Year"},
}
PERIOD_FORMATS = {
    "pt": {"day": "%d/%m/%Y", "week": "%d/%m/%Y", "month": "%m/%Y", "quarter": "%qº tri %Y"},
    "en": {"day": "%b %d, %Y", "week": "%b %d, %Y", "month": "%b %Y", "quarter": "Q%q %Y"},
}
"""A period's label, as a d3 time format (the browser's) that `strftime` also reads, `%q`
(the quarter) aside. A year is `%Y` in every language."""
FUNCTION_LABELS = {
    "pt": {"count": "Quantidade", "sum": "Soma", "avg": "Média", "min": "Mínimo", "max": "Máximo"},
    "en": {"count": "Count", "sum": "Sum", "avg": "Average", "min": "Minimum", "max": "Maximum"},
}
"""The name PostgreSQL gives an unaliased aggregate, as a person would say it."""
AGGREGATE_WORDS = {
    **dict.fromkeys(("avg", "average", "media", "medio", "mean"), "avg"),
    **dict.fromkeys(("sum", "soma", "total"), "sum"),
    **dict.fromkeys(("count", "qtd", "quantidade", "qtde", "num", "number", "n"), "count"),
    **dict.fromkeys(("min", "minimo", "minimum", "menor"), "min"),
    **dict.fromkeys(("max", "maximo", "maximum", "maior"), "max"),
}
"""Words an alias names its aggregate by, before or after the words it aggregates."""
AGGREGATE_LABELS = {
    "pt": {
        "avg": "Média de {}",
        "sum": "Total de {}",
        "count": "Quantidade de {}",
        "min": "Mínimo de {}",
        "max": "Máximo de {}",
    },
    "en": {
        "avg": "Average {}",
        "sum": "Total {}",
        "count": "Number of {}",
        "min": "Minimum {}",
        "max": "Maximum {}",
    },
}
TOTAL_LABELS = {
    "pt": ("{label} (total)", "{label} (soma dos {count} listados)"),
    "en": ("{label} (total)", "{label} (sum of the {count} listed)"),
}
"""A top list's total card: of every row, or only of the rows listed (a top N)."""
TIME_WORDS = frozenset(
    ("ano", "year", "mes", "month", "trimestre", "quarter", "semestre", "semana", "week", "dia")
)
"""Names of a number that is a calendar position (2026, 6), shown without separators."""


def local(value: Any, zone: str) -> Any:
    """A time as people in `zone` read it (naive); ISO text is read first. Others unchanged."""
    if isinstance(value, str) and len(value) >= 10 and value[4:5] == "-" and value[7:8] == "-":
        try:
            value = datetime.fromisoformat(value) if len(value) > 10 else date.fromisoformat(value)
        except ValueError:
            return value
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(ZoneInfo(zone)).replace(tzinfo=None)
    return value


def period_of(values: Sequence[Any]) -> str | None:
    """The period a column's local times were cut to, read from the values: all at midnight
    on the 1st of January → year; of a quarter's first month → quarter; on the 1st → month;
    all Mondays → week; else day. None when some value has a time of day; two values or fewer
    are too few to tell a month from a day."""
    times = [v for v in values if isinstance(v, date)]
    if not times or len(times) != len(values):
        return None
    if any(isinstance(v, datetime) and v.time() != datetime.min.time() for v in times):
        return None
    if len(times) < 3:
        return "day"
    if all(v.day == 1 for v in times):
        if all(v.month == 1 for v in times):
            return "year"
        return "quarter" if all(v.month % 3 == 1 for v in times) else "month"
    return "week" if all(v.weekday() == 0 for v in times) else "day"


def period_label(value: Any, period: str, lang: str) -> str:
    """`value` (a local date or time) as its period reads: "06/2026", "2º tri 2026", "Jun 2026"."""
    if not isinstance(value, date):
        return "" if value is None else str(value)
    if period == "year":
        return f"{value.year}"
    form = PERIOD_FORMATS[_lang(lang)][period].replace("%q", str((value.month - 1) // 3 + 1))
    return value.strftime(form)


def number_locale(lang: str, currency: str | None) -> dict[str, Any]:
    """Vega's number locale (d3-format's) for `lang`: its separators, and `currency` (a
    symbol) written where the language writes it."""
    symbol = currency or ""
    if _lang(lang) == "en":
        return {"decimal": ".", "thousands": ",", "grouping": [3], "currency": [symbol, ""]}
    prefix = f"{symbol} " if symbol else ""
    return {"decimal": ",", "thousands": ".", "grouping": [3], "currency": [prefix, ""]}


def period_format(period: str, lang: str) -> str:
    return "%Y" if period == "year" else PERIOD_FORMATS[_lang(lang)][period]


def column_periods(
    columns: Sequence[str], rows: Sequence[Sequence[Any]], truncated: Mapping[str, str]
) -> dict[str, str]:
    """Column → period, for time columns: the query's `date_trunc`, else read from the local
    values (`rows` already local, see `local`)."""
    periods = {}
    for index, name in enumerate(columns):
        values = [row[index] for row in rows if row[index] is not None]
        if not values or not all(isinstance(v, date) for v in values):
            continue
        period = truncated.get(name) or period_of(values)
        if period:
            periods[name] = period
    return periods


def readable_label(
    column: str,
    catalog: Catalog,
    lang: str,
    question: str = "",
    source: tuple[str, str] | None = None,
) -> str:
    """A column's label in the deployment's words, preferring those the question used; an
    aggregate's alias reads as the aggregate of those words ("media_custo_total" →
    "Average total cost" in English). `source` (table, column), when the query selects
    the column as it is, picks that table's words ("nome" of a project is not a person's)."""
    lang = _lang(lang)
    counted = _count_label(source, column, catalog, lang)
    if counted:
        return counted
    own = _source_synonyms(source, column, catalog, lang)
    if own:
        return _capital(_preferred(own, " ".join(phrase_key(question)), None))
    parts = column.replace("_", " ").split()
    kept = [p for i, p in enumerate(parts) if i == 0 or fold(p) != fold(parts[i - 1])]
    # a column whose table is known is not named by another table's words
    found = _deployment_label(" ".join(kept), catalog, lang, question, rows=own is not None)
    if found:
        return _capital(found)
    if fold(column) in FUNCTION_LABELS[lang]:
        return FUNCTION_LABELS[lang][fold(column)]
    aggregated = _aggregate_label(kept, catalog, lang, question)
    return _capital(aggregated or " ".join(kept) or column)


def _count_label(
    source: tuple[str, str] | None, column: str, catalog: Catalog, lang: str
) -> str | None:
    """ "Number of tasks" for a `count(*)` of a table's rows, unless its alias is a
    glossary term's name ("volume_de_tarefas" reads as that term)."""
    if source is None or source[1] != "*" or source[0] not in catalog.tables:
        return None
    if phrase_key(column.replace("_", " ")) in _words_of(catalog).glossary:
        return None
    said = _words_of(catalog).tables.get(phrase_key(source[0]), {}).get(lang, [])
    plural = next((p for p in said if p.endswith("s")), None)
    return AGGREGATE_LABELS[lang]["count"].format(plural) if plural else None


def _source_synonyms(
    source: tuple[str, str] | None, column: str, catalog: Catalog, lang: str
) -> list[str] | None:
    """The synonyms of the table column `column` is, when it kept its name (None when that
    is not known)."""
    if source is None or source[1] != column or source[0] not in catalog.tables:
        return None
    found = next((c for c in catalog.tables[source[0]].columns if c.name == source[1]), None)
    return list(getattr(found.meta.synonyms, lang)) if found else None


def _deployment_label(
    name: str,
    catalog: Catalog,
    lang: str,
    question: str,
    measures_only: bool = False,
    rows: bool = False,
) -> str | None:
    """A glossary phrase, a column's or a table's synonym that `name` is, in `lang`; with
    `measures_only`, a glossary phrase only when its term is a metric; with `rows`, only a
    table's synonym (what a count counts)."""
    key = phrase_key(name)
    asked = " ".join(phrase_key(question))
    words_of = _words_of(catalog)
    named = words_of.glossary.get(key)
    if named and not rows and (named.metric or not measures_only):
        default = named.english if lang == "en" and named.english else named.phrase
        return _preferred(named.phrases, asked, default)
    if named:
        return None
    column = None if rows else words_of.columns.get(name.replace(" ", "_"), {}).get(lang)
    synonyms = column or words_of.tables.get(key, {}).get(lang)
    return _preferred(synonyms, asked, None) if synonyms else None


def _aggregate_label(parts: list[str], catalog: Catalog, lang: str, question: str) -> str | None:
    """ "avg_task_cost", "custo_medio", "qtd_tarefas": an aggregate word before or after
    words the deployment names, as a person would say it ("Média de custo da tarefa")."""
    for function, rest in ((parts[:1], parts[1:]), (parts[-1:], parts[:-1])):
        kind = AGGREGATE_WORDS.get(fold(function[0])) if function and rest else None
        if kind is None:
            continue
        # a count is of rows ("qtd_tarefas"), never of a measure or of a condition a glossary
        # term names ("quantidade_atrasada" stays as it is)
        named = _deployment_label(
            " ".join(rest), catalog, lang, question, measures_only=True, rows=kind == "count"
        )
        if named is None:
            continue
        if fold(function[0]) in words(named) or (kind == "sum" and "total" in words(named)):
            return named  # "total_custo_total": the words say it already
        if kind == "count":  # rows are counted: "Number of tasks", in the table's plural
            table = _words_of(catalog).tables.get(phrase_key(" ".join(rest)), {}).get(lang, [])
            named = next((p for p in table if p.endswith("s")), named)
        said = named if named.isupper() else named[:1].lower() + named[1:]
        return AGGREGATE_LABELS[lang][kind].format(said)
    return None


class Named(NamedTuple):
    """A glossary phrase, as a label reads it."""

    phrase: str
    phrases: tuple[str, ...]
    """Every phrase of its term, the question's own preferred."""
    english: str
    metric: bool


class Words(NamedTuple):
    """The deployment's words for labels, by what a column may be named after."""

    glossary: dict[tuple[str, ...], Named]
    """Phrase key → the glossary phrase."""
    columns: dict[str, dict[str, list[str]]]
    """Column name → language → its synonyms (the first table's that has any)."""
    tables: dict[tuple[str, ...], dict[str, list[str]]]
    """A table name's phrase key → language → its synonyms."""


@per_catalog
def _words_of(catalog: Catalog) -> Words:
    """Built once per catalog object: a label is asked for per column."""
    glossary: dict[tuple[str, ...], Named] = {}
    for term in catalog.glossary:
        phrases = (term.term, *term.synonyms, *([term.term_en] if term.term_en else []))
        for phrase in phrases:
            named = Named(phrase, phrases, term.term_en, term.metric is not None)
            glossary.setdefault(phrase_key(phrase), named)
    columns: dict[str, dict[str, list[str]]] = {}
    tables: dict[tuple[str, ...], dict[str, list[str]]] = {}
    for table in catalog.tables.values():
        for lang in ("pt", "en"):
            said = list(getattr(table.meta.synonyms, lang))
            if said:
                tables.setdefault(phrase_key(table.name), {}).setdefault(lang, said)
        for found in table.columns:
            for lang in ("pt", "en"):
                synonyms = list(getattr(found.meta.synonyms, lang))
                if synonyms:
                    columns.setdefault(found.name, {}).setdefault(lang, synonyms)
    return Words(glossary, columns, tables)


def _preferred(phrases: Sequence[str], asked: str, default: str | None) -> str:
    """The phrase the question used (the longest), else `default`, else the first."""
    used = [p for p in phrases if phrase_key(p) and f" {' '.join(phrase_key(p))} " in f" {asked} "]
    if used:
        return max(used, key=len)
    return default or phrases[0]


def column_kind(
    name: str,
    values: Sequence[Any],
    unit: str | None,
    period: str | None,
    identifiers: Collection[str],
) -> str:
    """How a column's cells are written: `period`, `time`, `money`, `percent` (a ratio ×100),
    `number`, `integer` (a count: thousands separators), or `text` (keys, codes and calendar
    numbers as they are)."""
    present = [v for v in values if v is not None]
    if period:
        return "period"
    if present and all(isinstance(v, date) for v in present):
        return "time"
    numeric = present and all(
        isinstance(v, int | float | Decimal) and not isinstance(v, bool) for v in present
    )
    if not numeric or name in identifiers or is_code_name(name):
        return "text"
    if set(words(name.replace("_", " "))) & TIME_WORDS:
        return "text"
    if is_money(unit):
        return "money"
    if is_ratio(unit):
        return "percent"
    integral = all(isinstance(v, int) or float(v).is_integer() for v in present)
    return "integer" if integral and not unit else "number"


def total_label(label: str, lang: str, listed: int | None) -> str:
    """The top list's total card: of all rows, or "of the N listed" when it is a top N."""
    whole, part = TOTAL_LABELS[_lang(lang)]
    return part.format(label=label, count=listed) if listed else whole.format(label=label)


def _lang(lang: str | None) -> str:
    return "en" if lang == "en" else "pt"


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


class Reading(NamedTuple):
    """What the presenter read of a turn's result, for the chart and for `display`."""

    rows: list[list[Any]]
    """The rows, times local to the deployment's time zone."""
    periods: dict[str, str]
    """Time column → the period it was cut to (how its cells are written)."""
    grouped: dict[str, str]
    """The periods the result is grouped by: the query's, or months, quarters… read from
    the values (a column of plain dates is not a series of days): one tick each, and the
    period's name as the label."""
    labels: dict[str, str]
    """Column → its readable label in the turn's language."""
    units: dict[str, str]
    identifiers: set[str]
    zone: str
    lang: str


def read_result(
    result: QueryResultState, state: AgentState, zone: str, resources: Resources
) -> Reading:
    """Local times, periods, labels, units and keys of the turn's result."""
    columns, lang = result["columns"], state.get("lang", "pt")
    sql = state.get("draft_sql") or state.get("sql")
    rows = [[local(v, zone) for v in row] for row in result["rows"][:ROWS_READ]]
    truncated, sources = truncated_periods(sql), column_sources(sql)
    periods = column_periods(columns, rows, truncated)
    grouped = {c: p for c, p in periods.items() if p != "day" or c in truncated}
    question, names = state.get("question", ""), PERIOD_NAMES["en" if lang == "en" else "pt"]
    labels = {
        c: names[grouped[c]]
        if c in grouped
        else readable_label(c, resources.catalog, lang, question, sources.get(c))
        for c in columns
    }
    units = column_units(sql, columns, resources.catalog)
    keys = identifier_columns(columns, resources.catalog)
    return Reading(rows, periods, grouped, labels, units, keys, zone, lang)


def display_for(
    reading: Reading,
    result: QueryResultState,
    cards: list[dict[str, Any]],
    analysis: Mapping[str, Any] | None,
    listed: int | None,
) -> dict[str, Any]:
    """Each column's label and kind (with its unit or period), and each card's label and
    period, as the client writes them. `listed`: the result is a top N of more rows."""
    columns = []
    for index, name in enumerate(result["columns"]):
        period, unit = reading.periods.get(name), reading.units.get(name)
        values = [row[index] for row in reading.rows]
        kind = column_kind(name, values, unit, period, reading.identifiers)
        column = {"name": name, "label": reading.labels[name], "kind": kind}
        if unit:
            column["unit"] = unit
        if period:
            column.update(period=period, format=period_format(period, reading.lang))
        columns.append(column)
    trend = (analysis or {}).get("trend") or {}
    top = (analysis or {}).get("top") or {}
    period = reading.periods.get(trend.get("time", ""))
    shown = []
    for card in cards:
        if card["label"] in reading.labels:
            entry = {"label": reading.labels[card["label"]]}
        else:  # the total of a top list (see `cards_for`)
            measure = reading.labels.get(top.get("measure", ""), card["label"])
            entry = {"label": total_label(measure, reading.lang, listed)}
        if card.get("period") and period:
            moment = local(card["period"], reading.zone)
            entry["period"] = period_label(moment, period, reading.lang)
        shown.append(entry)
    return {"columns": columns, "cards": shown}
