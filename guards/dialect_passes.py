"""Repairs sqlglot's transpilation leaves to be done, as passes over its tree.

sqlglot reads T-SQL and MySQL well and writes PostgreSQL well, but it does not know column
types, and a few of its readings are not what the other dialect means. Each pass is a pure
function `pass(tree) -> tree` (the tree is sqlglot's, read in the slip's dialect); `PASSES`
lists them in the order `dialects._transpiled` runs them before writing PostgreSQL.

>>> import sqlglot
>>> def repaired(sql: str, dialect: str) -> str:
...     tree = sqlglot.parse_one(sql, read=dialect)
...     for step in PASSES:
...         tree = step(tree)
...     return tree.sql(dialect="postgres")
>>> repaired("SELECT 'No. ' + CAST(num AS VARCHAR(10)) FROM t", "tsql")
"SELECT 'No. ' || CAST(num AS VARCHAR(10)) FROM t"
>>> repaired("SELECT DATEADD(day, -30, '2026-06-30')", "tsql")
"SELECT CAST('2026-06-30' AS TIMESTAMP) + INTERVAL '-30 DAY'"
>>> repaired("SELECT DATEDIFF(day, sent, arrived) FROM t", "tsql")
'SELECT (CAST(arrived AS DATE) - CAST(sent AS DATE)) FROM t'
>>> repaired("SELECT GETDATE() - 30", "tsql")
"SELECT CURRENT_TIMESTAMP - INTERVAL '30 DAY'"
>>> repaired("SELECT DATEFROMPARTS(2026, 1, 1)", "tsql")
'SELECT MAKE_DATE(2026, 1, 1)'
>>> repaired("SELECT CAST(num AS CHAR) FROM t", "mysql")
'SELECT CAST(num AS TEXT) FROM t'
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from orquestra.guards.dialect_words import is_text_literal

Pass = Callable[[exp.Expr], exp.Expr]

_TEXT_TYPES = {
    exp.DataType.Type.CHAR,
    exp.DataType.Type.NCHAR,
    exp.DataType.Type.VARCHAR,
    exp.DataType.Type.NVARCHAR,
    exp.DataType.Type.TEXT,
}
_WEEKDAY_PARTS = {"DAYOFWEEK", "WEEKDAY", "DW"}
_DATETIME_TYPES = {
    exp.DataType.Type.DATETIME,
    exp.DataType.Type.DATETIME2,
    exp.DataType.Type.SMALLDATETIME,
    exp.DataType.Type.TIMESTAMP,
}
_EPOCH_SECONDS = {"SECOND": 1, "MINUTE": 60, "HOUR": 3600, "DAY": 86400, "WEEK": 604800}


def text_concatenation(tree: exp.Expr) -> exp.Expr:
    """`a + b` where either side is text becomes `a || b` (T-SQL concatenates with `+`)."""

    def concatenate(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Add) and (_is_text(node.this) or _is_text(node.expression)):
            return exp.DPipe(this=node.this, expression=node.expression)
        return node

    return _bottom_up(tree, concatenate)


def dates_from_text(tree: exp.Expr) -> exp.Expr:
    """A date written as a string and shifted by an interval is cast to a timestamp first:
    PostgreSQL would read `'2026-06-30' + INTERVAL '1 DAY'`'s string as an interval."""

    def cast_operand(node: exp.Expr) -> exp.Expr:
        if _shifted(node) and _is_string(node.this):
            node.set("this", exp.cast(node.this, "timestamp"))
        return node

    return _bottom_up(tree, cast_operand)


def day_boundaries(tree: exp.Expr) -> exp.Expr:
    """T-SQL's `DATEDIFF(day|month|year, a, b)` counts boundaries crossed (calendar days,
    months, years), not elapsed time rounded, which is what sqlglot writes for it."""

    def boundaries(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, exp.DateDiff) or node.args.get("date_part_boundary"):
            return node
        unit = node.text("unit").upper()
        end, start = _bare(node.this), _bare(node.expression)
        if unit in ("DAY", "DD", "D"):
            return exp.paren(exp.cast(end, "date") - exp.cast(start, "date"))
        if unit in ("MONTH", "MM", "M"):
            years = _part("YEAR", end) - _part("YEAR", start)
            months = years * 12 + _part("MONTH", end) - _part("MONTH", start)
            return exp.cast(exp.paren(months), "int")
        if unit in ("YEAR", "YY", "YYYY"):
            return exp.cast(exp.paren(_part("YEAR", end) - _part("YEAR", start)), "int")
        return node

    return _bottom_up(tree, boundaries)


def elapsed_units(tree: exp.Expr) -> exp.Expr:
    """MySQL's `TIMESTAMPDIFF(unit, a, b)`: whole units elapsed, truncated (sqlglot writes
    no PostgreSQL for it); months and years as sqlglot writes a difference in them."""

    def elapsed(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, exp.TimestampDiff):
            return node
        unit = node.text("unit").upper()
        if unit in _EPOCH_SECONDS:
            seconds = exp.Extract(
                this=exp.var("epoch"),
                expression=exp.cast(node.this, "timestamp")
                - exp.cast(node.expression, "timestamp"),
            )
            per_unit = exp.Div(this=seconds, expression=exp.Literal.number(_EPOCH_SECONDS[unit]))
            return exp.cast(exp.func("trunc", per_unit), "bigint")
        if unit in ("MONTH", "QUARTER", "YEAR"):
            return exp.DateDiff(this=node.this, expression=node.expression, unit=node.args["unit"])
        return node  # not MySQL's reading (T-SQL's parser takes other arguments): left as is

    return _bottom_up(tree, elapsed)


