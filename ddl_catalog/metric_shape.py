"""What a glossary metric's SQL says, read once from its text: the aggregate its expression
opens with, whether it counts rows or adds one column up or shares rows out by a condition,
the names and quoted values it holds, the comparisons it makes, and what its filter keeps,
leaves out and fixes. `MetricDefinition.shape` gives it, read the first time it is asked and
remembered, so the offline model asks these fields instead of testing the text per question.

Each field answers one question the offline model asks of a metric; where two places asked
it with slightly different text tests, the field answers as both did on every metric of the
sample deployments (`tests/unit/offline/test_metric_shapes.py` shows it).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

_OPENING = re.compile(r"\s*(\w+)\s*\(")
_ROW_COUNTS = ("COUNT(*)", "COUNT(1)")
_SUMMED_COLUMN = re.compile(r"\s*sum\(\s*(\w+)\s*\)\s*", re.IGNORECASE)
_SIMPLE = re.compile(r"\s*\w+\([^()]*\)\s*")
_CASE = re.compile(r"\bcase\b", re.IGNORECASE)
_FILTER_CLAUSE = re.compile(r"\bfilter\b", re.IGNORECASE)
_SHARE = re.compile(
    r"\s*avg\(\s*case\s+when\s+(.+?)\s+then\s+1(?:\.0*)?\s+else\s+0(?:\.0*)?\s+end\s*\)\s*",
    re.IGNORECASE,
)
_NAME = re.compile(r"\w+")
_QUOTED = re.compile(r"'([^']*)'")
_OPERATOR = r"(<=|>=|<>|!=|<|>|=)"
_COMPARED = re.compile(rf"(?=\b(\w+)\s*{_OPERATOR}\s*(\w+))")
_FLAT_COMPARED = re.compile(rf"(\w+){_OPERATOR}(\w+)")
_STATE = re.compile(r"^\s*(\w+)\s*=\s*'([^']+)'\s*$")
_LEFT_OUT = re.compile(r"\s*(\w+)\s*(?:<>|!=)\s*'([^']*)'\s*")
_FIXED = re.compile(r"\b(\w+)\s*(?:=|in\b)", re.IGNORECASE)
_EQUAL = re.compile(r"(?<![<>!])=\s*'([^']*)'")
_AMONG = re.compile(r"(?<!not )\bin\s*\(([^)]*)", re.IGNORECASE)
_IS_NULL = re.compile(r"\bis null\b", re.IGNORECASE)
_CAST = re.compile(r"::\w+")


@dataclass(frozen=True)
class Alternative:
    """One top-level OR alternative of a metric's filter."""

    condition: str
    """The alternative as written, without its outer parentheses."""
    parts: frozenset[str]
    """Its top-level AND parts, flattened (casts, case and spaces aside): `flat`."""


