"""Units of a result's columns, from the catalog's column metadata and the query that ran.

A column is money (or kilograms, or days) because the catalog says so (`unit:` on a column,
or on a glossary metric), never because of its name: `customer_id` is never money. The
query carries the unit from the catalog's columns to the result's columns through aliases,
CTEs and subqueries: when the catalog says `t.amount` has `unit: BRL`,
`column_units("SELECT date_trunc('month', d) AS mes, SUM(amount) AS sales, COUNT(*) AS n
FROM t GROUP BY 1", ["mes", "sales", "n"], catalog)` is `{'sales': 'BRL'}`.

Sums, averages, minimums, maximums, rounding, casts, COALESCE and CASE keep their argument's
unit; counts have none; a product keeps the one factor that has a unit; a quotient keeps the
numerator's unit when the denominator has none, and loses it otherwise (a share, a rate).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pglast import ast, enums, parse_sql
from pglast.parser import ParseError

from orquestra.ddl_catalog.model import RATIO, Catalog, is_ratio, per_catalog
from orquestra.ddl_catalog.text import fold, is_code_name
from orquestra.guards.tree import children, iter_nodes

KEEPS_UNIT = {
    "sum",
    "avg",
    "min",
    "max",
    "round",
    "trunc",
    "abs",
    "ceil",
    "ceiling",
    "floor",
    "coalesce",
    "greatest",
    "least",
    "nullif",
    "first_value",
    "last_value",
    "nth_value",
    "lag",
    "lead",
    "percentile_cont",
    "percentile_disc",
    "mode",
}
"""Functions whose result is in the unit of their (numeric) argument."""
PERIODS = {"day": "day", "week": "week", "month": "month", "quarter": "quarter", "year": "year"}
"""`date_trunc` fields a result column is read as a period of (other fields are left as times)."""


@per_catalog
def catalog_units(catalog: Catalog) -> dict[str, str]:
    """Column name → unit over the whole catalog (a name whose tables disagree is left out),
    and each glossary metric's name → its unit. Built once per catalog object."""
    seen: dict[str, set[str | None]] = {}
    for table in catalog.tables.values():
        for column in table.columns:
            seen.setdefault(column.name, set()).add(column.meta.unit)
    units = {name: next(iter(found)) for name, found in seen.items() if len(found) == 1}
    for term in catalog.glossary:
        if term.metric is not None and term.metric.unit:
            units.setdefault(_name_key(term.term), term.metric.unit)
    return {name: unit for name, unit in units.items() if unit}


def identifier_columns(columns: Sequence[str], catalog: Catalog) -> set[str]:
    """The result columns that identify rows rather than measure them: a key of some catalog
    table (primary, unique, foreign or join column), or a name that says so by convention."""
    keys: set[str] = set()
    for table in catalog.tables.values():
        keys.update(table.primary_key)
        keys.update(c for key in table.unique_keys for c in key)
        keys.update(c for key in table.foreign_keys for c in key.columns)
        keys.update(c for join in table.meta.joins for c in join.on)
    return {c for c in columns if c in keys or is_code_name(c)}


def column_units(sql: str | None, columns: Sequence[str], catalog: Catalog) -> dict[str, str]:
    """The unit of each of `columns` (a result's names) that has one."""
    known = catalog_units(catalog)
    named: dict[str, str | None] = {}
    targets = _targets(sql)
    # Twice: an outer query may be read before the subquery it selects from.
    for target in targets + targets:
        name = _output_name(target)
        if name is not None:
            unit = _unit(target.val, {**known, **named})
            # a share computed from 1s and 0s carries no column's unit: its name says it
            # ("AVG(CASE … THEN 1.0 ELSE 0.0 END) AS on_time_rate", the glossary's ratio)
            ratio = is_ratio(known.get(_name_key(name)))
            if unit is None and ratio and not _function_named(target.val, "count"):
                unit = RATIO
            named[name] = unit
    units = {}
    for column in columns:
        unit = named[column] if column in named else known.get(_name_key(column))
        if unit:
            units[column] = unit
    return units


