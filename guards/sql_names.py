"""Names in a draft resolved against the catalog (for `guards/sql_check.py`): unknown tables,
unknown or ambiguous columns, with the nearest valid names and the catalog's joins.

Every function here answers only when it is sure; a source whose columns cannot be known
(a set-returning function, a `*` over a derived table) gives no verdict."""

from __future__ import annotations

import difflib
from collections.abc import Iterator

from sqlglot import exp
from sqlglot.optimizer.scope import Scope, traverse_scope

from orquestra.ddl_catalog.model import Catalog, Table
from orquestra.ddl_catalog.text import fold
from orquestra.guards.sql_findings import Problem


def _cte_names(tree: exp.Expr) -> set[str]:
    return {cte.alias_or_name for cte in tree.find_all(exp.CTE)}


def _real_tables(tree: exp.Expr) -> Iterator[exp.Table]:
    """Table references by name (not functions used as sources, not CTE names)."""
    ctes = _cte_names(tree)
    for table in tree.find_all(exp.Table):
        if isinstance(table.this, exp.Identifier) and table.name not in ctes:
            yield table


def unknown_tables(tree: exp.Expr, catalog: Catalog) -> list[Problem]:
    problems = []
    for table in _real_tables(tree):
        if table.name not in catalog.tables:
            problems.append(
                Problem("unknown_table", table.name, suggestions=_near_tables(table.name, catalog))
            )
    return problems


def _near_tables(name: str, catalog: Catalog) -> tuple[str, ...]:
    key = fold(name)
    by_synonym = [
        t.name for t in catalog.tables.values() if key in {fold(s) for s in t.meta.synonyms.all()}
    ]
    close = difflib.get_close_matches(name, list(catalog.tables), n=3, cutoff=0.6)
    return tuple(dict.fromkeys([*by_synonym, *close]))[:3]


def _outputs(source: exp.Table | Scope, catalog: Catalog) -> set[str] | None:
    """The column names a scope's source offers, or None when they cannot be known."""
    if isinstance(source, exp.Table):
        if isinstance(source.this, exp.Identifier) and source.name in catalog.tables:
            return set(catalog.tables[source.name].column_names)
        return None
    names = source.expression.named_selects if isinstance(source.expression, exp.Query) else []
    if not names or "*" in names or any(isinstance(s, exp.Star) for s in _selects(source)):
        return None
    return set(names)


def _selects(scope: Scope) -> list[exp.Expr]:
    return list(scope.expression.selects) if isinstance(scope.expression, exp.Query) else []


def qualified_columns(tree: exp.Expr, catalog: Catalog) -> list[Problem]:
    """`alias.column` where the alias's table has no such column."""
    problems = []
    for scope in traverse_scope(tree):
        for column in scope.columns:
            source = scope.sources.get(column.table) if column.table else None
            if source is None or not column.name:
                continue
            offered = _outputs(source, catalog)
            if offered is None or column.name in offered:
                continue
            table = source.name if isinstance(source, exp.Table) else column.table
            problems.append(_unknown_column(column.name, table, offered, catalog))
    return problems


def _unknown_column(name: str, table: str | None, offered: set[str], catalog: Catalog) -> Problem:
    near = tuple(difflib.get_close_matches(name, sorted(offered), n=3, cutoff=0.6))
    if not near:
        near = _by_synonym(name, [catalog.tables[table]] if table in catalog.tables else [])
    elsewhere = tuple(
        t.name for t in catalog.tables.values() if t.name != table and name in t.column_names
    )
    joins = tuple(join for other in elsewhere if table and (join := _join(table, other, catalog)))
    return Problem(
        "unknown_column", name, table=table, suggestions=near, elsewhere=elsewhere, joins=joins
    )


def _join(table: str, other: str, catalog: Catalog) -> str | None:
    """The catalog's join from `table` to `other` (declared, or a foreign key, on either
    side), as SQL."""
    if table not in catalog.tables or other not in catalog.tables:
        return None
    pairs = _pairs(catalog.tables[table], other)
    if pairs is None:
        back = _pairs(catalog.tables[other], table)
        pairs = [(ours, theirs) for theirs, ours in back] if back else None
    if not pairs:
        return None
    condition = " AND ".join(f"{other}.{theirs} = {table}.{ours}" for ours, theirs in pairs)
    return f"JOIN {other} ON {condition}"


def _pairs(table: Table, other: str) -> list[tuple[str, str]] | None:
    """(column of `table`, column of `other`) pairs of a join from `table` to `other`."""
    for join in table.meta.joins:
        if join.to == other:
            return list(join.on.items())
    for key in table.foreign_keys:
        if key.to == other:
            return list(zip(key.columns, key.to_columns, strict=True))
    return None


def _by_synonym(name: str, tables: list[Table]) -> tuple[str, ...]:
    key = fold(name.replace("_", " "))
    return tuple(
        c.name for t in tables for c in t.columns if key in {fold(s) for s in c.meta.synonyms.all()}
    )


def unresolved_columns(scopes: list[Scope], catalog: Catalog) -> Iterator[Problem]:
    """Unqualified columns no source in scope (or an enclosing one) has, or several have."""
    for scope in scopes:
        offered = {alias: _outputs(source, catalog) for alias, source in scope.sources.items()}
        aliases = _output_aliases(scope)
        for column in scope.columns:
            if column.table or not column.name:
                continue
            if column.name in aliases and column.find_ancestor(exp.Order, exp.Group):
                continue  # ORDER BY and GROUP BY may name the select list's outputs
            if any(names is None for names in offered.values()):
                continue  # a source whose columns cannot be known: no verdict
            having = [alias for alias, names in offered.items() if names and column.name in names]
            if len(having) > 1:
                written = tuple(f"{alias}.{column.name}" for alias in having)
                tables = tuple(_source_name(scope, alias) for alias in having)
                yield Problem(
                    "ambiguous_column", column.name, suggestions=written, elsewhere=tables
                )
            elif not having and not _in_outer_scope(scope, column.name, catalog):
                names = set().union(*(n for n in offered.values() if n)) if offered else set()
                single = next(iter(offered)) if len(offered) == 1 else None
                table = _source_name(scope, single) if single else None
                yield _unknown_column(column.name, table, names, catalog)


def _output_aliases(scope: Scope) -> set[str]:
    """Names the select list gives its items (not a bare column's own name)."""
    return {
        item.alias
        for item in _selects(scope)
        if isinstance(item, exp.Alias)
        and not (isinstance(item.this, exp.Column) and item.this.name == item.alias)
    }


def _source_name(scope: Scope, alias: str) -> str:
    source = scope.sources[alias]
    return source.name if isinstance(source, exp.Table) else alias


def _in_outer_scope(scope: Scope, name: str, catalog: Catalog) -> bool:
    """A correlated reference (or one sqlglot cannot see through) is not a mistake."""
    outer = scope.parent
    while outer is not None:
        for source in outer.sources.values():
            names = _outputs(source, catalog)
            if names is None or name in names:
                return True
        outer = outer.parent
    return False