@dataclass(frozen=True)
class MetricShape:
    """What a metric's expression and filter say, read once (`shape_of`).

    >>> share = shape_of("AVG(CASE WHEN a::date <= b THEN 1.0 ELSE 0.0 END)", "a IS NOT NULL")
    >>> share.aggregate, share.counts_rows, share.summed_column, share.one_aggregate
    ('avg', False, None, True)
    >>> share.share_condition, share.share_compared, share.has_case, share.simple
    ('a::date <= b', ('a', '<=', 'b'), True, True)
    >>> sorted(share.compared), sorted(share.filter_names)
    ([('a', '<=', 'b')], ['IS', 'NOT', 'NULL', 'a'])
    >>> total = shape_of("SUM(valor)", "status = 'PAGO'")
    >>> total.aggregate, total.summed_column, total.simple, total.state, total.left_out
    ('sum', 'valor', True, ('status', 'PAGO'), None)
    >>> sorted(total.values), sorted(total.fixed_columns), sorted(total.kept_values)
    (['PAGO'], ['status'], ['PAGO'])
    >>> rows = shape_of("COUNT(*)", "status <> 'PAGO'")
    >>> rows.counts_rows, rows.aggregate, rows.left_out, rows.leaves_out("status", ["PAGO"])
    (True, 'count', ('status', 'PAGO'), True)
    >>> sorted(rows.fixed_columns), sorted(rows.kept_values), rows.as_of_today
    ([], [], False)
    >>> ratio = shape_of("SUM(CASE WHEN s = 'V' THEN v ELSE 0 END) / NULLIF(SUM(v), 0)", None)
    >>> ratio.aggregate, ratio.one_aggregate, ratio.summed_column, sorted(ratio.expression_values)
    ('sum', False, None, ['V'])
    >>> late = shape_of("COUNT(*)", "a > b OR (a IS NULL AND b < {today})")
    >>> late.open_alternative, late.as_of_today, [sorted(a.parts) for a in late.alternatives]
    ('a IS NULL AND b < {today}', True, [['a>b'], ['aisnull', 'b<{today}']])
    """

    aggregate: str | None
    """The function the expression opens with, in lower case ("sum" of "SUM(valor)",
    "count", "avg"); None when it opens otherwise."""
    counts_rows: bool
    """The expression is COUNT(*) or COUNT(1) (spaces and case aside): it counts rows."""
    summed_column: str | None
    """The column the expression adds up when it is just that sum ("valor" of "SUM(valor)")."""
    one_aggregate: bool
    """The expression is one aggregate call (`one_aggregate`), so it can take a FILTER; a
    ratio of two cannot."""
    simple: bool
    """The expression is one call with no parentheses inside ("SUM(valor)", "COUNT(*)")."""
    has_case: bool
    """The expression says CASE (in any case)."""
    has_filter_clause: bool
    """The expression says FILTER (in any case): an aggregate narrowed by its own condition."""
    share_condition: str | None
    """The condition a share measures its rows by ("a <= b" of "AVG(CASE WHEN a <= b THEN 1
    ELSE 0 END)"), as written; None when the expression is not such a share."""
    share_compared: tuple[str, str, str] | None
    """The share's condition when it compares two names, flattened: (left, operator, right)."""
    expression_names: frozenset[str]
    """The words (`\\w+`) the expression holds, as written: the columns it names, among them."""
    expression_values: frozenset[str]
    """The quoted values the expression holds ("FALTOU" of "CASE WHEN status = 'FALTOU'")."""
    values: frozenset[str]
    """The quoted values the expression and the filter hold."""
    compared: frozenset[tuple[str, str, str]]
    """Each comparison of two names the expression and the filter make, lower case, casts
    aside: (left, operator, right) as written ("a::date <= b": ("a", "<=", "b"))."""
    filter_compared: frozenset[tuple[str, str, str]]
    """Each comparison of two names the filter makes, as `compared`."""
    filter_names: frozenset[str]
    """The words (`\\w+`) the filter holds, as written: the columns it tests, among them."""
    state: tuple[str, str] | None
    """The filter when it is one state, `column = 'VALUE'`: (column, value)."""
    left_out: tuple[str, str] | None
    """The filter when it leaves one state out, `column <> 'VALUE'`: (column, value)."""
    fixed_columns: frozenset[str]
    """The names (lower case) the filter says the states of, by `=` or `IN` (not only which
    they are not)."""
    kept_values: frozenset[str]
    """The quoted values the filter keeps rows in (`= 'V'`, `IN (… 'V' …)`), not those it
    keeps out (`<> 'V'`, `NOT IN`)."""
    alternatives: tuple[Alternative, ...]
    """The filter's top-level OR alternatives (one, the whole filter, when it has no OR)."""
    open_alternative: str | None
    """Of a filter of rows done late or still open, the one alternative that says the end
    is still empty (IS NULL), when there are several."""
    as_of_today: bool
    """The filter says `{today}`: a state measured as of the run's day."""

    def leaves_out(self, column: str, values: list[str]) -> bool:
        """The filter leaves exactly these states of `column` out (`column <> 'VALUE'`).

        >>> shape_of("COUNT(*)", "status <> 'PAGO'").leaves_out("status", ["VENCIDO"])
        False
        """
        return self.left_out is not None and self.left_out == (column, *values)