def make_date(tree: exp.Expr) -> exp.Expr:
    """`DATEFROMPARTS(y, m, d)` is PostgreSQL's `make_date(y, m, d)`."""

    def from_parts(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.DateFromParts):
            parts = [node.args.get(name) for name in ("year", "month", "day")]
            return exp.Anonymous(this="make_date", expressions=parts)
        return node

    return _bottom_up(tree, from_parts)


def unbounded_text_casts(tree: exp.Expr) -> exp.Expr:
    """`CAST(x AS CHAR)` without a length means a whole string in MySQL (and 30 characters
    in T-SQL), but one character in PostgreSQL: cast to `text` instead."""

    def widen(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.DataType) and node.this in _TEXT_TYPES and not node.expressions:
            return exp.DataType.build("text")
        return node

    return _bottom_up(tree, widen)


def days_from_numbers(tree: exp.Expr) -> exp.Expr:
    """T-SQL's `GETDATE() - 30` (a datetime plus or minus a number counts days) becomes
    `CURRENT_TIMESTAMP - INTERVAL '30 DAY'`: PostgreSQL adds no number to a timestamp."""

    def as_days(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Add | exp.Sub) and _is_datetime(node.this):
            days = node.expression
            if isinstance(days, exp.Literal) and not days.is_string:
                interval = exp.Interval(this=exp.Literal.string(days.name), unit=exp.var("DAY"))
                node.set("expression", interval)
        return node

    return _bottom_up(tree, as_days)


def calendar_parts(tree: exp.Expr) -> exp.Expr:
    """Parts of a date sqlglot has no PostgreSQL for: `QUARTER(d)` is `EXTRACT(QUARTER FROM
    d)`; MySQL's `DAYOFWEEK(d)` and T-SQL's `DATEPART(weekday, d)` count Sunday as 1."""

    def part(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Quarter):
            return exp.Extract(this=exp.var("QUARTER"), expression=node.this)
        weekday = isinstance(node, exp.DayOfWeek) or (
            isinstance(node, exp.Extract) and node.text("this").upper() in _WEEKDAY_PARTS
        )
        if weekday:
            day = node.this if isinstance(node, exp.DayOfWeek) else node.expression
            dow = exp.Extract(this=exp.var("DOW"), expression=day)
            return exp.paren(exp.Add(this=dow, expression=exp.Literal.number(1)))
        return node

    return _bottom_up(tree, part)


PASSES: tuple[Pass, ...] = (
    text_concatenation,
    dates_from_text,
    days_from_numbers,
    day_boundaries,
    elapsed_units,
    make_date,
    calendar_parts,
    unbounded_text_casts,
)
"""The repairs, in order (concatenations first: their `+` must not be read as date math)."""


def _bottom_up(tree: exp.Expr, rewrite: Pass) -> exp.Expr:
    """`tree` with `rewrite` applied to every node, children before their parent (so that a
    chain `a + ' ' + b` sees its inner `+` already rewritten)."""
    for node in reversed(list(tree.walk(bfs=False))):
        replacement = rewrite(node)
        if replacement is not node:
            if node is tree:
                return replacement
            node.replace(replacement)
    return tree


def _shifted(node: exp.Expr) -> bool:
    """Whether `node` adds an interval to, or subtracts one from, its left side."""
    if isinstance(node, exp.DateAdd | exp.DateSub):
        return True
    return isinstance(node, exp.Add | exp.Sub) and isinstance(node.expression, exp.Interval)


def _is_string(node: exp.Expr | None) -> bool:
    return isinstance(node, exp.Literal) and node.is_string


def _is_text(node: exp.Expr | None) -> bool:
    if isinstance(node, exp.Literal):
        return node.is_string and is_text_literal(node.name)
    if isinstance(node, exp.National | exp.DPipe | exp.Concat):
        return True
    if isinstance(node, exp.Paren):
        return _is_text(node.this)
    return isinstance(node, exp.Cast) and node.to.this in _TEXT_TYPES


def _is_datetime(node: exp.Expr | None) -> bool:
    """`GETDATE()`/`NOW()`, or a cast to a date-and-time type."""
    if isinstance(node, exp.CurrentTimestamp):
        return True
    return isinstance(node, exp.Cast) and node.to.this in _DATETIME_TYPES


def _bare(node: exp.Expr) -> exp.Expr:
    """`node` without the `TimeStrToTime` sqlglot wraps T-SQL's date arguments in."""
    return node.this if isinstance(node, exp.TimeStrToTime) else node


def _part(part: str, value: exp.Expr) -> exp.Extract:
    return exp.Extract(this=exp.var(part), expression=exp.cast(value.copy(), "timestamp"))
