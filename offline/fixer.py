"""The offline fixer: repairs real PostgreSQL errors and guard rejections from the catalog.

Handled: an unknown column or table (the closest catalog name by synonyms and spelling),
an ambiguous column (qualified with the first table that has it), a comparison between text
and a number (the literal quoted or unquoted), a column missing from GROUP BY (added), and a
function the guard refused (the select item using it dropped).
"""

from __future__ import annotations

import difflib
import re

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
        statement = pglast.parse_sql(sql)[0].stmt
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


def _rename_column(statement, wrong: str, tables, catalog, lexicon) -> None:
    right = _closest_column(wrong, tables, catalog, lexicon)
    if right is None:
        return
    for node in iter_nodes(statement):
        last = node.fields[-1] if isinstance(node, ast.ColumnRef) else None
        if isinstance(last, ast.String) and last.sval == wrong:
            node.fields = (*node.fields[:-1], ast.String(sval=right))


def _rename_table(statement, wrong: str, catalog: Catalog, lexicon: Lexicon) -> None:
    candidates = [m.table for m in lexicon.phrases.get(phrase_key(wrong), []) if m.kind == "table"]
    candidates += difflib.get_close_matches(wrong, list(catalog.tables), n=1, cutoff=0.5)
    if candidates:
        for ref, _scope in iter_relations(statement):
            if ref.relname == wrong:
                ref.relname = candidates[0]


def _qualify(statement, column: str, catalog: Catalog) -> None:
    refs = [r for r, _ in iter_relations(statement) if r.relname in catalog.tables]
    owner = next((r for r in refs if column in catalog.table(r.relname).column_names), None)
    if owner is None:
        return
    alias = owner.alias.aliasname if owner.alias else owner.relname
    for node in iter_nodes(statement):
        if isinstance(node, ast.ColumnRef) and len(node.fields) == 1:
            field = node.fields[0]
            if isinstance(field, ast.String) and field.sval == column:
                node.fields = (ast.String(sval=alias), field)


def _group_by(statement, column: str) -> None:
    parts = tuple(ast.String(sval=p) for p in column.split("."))
    statement.groupClause = (*(statement.groupClause or ()), ast.ColumnRef(fields=parts))


def _fix_comparison(statement, error: str) -> None:
    text_vs_number = re.search(
        r"(text|character varying|character) = (integer|bigint|numeric)", error
    )
    for node in iter_nodes(statement):
        if isinstance(node, ast.A_Expr) and isinstance(node.rexpr, ast.A_Const):
            value = node.rexpr.val
            if text_vs_number and isinstance(value, ast.Integer | ast.Float):
                literal = str(getattr(value, "ival", None) or getattr(value, "fval", ""))
                node.rexpr = ast.A_Const(isnull=False, val=ast.String(sval=literal))
            elif not text_vs_number and isinstance(value, ast.String) and value.sval.isdigit():
                node.rexpr = ast.A_Const(isnull=False, val=ast.Integer(ival=int(value.sval)))


def _drop_refused_items(statement, error: str) -> None:
    found = re.search(r"function (\w+)\(\)", error)
    if not found or not statement.targetList:
        return
    kept = tuple(
        item
        for item in statement.targetList
        if not any(
            isinstance(n, ast.FuncCall) and n.funcname[-1].sval == found.group(1)
            for n in iter_nodes(item)
        )
    )
    if kept:
        statement.targetList = kept