def _targets(sql: str | None) -> list[ast.ResTarget]:
    """Every select-list item of the query, inner queries (CTEs, subqueries) first."""
    if not sql:
        return []
    try:
        statements = parse_sql(sql)
    except ParseError:
        return []
    found = [n for n in iter_nodes(statements) if isinstance(n, ast.ResTarget) and n.val]
    return list(reversed(found))


def _output_name(target: ast.ResTarget) -> str | None:
    """The name PostgreSQL gives the item: its alias, a column's name or a function's name."""
    if target.name:
        return target.name
    value = target.val
    if isinstance(value, ast.ColumnRef) and isinstance(last := _last(value.fields), ast.String):
        return str(last.sval)
    if isinstance(value, ast.FuncCall) and isinstance(last := _last(value.funcname), ast.String):
        return str(last.sval)
    return None


def _last(names: tuple[object, ...] | None) -> object | None:
    """The last part of a dotted name (pglast leaves an absent list as None)."""
    return names[-1] if names else None


def _unit(node: object, units: Mapping[str, str | None]) -> str | None:
    """The unit of an expression, given the units of the names it may read."""
    if isinstance(node, ast.ColumnRef):
        last = _last(node.fields)
        return units.get(str(last.sval)) if isinstance(last, ast.String) else None
    if isinstance(node, ast.TypeCast):
        return _unit(node.arg, units)
    if isinstance(node, ast.FuncCall):
        function = _last(node.funcname)
        name = str(function.sval).lower() if isinstance(function, ast.String) else ""
        if name not in KEEPS_UNIT or node.agg_star:
            return None
        return _same(_unit(arg, units) for arg in node.args or ())
    if isinstance(node, ast.CoalesceExpr | ast.MinMaxExpr):
        return _same(_unit(arg, units) for arg in node.args or ())
    if isinstance(node, ast.CaseExpr):
        results = [when.result for when in node.args or ()]
        if node.defresult is not None:
            results.append(node.defresult)
        return _same(_unit(result, units) for result in results)
    if isinstance(node, ast.A_Expr):
        return _operator_unit(node, units)
    return None


def _operator_unit(node: ast.A_Expr, units: Mapping[str, str | None]) -> str | None:
    left = _unit(node.lexpr, units) if node.lexpr is not None else None
    right = _unit(node.rexpr, units) if isinstance(node.rexpr, ast.Node) else None
    if node.kind == enums.A_Expr_Kind.AEXPR_NULLIF:
        return left
    if node.kind != enums.A_Expr_Kind.AEXPR_OP:
        return None
    last = _last(node.name)
    operator = str(last.sval) if isinstance(last, ast.String) else ""
    if operator in ("+", "-"):
        return _same([left, right])
    if operator == "*":
        return left if right is None else (right if left is None else None)
    if operator == "/":
        return left if right is None else None
    return None


def _same(units: object) -> str | None:
    """The one unit the parts share (parts without a unit, like literals, do not count)."""
    found = {unit for unit in units if unit}  # type: ignore[attr-defined]
    return found.pop() if len(found) == 1 else None


def _name_key(name: str) -> str:
    """A name as a column alias would spell it: "ticket médio" → "ticket_medio"."""
    return "_".join(fold(name).split())


ADDS_UP = {"sum", "count"}
"""Aggregates whose values, one per group, add up to the whole (not averages, extremes,
ratios or distinct counts)."""
KEEPS_SUM = {"round", "trunc", "coalesce", "ceil", "ceiling", "floor"}
"""Functions that leave a sum a sum (of their first argument)."""