@functools.cache
def shape_of(expression: str, condition: str | None) -> MetricShape:
    """The shape of a metric's expression and filter (`condition`), read once per pair of
    texts (`MetricDefinition.shape` asks it)."""
    condition = condition or ""
    opening = _OPENING.match(expression)
    summed = _SUMMED_COLUMN.fullmatch(expression)
    share = _SHARE.fullmatch(expression)
    share_compared = _FLAT_COMPARED.fullmatch(flat(share.group(1))) if share else None
    state = _STATE.match(condition)
    left_out = _LEFT_OUT.fullmatch(condition)
    alternatives = tuple(
        Alternative(a, frozenset(flat(p) for p in _top_level(a, "AND")))
        for a in _alternatives(condition)
    )
    still_open = [a.condition for a in alternatives if _IS_NULL.search(a.condition)]
    expression_values = frozenset(_QUOTED.findall(expression))
    return MetricShape(
        aggregate=opening.group(1).lower() if opening else None,
        counts_rows=expression.replace(" ", "").upper() in _ROW_COUNTS,
        summed_column=summed.group(1) if summed else None,
        one_aggregate=one_aggregate(expression),
        simple=bool(_SIMPLE.fullmatch(expression)),
        has_case=bool(_CASE.search(expression)),
        has_filter_clause=bool(_FILTER_CLAUSE.search(expression)),
        share_condition=share.group(1) if share else None,
        share_compared=_triple(share_compared.groups()) if share_compared else None,
        expression_names=frozenset(_NAME.findall(expression)),
        expression_values=expression_values,
        values=expression_values | frozenset(_QUOTED.findall(condition)),
        compared=_compared(f"{expression} {condition}"),
        filter_compared=_compared(condition),
        filter_names=frozenset(_NAME.findall(condition)),
        state=_pair(state.groups()) if state else None,
        left_out=_pair(left_out.groups()) if left_out else None,
        fixed_columns=frozenset(n.lower() for n in _FIXED.findall(condition)),
        kept_values=frozenset(
            [
                *_EQUAL.findall(condition),
                *(v for among in _AMONG.findall(condition) for v in _QUOTED.findall(among)),
            ]
        ),
        alternatives=alternatives,
        open_alternative=(
            still_open[0] if len(alternatives) > 1 and len(still_open) == 1 else None
        ),
        as_of_today="{today}" in condition,
    )


def one_aggregate(expression: str) -> bool:
    """`expression` is one aggregate call (its parentheses balanced, closing at the end), so
    it can take a FILTER; a ratio of two cannot.

    >>> one_aggregate("AVG(EXTRACT(EPOCH FROM a - b) / 3600)"), one_aggregate("SUM(a) / SUM(b)")
    (True, False)
    """
    said = expression.strip()
    opened = re.match(r"\w+\(", said)
    if opened is None:
        return False
    depth = 0
    for index, char in enumerate(said[opened.end() - 1 :], opened.end() - 1):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return index == len(said) - 1
    return False


def flat(condition: str) -> str:
    """`condition` in lower case without casts or spaces, as conditions are compared.

    >>> flat("d::date < {today} AND c IS NULL")
    'd<{today}andcisnull'
    """
    return re.sub(r"::\w+|\s+", "", condition.lower())


def _compared(text: str) -> frozenset[tuple[str, str, str]]:
    return frozenset(_triple(found) for found in _COMPARED.findall(_CAST.sub("", text.lower())))


def _triple(found: tuple[str, ...]) -> tuple[str, str, str]:
    left, operator, right = found
    return left, operator, right


def _pair(found: tuple[str, ...]) -> tuple[str, str]:
    first, second = found
    return first, second


def _alternatives(condition: str) -> list[str]:
    """The condition's top-level OR alternatives, each without its outer parentheses.

    >>> _alternatives("a > b OR (c IS NULL AND d < 1)")
    ['a > b', 'c IS NULL AND d < 1']
    """
    return [_unwrapped(part) for part in _top_level(condition, "OR")]


def _top_level(condition: str, word: str) -> list[str]:
    """The condition's parts joined by `word` (AND, OR) outside any parentheses.

    >>> _top_level("c IS NULL AND (d < 1 AND e)", "AND")
    ['c IS NULL', '(d < 1 AND e)']
    """
    parts, depth, start = [], 0, 0
    for found in re.finditer(rf"[()]|\s{word}\s", condition, re.IGNORECASE):
        said = found.group(0)
        depth += {"(": 1, ")": -1}.get(said, 0)
        if said.strip().upper() == word and depth == 0:
            parts.append(condition[start : found.start()])
            start = found.end()
    return [p.strip() for p in [*parts, condition[start:]]]


def _unwrapped(part: str) -> str:
    while part.startswith("(") and part.endswith(")") and _closes_last(part):
        part = part[1:-1].strip()
    return part


def _closes_last(part: str) -> bool:
    """The opening parenthesis is closed by the last character, not before."""
    depth = 0
    for index, character in enumerate(part):
        depth += {"(": 1, ")": -1}.get(character, 0)
        if depth == 0 and index < len(part) - 1:
            return False
    return True
