"""What an analysis worker answered, checked by type, size and provenance before use.

The worker's answer reaches cards, labels, the chart and the answer writer's prompt, so it
is held to the shape of `Analysis` and to the job it answers: every name is one of the
query's columns, every period or label one of the job's own row values, every number finite,
every list short, every note one the built-in analysis writes. A label is never free text
from the analysis: whatever a job computed, it cannot carry words its own rows and columns
do not hold (another tenant's names, say) into the answer.

Code mode's `figures` (the model's own figures for the answer writer) are held to the same
words: keys made of the columns' words and `STAT_WORDS`, or row values; values numbers or
row values. Figures that fail are dropped, and the built-in analysis still answers.

>>> job = {"columns": ["mes", "v"], "rows": [["2026-01-01", 1.0], ["2026-02-01", 3.0]]}
>>> checked_analysis({"row_count": 2, "measures": {"v": {"sum": 4.0}}}, job)["measures"]
{'v': {'sum': 4.0}}
>>> try:
...     checked_analysis({"measures": {"Boreal Ltda": {"sum": 4.0}}}, job)
... except AnalysisError as refused:
...     print(refused.code)
ANALYSIS_INVALID
"""

from __future__ import annotations

import logging
import math
import re
import unicodedata
from dataclasses import dataclass
from typing import Annotated, Any, Literal, cast

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
)

from orquestra.sandbox.analysis import Analysis, truncation_note
from orquestra.sandbox.pool import AnalysisError

log = logging.getLogger(__name__)

MAX_ITEMS = 5
"""Top items and outliers the built-in analysis keeps (`analysis.TOP`)."""
MAX_FIGURES = 40
"""Leaves (numbers, row values) of code mode's figures."""
MAX_TEXT = 200
STATISTICS_WORDS = {
    "en": (
        "total sum count n mean average avg median mode min max minimum maximum std stdev "
        "variance var range share pct percent percentage growth change delta diff difference "
        "ratio rate per by of vs top bottom first last previous current best worst trend "
        "number rows items distinct unique cumulative running moving rolling forecast "
        "quantile quartile yoy mom qoq day days week weeks month months quarter quarters "
        "year years period periods"
    ),
    "pt": (
        "total soma contagem quantidade qtd qtde media mediana moda minimo maximo desvio "
        "padrao variancia amplitude participacao percentual porcentagem crescimento variacao "
        "diferenca razao taxa por de do da dos das e vs primeiro ultimo anterior atual "
        "melhor pior tendencia numero linhas itens distintos unicos acumulado movel previsao "
        "dia dias semana semanas mes meses trimestre trimestres ano anos periodo periodos"
    ),
}
"""Words of statistics and of time in each language the product speaks (words of the
languages, not of any business; accents folded), that a figure's key may use beside the
columns' own words."""
STAT_WORDS = frozenset(w for text in STATISTICS_WORDS.values() for w in text.split())
WORD = re.compile(r"[^\W_]+", re.UNICODE)
ORDINAL = re.compile(r"[a-z]?\d{1,4}")
"""A number, or one with a letter before it: "2026", "q1", "p95"."""


@dataclass(frozen=True)
class Provenance:
    """What the job's answer may name: its columns and the values its rows hold."""

    columns: frozenset[str]
    every_value: frozenset[Any]
    column_words: frozenset[str]

    @classmethod
    def of(cls, job: dict[str, Any]) -> Provenance:
        columns = [str(c) for c in job.get("columns") or []]
        values: set[Any] = set()
        for row in job.get("rows") or []:
            try:
                values.update(row)
            except TypeError:  # a list or a document in a cell: only its plain values count
                values.update(v for v in row if isinstance(v, str | int | float))
        values.discard(None)
        words = frozenset(folded(w) for c in columns for w in WORD.findall(c))
        return cls(frozenset(columns), frozenset(values), words)

    def holds(self, value: Any) -> bool:
        """Whether `value` is one of the rows' own values (as JSON carried it)."""
        return isinstance(value, str | int | float) and value in self.every_value


def folded(word: str) -> str:
    """`word` in lower case without accents ("Média" → "media")."""
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _provenance(info: ValidationInfo) -> Provenance:
    return cast(Provenance, (info.context or {})["provenance"])


def _column(name: str, info: ValidationInfo) -> str:
    if name not in _provenance(info).columns:
        raise ValueError("not a column of the query")
    return name


def _row_value(value: str | int | float | None, info: ValidationInfo) -> str | int | float | None:
    if value is not None and not _provenance(info).holds(value):
        raise ValueError("not a value of the query's rows")
    return value


def _finite(value: float | None) -> float | None:
    if value is not None and not math.isfinite(value):
        raise ValueError("not a finite number")
    return value


Column = Annotated[str, Field(max_length=MAX_TEXT), AfterValidator(_column)]
RowValue = Annotated[
    str | int | float | None, Field(union_mode="left_to_right"), AfterValidator(_row_value)
]
Number = Annotated[float | None, AfterValidator(_finite)]
Count = Annotated[int, Field(ge=0)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=False)


class ColumnInfo(Strict):
    name: Column
    kind: Literal["time", "number", "category"]
    nulls: Count