def additive_columns(sql: str | None) -> set[str] | None:
    """The result columns whose values add up to a real total: a SUM or a COUNT (not of
    DISTINCT), a sum or difference of those, or a column listed row by row; never an
    average, an extreme, a ratio or a percentage, whose "share of the total" means nothing.
    None when the query cannot be read.

    >>> sorted(additive_columns("SELECT canal, SUM(v) AS total, AVG(v) AS media, "
    ...        "SUM(v) / COUNT(*) AS ticket FROM t GROUP BY canal"))
    ['canal', 'total']
    """
    targets = _targets(sql)
    if not targets:
        return None
    named: dict[str, bool] = {}
    for target in targets + targets:  # inner queries first, then again for late ones
        name = _output_name(target)
        if name is not None:
            named[name] = _adds_up(target.val, named)
    return {name for name, adds in named.items() if adds}


def _adds_up(node: object, named: Mapping[str, bool]) -> bool:
    if isinstance(node, ast.ColumnRef):  # a listed column, or one an inner query computed
        last = _last(node.fields)
        return named.get(str(last.sval), True) if isinstance(last, ast.String) else False
    if isinstance(node, ast.TypeCast):
        return _adds_up(node.arg, named)
    if isinstance(node, ast.A_Const):
        return True
    if isinstance(node, ast.FuncCall):
        function = _last(node.funcname)
        name = str(function.sval).lower() if isinstance(function, ast.String) else ""
        if name in ADDS_UP:
            return not node.agg_distinct and node.over is None
        first = (node.args or (None,))[0]
        return name in KEEPS_SUM and first is not None and _adds_up(first, named)
    if isinstance(node, ast.CoalesceExpr):
        return all(_adds_up(arg, named) for arg in node.args or ())
    if isinstance(node, ast.A_Expr) and node.kind == enums.A_Expr_Kind.AEXPR_OP:
        last = _last(node.name)
        operator = str(last.sval) if isinstance(last, ast.String) else ""
        parts = [p for p in (node.lexpr, node.rexpr) if isinstance(p, ast.Node)]
        return operator in ("+", "-") and all(_adds_up(p, named) for p in parts)
    return False


AGGREGATES = {
    *ADDS_UP,
    "avg",
    "min",
    "max",
    "stddev",
    "stddev_samp",
    "stddev_pop",
    "variance",
    "var_samp",
    "var_pop",
    "percentile_cont",
    "percentile_disc",
    "mode",
    "bool_and",
    "bool_or",
    "every",
}


def aggregated_query(sql: str | None) -> bool | None:
    """Whether the outermost query groups or aggregates its rows (a series over periods, a
    figure per group) rather than listing them one by one; None when it cannot be read.

    >>> aggregated_query("SELECT date_trunc('month', d) AS mes, SUM(v) FROM t GROUP BY 1")
    True
    >>> aggregated_query("SELECT id, d, v FROM t ORDER BY d DESC")
    False
    """
    statement = _outermost(sql)
    if not isinstance(statement, ast.SelectStmt) or statement.targetList is None:
        return None
    return bool(statement.groupClause) or _aggregates(statement.targetList)


