"""Precise errors before the database: a statement checked against the catalog's schema.

PostgreSQL says `column "titel" does not exist` and stops at the first mistake; a
model repairing the query then guesses. Here the statement is read with sqlglot, resolved
against the catalog with sqlglot's `qualify` (every column to the table it comes from, through
aliases, CTEs and derived tables), and each mistake becomes a `Problem` naming what was
written, where, and the nearest valid names or values — feedback the fixer can act on at
once. A comparison of an enumerated column with a value that differs from a listed one only
in case (`rating = 'pg-13'` where the values are `G`, `PG`, `PG-13`, …) is corrected here,
without a model call, and reported as a `Correction`.

This is not a security layer: the guard (pglast, the real PostgreSQL parser) still decides
what may run. The check only speaks when it is sure — anything it cannot read or resolve
(a construct sqlglot does not know, a set-returning function as a source, a `*` over a
derived table) leaves the statement to the guard and the database, as before.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import Scope, find_all_in_scope, traverse_scope
from sqlglot.schema import MappingSchema

from orquestra.ddl_catalog.model import Catalog, Table
from orquestra.ddl_catalog.text import fold

ProblemKind = Literal["unknown_table", "unknown_column", "ambiguous_column", "unknown_value"]
CODE = "SQL_CHECK"
"""The code a statement the check stopped carries in the fixer's error text."""


@dataclass(frozen=True)
class Problem:
    """One mistake the database would refuse (or answer emptily), with what would be right."""

    kind: ProblemKind
    name: str
    """The table, column or value as written."""
    table: str | None = None
    """The table (or alias) the column was read from, or the enumerated column's table."""
    column: str | None = None
    """For an unknown value: the enumerated column compared with it."""
    suggestions: tuple[str, ...] = ()
    """The nearest valid names or values, best first (for a value: every valid one; for an
    ambiguous column: each qualified way to write it)."""
    elsewhere: tuple[str, ...] = ()
    """For an unknown column: catalog tables that do have it (a missing join?); for an
    ambiguous one: the table behind each of `suggestions`."""
    joins: tuple[str, ...] = ()
    """For an unknown column found elsewhere: the catalog's join to each such table, as
    SQL (`JOIN inventory ON inventory.film_id = film.film_id`)."""

    def message(self) -> str:
        """One line for the fixer, in the database's own terms."""
        where = f" in {self.table}" if self.table else ""
        if self.kind == "unknown_table":
            text = f'table "{self.name}" does not exist'
        elif self.kind == "ambiguous_column":
            pairs = zip(self.suggestions, self.elsewhere, strict=True)
            choices = " or ".join(f"{written} ({table})" for written, table in pairs)
            return f'column "{self.name}" is ambiguous: write {choices}'
        elif self.kind == "unknown_column":
            text = f'column "{self.name}" does not exist{where}'
        else:
            valid = ", ".join(f"'{v}'" for v in self.suggestions)
            return f"{self.table}.{self.column} has no value '{self.name}'; valid values: {valid}"
        if self.suggestions:
            text += "; did you mean " + " or ".join(f'"{s}"' for s in self.suggestions[:3]) + "?"
        if self.elsewhere:
            text += f" ({self.name} is a column of {', '.join(self.elsewhere)})"
        if self.joins:
            text += "; to use it, " + " or ".join(self.joins)
        return text

    def as_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "name": self.name,
            "table": self.table,
            "column": self.column,
            "suggestions": list(self.suggestions),
            "elsewhere": list(self.elsewhere),
            "joins": list(self.joins),
        }


@dataclass(frozen=True)
class Correction:
    """A value whose case was corrected to the enumerated one it meant."""

    column: str
    """`table.column`."""
    found: str
    value: str

    def as_dict(self) -> dict[str, str]:
        return {"column": self.column, "found": self.found, "value": self.value}


@dataclass(frozen=True)
class Checked:
    """The statement after the check: corrected SQL, what was corrected, what is wrong."""

    sql: str
    corrections: tuple[Correction, ...] = ()
    problems: tuple[Problem, ...] = ()

    def feedback(self) -> str:
        """The error text the fixer gets: the code, then each problem."""
        return f"{CODE}: " + "; ".join(problem.message() for problem in self.problems)


