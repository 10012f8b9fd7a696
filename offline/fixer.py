"""The offline fixer: repairs real PostgreSQL errors and guard rejections from the catalog.

When the catalog check found the mistakes (`guards/sql_check.py`), the fixer is handed them
as data and follows them (`follow`): each problem's first suggestion applied. Otherwise,
from the error alone: an unknown column or table (the closest catalog name by synonyms and
spelling), an ambiguous column (qualified with the first table that has it), a comparison
between text and a number (the literal quoted or unquoted), a column missing from GROUP BY
(added), and a function the guard refused (the select item using it dropped).
"""

from __future__ import annotations

import difflib
import re
from typing import Any, cast

import pglast
from pglast import ast
from pglast.stream import RawStream

from orquestra.ddl_catalog.model import Catalog
from orquestra.ddl_catalog.text import fold, phrase_key
from orquestra.guards.tree import iter_nodes, iter_relations
from orquestra.offline.lexicon import Lexicon


def repair(sql: str, error: str, catalog: Catalog, lexicon: Lexicon) -> str:
    """Corrected SQL, or the same SQL when the error is not one it knows how to fix."""
    try:
        statement = _select(sql)
    except pglast.parser.ParseError:
        return sql
    tables = [r.relname for r, _ in iter_relations(statement) if r.relname in catalog.tables]
    if found := re.search(r'column "?([\w.]+)"? does not exist', error):
        _rename_column(statement, found.group(1).split(".")[-1], tables, catalog, lexicon)
    elif found := re.search(
        r'relation "([\w.]+)" does not exist|table ([\w.]+) is not in the', error
    ):
        _rename_table(
            statement, (found.group(1) or found.group(2)).split(".")[-1], catalog, lexicon
        )
    elif found := re.search(r'column reference "(\w+)" is ambiguous', error):
        _qualify(statement, found.group(1), catalog)
    elif found := re.search(r'column "([\w.]+)" must appear in the GROUP BY', error):
        _group_by(statement, found.group(1))
    elif "operator does not exist" in error:
        _fix_comparison(statement, error)
    elif error.startswith("GUARD_FUNCTION_NOT_ALLOWED"):
        _drop_refused_items(statement, error)
    return RawStream()(statement)


def follow(sql: str, problems: list[dict[str, Any]]) -> str | None:
    """`sql` with each problem's first suggestion applied (a table or column renamed, an
    ambiguous column qualified, a value replaced); None when none could be applied (no
    suggestion, e.g. a column that needs a join)."""
    try:
        statement = _select(sql)
    except pglast.parser.ParseError:
        return None
    applied = [
        _apply(statement, problem) if problem.get("suggestions") else _join(statement, problem)
        for problem in problems
    ]
    return RawStream()(statement) if any(applied) else None


def _select(sql: str) -> ast.SelectStmt:
    """The first statement of `sql`: the offline model writes SELECTs only."""
    return cast(ast.SelectStmt, pglast.parse_sql(sql)[0].stmt)


def _fields(node: ast.ColumnRef) -> tuple[ast.Node, ...]:
    """The parts of a column reference (the parser always gives at least one)."""
    return node.fields or ()


def _join(statement: ast.SelectStmt, problem: dict[str, Any]) -> bool:
    """A column of another table: that table joined as the catalog says (when the query
    reads one table), and the column read from it."""
    joins, table, name = problem.get("joins") or [], problem.get("table"), problem["name"]
    sources: tuple[ast.Node, ...] = getattr(statement, "fromClause", None) or ()
    if not joins or len(sources) != 1 or not isinstance(sources[0], ast.RangeVar):
        return False
    source = sources[0]
    if source.relname != table:
        return False
    other = problem["elsewhere"][0]
    alias = source.alias.aliasname if source.alias else None
    join = joins[0].replace(f"{table}.", f"{alias}.") if alias else joins[0]
    written = f"{table} AS {alias}" if alias else table
    joined = (_select(f"SELECT 1 FROM {written} {join}").fromClause or ())[0]
    statement.fromClause = (joined,)
    for node in iter_nodes(statement):
        if isinstance(node, ast.ColumnRef) and len(_fields(node)) == 1:
            field = _fields(node)[0]
            if isinstance(field, ast.String) and field.sval == name:
                node.fields = (ast.String(sval=other), field)
    return True