def column_sources(sql: str | None) -> dict[str, tuple[str, str]]:
    """Each output column of the outermost query that is a table's column as it is, with
    that table and column: "SELECT t.nome AS carrier FROM carriers AS t" → carrier →
    (carriers, nome). A column of a subquery or a CTE, or of an unqualified name over a
    join, has no source (it could be any of them). A `count(*)` (no FILTER) counts the rows
    of the first table: its column is "*".

    >>> column_sources("SELECT t.nome, c.valor AS v FROM c1 AS c JOIN t1 AS t ON c.k = t.k")
    {'nome': ('t1', 'nome'), 'v': ('c1', 'valor')}
    >>> column_sources("SELECT count(*) AS n FROM c1 AS c JOIN t1 AS t ON c.k = t.k")
    {'n': ('c1', '*')}
    """
    statement = _outermost(sql)
    if not isinstance(statement, ast.SelectStmt) or not statement.targetList:
        return {}
    with_clause = statement.withClause
    ctes = {c.ctename for c in with_clause.ctes or ()} if with_clause else set()
    tables: dict[str, str] = {}
    stack = list(statement.fromClause or ())
    while stack:
        item = stack.pop()
        if isinstance(item, ast.JoinExpr):
            stack += [item.larg, item.rarg]
        elif isinstance(item, ast.RangeVar) and item.relname not in ctes:
            relname = str(item.relname)
            tables[str(item.alias.aliasname) if item.alias else relname] = relname
    first = statement.fromClause[0] if statement.fromClause else None
    while isinstance(first, ast.JoinExpr):
        first = first.larg
    counted = str(first.relname) if isinstance(first, ast.RangeVar) else None
    sources = {}
    for target in statement.targetList:
        value, name = target.val, _output_name(target)
        if _counts_rows(value) and counted in tables.values() and name is not None:
            sources[name] = (str(counted), "*")
        if not isinstance(value, ast.ColumnRef) or name is None:
            continue
        parts = [str(f.sval) for f in value.fields or () if isinstance(f, ast.String)]
        if len(parts) == 2 and parts[0] in tables:
            sources[name] = (tables[parts[0]], parts[1])
        elif len(parts) == 1 and len(tables) == 1:
            sources[name] = (next(iter(tables.values())), parts[0])
    return sources


def _counts_rows(value: object) -> bool:
    """`count(*)` with no FILTER: how many rows."""
    if not isinstance(value, ast.FuncCall) or not _function_named(value, "count"):
        return False
    return bool(value.agg_star) and not value.agg_filter


def _function_named(value: object, function: str) -> bool:
    name = _last(value.funcname) if isinstance(value, ast.FuncCall) else None
    return isinstance(name, ast.String) and str(name.sval).lower() == function


def _outermost(sql: str | None) -> ast.Node | None:
    """The query's first statement, or None when there is none or it cannot be read."""
    if not sql:
        return None
    try:
        statements = parse_sql(sql)
    except ParseError:
        return None
    return statements[0].stmt if statements else None


def _aggregates(value: object) -> bool:
    """An aggregate call in `value`, outside subqueries (a scalar subquery's count is not)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, ast.SubLink):
            continue
        if isinstance(item, ast.FuncCall) and item.over is None:
            name = _last(item.funcname)
            if isinstance(name, ast.String) and str(name.sval).lower() in AGGREGATES:
                return True
        if isinstance(item, ast.Node):
            stack.extend(child for _, child in children(item))
        elif isinstance(item, tuple | list):
            stack.extend(item)
    return False


def truncated_periods(sql: str | None) -> dict[str, str]:
    """Result column → the period `date_trunc` cut it to (`month`, `quarter`…), from the query:

    >>> truncated_periods("SELECT date_trunc('month', d)::date AS mes, SUM(v) FROM t GROUP BY 1")
    {'mes': 'month'}
    """
    periods = {}
    for target in _targets(sql):
        name, value = _output_name(target), target.val
        while isinstance(value, ast.TypeCast):
            value = value.arg
        if name is None or not isinstance(value, ast.FuncCall):
            continue
        function = _last(value.funcname)
        first = (value.args or (None,))[0]
        if not isinstance(function, ast.String) or str(function.sval).lower() != "date_trunc":
            continue
        if isinstance(first, ast.A_Const) and isinstance(first.val, ast.String):
            field = str(first.val.sval).lower()
            if field in PERIODS:
                periods[name] = PERIODS[field]
    return periods


def row_limit(sql: str | None) -> int | None:
    """The outermost query's constant `LIMIT n` (a top-N list), or None."""
    count = getattr(_outermost(sql), "limitCount", None)
    if isinstance(count, ast.A_Const) and isinstance(count.val, ast.Integer):
        return int(count.val.ival or 0)
    return None