class MeasureInfo(Strict):
    sum: Number = None
    min: Number = None
    max: Number = None
    mean: Number = None


class PointInfo(Strict):
    period: RowValue
    value: Number


class ComparisonInfo(Strict):
    current: PointInfo
    previous: PointInfo
    change_pct: Number = None


class TrendInfo(Strict):
    time: Column
    measure: Column
    periods: Count
    first: PointInfo
    last: PointInfo
    best: PointInfo
    worst: PointInfo
    last_growth_pct: Number = None
    change_first_to_last_pct: Number = None
    comparison: ComparisonInfo | None = None


class LineInfo(TrendInfo):
    """One line of a series of several: its trend, and which line it is."""

    by: Column
    label: RowValue


class TopItem(Strict):
    label: RowValue
    value: Number
    share_pct: Number = None


class TopInfo(Strict):
    label: Column
    measure: Column
    total: Number = None
    items: list[TopItem] = Field(max_length=MAX_ITEMS)
    share_of: Literal["listed"] | None = None
    listed: Count | None = None


class Outlier(Strict):
    label: RowValue = None
    value: Number
    z: Number


class AnalysisInfo(Strict):
    row_count: Count = 0
    rows_analyzed: Count = 0
    truncated: bool = False
    columns: list[ColumnInfo] = Field(default_factory=list, max_length=200)
    measures: dict[Column, MeasureInfo] = Field(default_factory=dict, max_length=200)
    trend: TrendInfo | dict[str, Any] | None = None
    lines: list[LineInfo] = Field(default_factory=list, max_length=MAX_ITEMS)
    top: TopInfo | None = None
    outliers: list[Outlier] = Field(default_factory=list, max_length=MAX_ITEMS)
    notes: list[str] = Field(default_factory=list, max_length=2)
    figures: Any = None


def checked_analysis(raw: Any, job: dict[str, Any]) -> Analysis:
    """`raw` as an `Analysis` of `job`'s rows, or `AnalysisError` ANALYSIS_INVALID."""
    provenance = Provenance.of(job)
    if not isinstance(raw, dict):
        raise AnalysisError("ANALYSIS_INVALID", "the analysis is not a set of figures")
    try:
        info = AnalysisInfo.model_validate(raw, context={"provenance": provenance})
    except ValidationError as failure:
        log.warning("analysis refused", extra={"errors": failure.errors(include_input=False)})
        raise AnalysisError(
            "ANALYSIS_INVALID", "the analysis named something its rows do not hold"
        ) from None
    if isinstance(info.trend, dict) and info.trend:  # only the empty trend of no points
        raise AnalysisError("ANALYSIS_INVALID", "the analysis' trend is not a trend")
    expected = {truncation_note(info.rows_analyzed, info.row_count)}
    if any(note not in expected for note in info.notes):
        raise AnalysisError("ANALYSIS_INVALID", "the analysis wrote notes of its own")
    analysis = info.model_dump(exclude_unset=True, exclude={"figures"})
    analysis.setdefault("notes", [])
    figures = checked_figures(info.figures, provenance)
    if figures is not None:
        analysis["figures"] = figures
    return cast(Analysis, analysis)


def checked_figures(figures: Any, provenance: Provenance) -> Any:
    """Code mode's figures if every key and value keeps to the job's words, else None.

    >>> seen = Provenance.of({"columns": ["canal", "valor_total"], "rows": [["EDI", 2]]})
    >>> checked_figures({"total_valor": 2.0, "top_canal": "EDI", "EDI": 2}, seen)
    {'total_valor': 2.0, 'top_canal': 'EDI', 'EDI': 2}
    >>> checked_figures({"spy": "Boreal Bebidas: 18.230,00"}, seen) is None
    True
    """
    if figures is None:
        return None
    leaves = [0]
    try:
        return _figure(figures, provenance, leaves, depth=0)
    except ValueError as failure:
        log.warning("analysis figures dropped", extra={"why": str(failure)})
        return None


def _figure(value: Any, provenance: Provenance, leaves: list[int], depth: int) -> Any:
    if depth > 3:
        raise ValueError("figures nested too deeply")
    if isinstance(value, dict):
        return {
            _key(k, provenance): _figure(v, provenance, leaves, depth + 1) for k, v in value.items()
        }
    if isinstance(value, list):
        return [_figure(v, provenance, leaves, depth + 1) for v in value]
    leaves[0] += 1
    if leaves[0] > MAX_FIGURES:
        raise ValueError("too many figures")
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        if not math.isfinite(value):
            raise ValueError("a figure is not a finite number")
        return value
    if isinstance(value, str) and (value in provenance.every_value or value in provenance.columns):
        return value
    raise ValueError("a figure's text is not one of the query's values")


def _key(key: Any, provenance: Provenance) -> str:
    text = str(key)
    if len(text) > MAX_TEXT:
        raise ValueError("a figure's name is too long")
    if text in provenance.columns or provenance.holds(key):
        return text
    words = [folded(w) for w in WORD.findall(text)]
    allowed = provenance.column_words | STAT_WORDS
    if words and all(w in allowed or ORDINAL.fullmatch(w) for w in words):
        return text
    raise ValueError("a figure's name is not made of the query's words")