def check_sql(sql: str, catalog: Catalog) -> Checked:
    """`sql` checked against `catalog`; never raises.

    With a table `film (film_id, title, rating)` whose `rating` is an enum of `G`, `PG`,
    `PG-13`, …, `SELECT title FROM film WHERE rating = 'pg-13'` comes back as `… rating =
    'PG-13'` with one `Correction`, and `SELECT titel FROM film` with the problem `column
    "titel" does not exist in film; did you mean "title"?` (tests/unit/guards/
    test_sql_check.py).
    """
    try:
        tree = sqlglot.parse_one(sql, read="postgres")
    except SqlglotError:
        return Checked(sql)
    if not isinstance(tree, exp.Query):
        return Checked(sql)
    try:
        problems = _unknown_tables(tree, catalog)
        if problems:
            return Checked(sql, problems=tuple(problems))
        resolved = _qualified(tree, catalog)
        if resolved is None:  # `qualify` refuses an `alias.column` the alias does not have
            unresolved = sqlglot.parse_one(sql, read="postgres")
            found = _qualified_columns(unresolved, catalog)
            return Checked(sql, problems=tuple(dict.fromkeys(found)))
        scopes = traverse_scope(resolved)
        problems = list(_unresolved_columns(scopes, catalog))
        corrections, wrong_values = _enumerated_values(scopes, catalog)
    except (SqlglotError, RecursionError, KeyError, ValueError):
        return Checked(sql)  # a construct the check cannot follow: the database will say
    problems += wrong_values
    corrected, applied = _apply(sql, corrections)
    return Checked(corrected, applied, tuple(dict.fromkeys(problems)))


def _cte_names(tree: exp.Expr) -> set[str]:
    return {cte.alias_or_name for cte in tree.find_all(exp.CTE)}


def _real_tables(tree: exp.Expr) -> Iterator[exp.Table]:
    """Table references by name (not functions used as sources, not CTE names)."""
    ctes = _cte_names(tree)
    for table in tree.find_all(exp.Table):
        if isinstance(table.this, exp.Identifier) and table.name not in ctes:
            yield table


def _unknown_tables(tree: exp.Expr, catalog: Catalog) -> list[Problem]:
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


def _qualified_columns(tree: exp.Expr, catalog: Catalog) -> list[Problem]:
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


def _qualified(tree: exp.Expr, catalog: Catalog) -> exp.Expr | None:
    """The statement (changed in place) with every column it can resolve qualified by its
    source (sqlglot's `qualify` against the catalog's columns), or None when sqlglot
    refuses it."""
    for table in tree.find_all(exp.Table):
        table.set("db", None)  # the catalog's names are unique; schemas only get in the way
        table.set("catalog", None)
    try:
        return qualify(
            tree,
            schema=_schema(catalog),
            dialect="postgres",
            validate_qualify_columns=False,
            quote_identifiers=False,
            identify=False,
            expand_stars=False,
        )
    except SqlglotError:
        return None


_SCHEMAS: dict[int, tuple[Catalog, MappingSchema]] = {}


def _schema(catalog: Catalog) -> MappingSchema:
    """The catalog's tables and columns as sqlglot's schema, built once per catalog (the
    types do not matter to resolving names, so every column is `text`)."""
    known = _SCHEMAS.get(id(catalog))
    if known is None or known[0] is not catalog:
        mapping: dict[str, object] = {
            name: dict.fromkeys(t.column_names, "text") for name, t in catalog.tables.items()
        }
        if len(_SCHEMAS) > 8:  # a few catalogs per process at most (tests load several)
            _SCHEMAS.clear()
        known = _SCHEMAS[id(catalog)] = (catalog, MappingSchema(mapping, dialect="postgres"))
    return known[1]


def _unresolved_columns(scopes: list[Scope], catalog: Catalog) -> Iterator[Problem]:
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


def _enumerated_values(
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


def _apply(
    sql: str, corrections: list[tuple[Correction, exp.Literal]]
) -> tuple[str, tuple[Correction, ...]]:
    """`sql` with each corrected literal replaced where it was written (right to left), and
    the corrections made (a literal not found as written, e.g. with an escaped quote, is left
    to the database)."""
    placed = []
    for correction, literal in corrections:
        start, end = literal.meta.get("start"), literal.meta.get("end")
        if start is None or end is None or sql[start : end + 1] != f"'{correction.found}'":
            continue
        placed.append((start, end, correction))
    for start, end, correction in sorted(placed, key=lambda p: p[0], reverse=True):
        sql = sql[:start] + f"'{correction.value}'" + sql[end + 1 :]
    return sql, tuple(correction for _, _, correction in sorted(placed, key=lambda p: p[0]))
