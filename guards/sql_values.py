"""Literals compared with an enumerated column (for `guards/sql_check.py`): a case slip
becomes a `Correction`, any other value a `Problem` listing the valid ones."""

from __future__ import annotations

import difflib
from collections.abc import Iterator

from sqlglot import exp
from sqlglot.optimizer.scope import Scope, find_all_in_scope

from orquestra.ddl_catalog.model import Catalog, Table
from orquestra.ddl_catalog.text import fold
from orquestra.guards.sql_findings import Correction, Problem


def enumerated_values(
    scopes: list[Scope], catalog: Catalog
) -> tuple[list[tuple[Correction, exp.Literal]], list[Problem]]:
    """Literals compared with an enumerated column: case slips corrected, others reported."""
    corrections: list[tuple[Correction, exp.Literal]] = []
    problems: list[Problem] = []
    for scope in scopes:
        for column, literal in _comparisons(scope):
            source = scope.sources.get(column.table)
            if not isinstance(source, exp.Table) or source.name not in catalog.tables:
                continue
            values = _values(catalog, catalog.tables[source.name], column.name)
            found = literal.this
            if not values or found in values:
                continue
            where = f"{source.name}.{column.name}"
            same_case = [v for v in values if v.casefold() == found.casefold()]
            if len(same_case) == 1:
                corrections.append((Correction(where, found, same_case[0]), literal))
            else:
                problems.append(
                    Problem(
                        "unknown_value",
                        found,
                        table=source.name,
                        column=column.name,
                        suggestions=_near_values(
                            found, values, catalog.tables[source.name], column.name
                        ),
                    )
                )
    return corrections, problems


def _comparisons(scope: Scope) -> Iterator[tuple[exp.Column, exp.Literal]]:
    """(column, string literal) pairs of `=`, `<>` and `IN (…)` in the scope's own clauses."""
    for node in find_all_in_scope(scope.expression, exp.EQ, exp.NEQ, exp.In):
        if isinstance(node, exp.In):
            column, literals = node.this, node.expressions
        else:
            column, other = node.this, node.expression
            if isinstance(column, exp.Literal):
                column, other = other, column
            literals = [other]
        if not isinstance(column, exp.Column) or not column.table:
            continue
        for literal in literals:
            if isinstance(literal, exp.Literal) and literal.is_string:
                yield column, literal


def _values(catalog: Catalog, table: Table, name: str) -> list[str]:
    """The column's enumerated values: the catalog's list, or its enum type's labels."""
    if name not in table.column_names:
        return []
    column = table.column(name)
    if column.meta.values:
        return list(column.meta.values)
    declared = catalog.types.get(column.type_sql.split(".")[-1].strip('"'))
    return list(declared.values) if declared and declared.kind == "enum" else []


def _near_values(found: str, values: list[str], table: Table, name: str) -> tuple[str, ...]:
    """Every valid value, the likeliest first (a synonym, then spelling)."""
    key = fold(found)
    meant = [
        value
        for value, words in table.column(name).meta.value_synonyms.items()
        if key in {fold(word) for word in words}
    ]
    folded = {fold(v): v for v in values}
    close = [folded[k] for k in difflib.get_close_matches(key, list(folded), n=3, cutoff=0.6)]
    return tuple(dict.fromkeys([*meant, *close, *values]))