def _apply(statement: ast.Node, problem: dict[str, Any]) -> bool:
    kind, name, best = problem["kind"], problem["name"], problem["suggestions"][0]
    changed = False
    for node in iter_nodes(statement):
        if kind == "unknown_table" and isinstance(node, ast.RangeVar) and node.relname == name:
            node.relname, changed = best, True
        elif kind == "unknown_value" and _is_text(node, name):
            node.val, changed = ast.String(sval=best), True
        elif kind in ("unknown_column", "ambiguous_column") and isinstance(node, ast.ColumnRef):
            last = _fields(node)[-1]
            if not isinstance(last, ast.String) or last.sval != name:
                continue
            if kind == "unknown_column":
                node.fields, changed = (*_fields(node)[:-1], ast.String(sval=best)), True
            elif len(_fields(node)) == 1:
                node.fields = tuple(ast.String(sval=part) for part in best.split("."))
                changed = True
    return changed


def _is_text(node: ast.Node, value: str) -> bool:
    """`node` is the string literal `value`."""
    return (
        isinstance(node, ast.A_Const)
        and isinstance(node.val, ast.String)
        and node.val.sval == value
    )


def _closest_column(name: str, tables: list[str], catalog: Catalog, lexicon: Lexicon) -> str | None:
    columns = {c.name for t in tables for c in catalog.table(t).columns}
    for meaning in lexicon.phrases.get(phrase_key(name), []):
        if meaning.kind == "column" and meaning.column in columns:
            return meaning.column
    close = difflib.get_close_matches(fold(name), sorted(columns), n=1, cutoff=0.5)
    if close:
        return close[0]
    parts = set(name.split("_"))
    scored = sorted(columns, key=lambda c: -len(parts & set(c.split("_"))))
    return scored[0] if scored and parts & set(scored[0].split("_")) else None


def _rename_column(
    statement: ast.SelectStmt, wrong: str, tables: list[str], catalog: Catalog, lexicon: Lexicon
) -> None:
    right = _closest_column(wrong, tables, catalog, lexicon)
    if right is None:
        return
    for node in iter_nodes(statement):
        if not isinstance(node, ast.ColumnRef):
            continue
        last = _fields(node)[-1]
        if isinstance(last, ast.String) and last.sval == wrong:
            node.fields = (*_fields(node)[:-1], ast.String(sval=right))


def _rename_table(
    statement: ast.SelectStmt, wrong: str, catalog: Catalog, lexicon: Lexicon
) -> None:
    candidates = [m.table for m in lexicon.phrases.get(phrase_key(wrong), []) if m.kind == "table"]
    candidates += difflib.get_close_matches(wrong, list(catalog.tables), n=1, cutoff=0.5)
    if candidates:
        for ref, _scope in iter_relations(statement):
            if ref.relname == wrong:
                ref.relname = candidates[0]


def _qualify(statement: ast.SelectStmt, column: str, catalog: Catalog) -> None:
    refs = [r for r, _ in iter_relations(statement) if r.relname in catalog.tables]
    owner = next((r for r in refs if column in catalog.table(r.relname or "").column_names), None)
    if owner is None:
        return
    alias = owner.alias.aliasname if owner.alias else owner.relname
    for node in iter_nodes(statement):
        if isinstance(node, ast.ColumnRef) and len(_fields(node)) == 1:
            field = _fields(node)[0]
            if isinstance(field, ast.String) and field.sval == column:
                node.fields = (ast.String(sval=alias), field)


def _group_by(statement: ast.SelectStmt, column: str) -> None:
    parts = tuple(ast.String(sval=p) for p in column.split("."))
    statement.groupClause = (*(statement.groupClause or ()), ast.ColumnRef(fields=parts))


def _fix_comparison(statement: ast.SelectStmt, error: str) -> None:
    text_vs_number = re.search(
        r"(text|character varying|character) = (integer|bigint|numeric)", error
    )
    for node in iter_nodes(statement):
        if isinstance(node, ast.A_Expr) and isinstance(node.rexpr, ast.A_Const):
            value = node.rexpr.val
            if text_vs_number and isinstance(value, ast.Integer | ast.Float):
                literal = str(getattr(value, "ival", None) or getattr(value, "fval", ""))
                node.rexpr = ast.A_Const(isnull=False, val=ast.String(sval=literal))
            elif (
                not text_vs_number
                and isinstance(value, ast.String)
                and (digits := value.sval or "").isdigit()
            ):
                node.rexpr = ast.A_Const(isnull=False, val=ast.Integer(ival=int(digits)))


def _drop_refused_items(statement: ast.SelectStmt, error: str) -> None:
    found = re.search(r"function (\w+)\(\)", error)
    if not found or not statement.targetList:
        return
    kept = tuple(
        item
        for item in statement.targetList
        if not any(
            isinstance(n, ast.FuncCall) and (n.funcname or ())[-1].sval == found.group(1)
            for n in iter_nodes(item)
        )
    )
    if kept:
        statement.targetList = kept
