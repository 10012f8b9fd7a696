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

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import traverse_scope
from sqlglot.schema import MappingSchema

from orquestra.ddl_catalog.model import Catalog, per_catalog
from orquestra.guards.sql_findings import CODE, Checked, Correction, Problem
from orquestra.guards.sql_names import qualified_columns, unknown_tables, unresolved_columns
from orquestra.guards.sql_values import enumerated_values

__all__ = ["CODE", "Checked", "Correction", "Problem", "check_sql"]


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
        problems = unknown_tables(tree, catalog)
        if problems:
            return Checked(sql, problems=tuple(problems))
        resolved = _qualified(tree, catalog)
        if resolved is None:  # `qualify` refuses an `alias.column` the alias does not have
            unresolved = sqlglot.parse_one(sql, read="postgres")
            found = qualified_columns(unresolved, catalog)
            return Checked(sql, problems=tuple(dict.fromkeys(found)))
        scopes = traverse_scope(resolved)
        problems = list(unresolved_columns(scopes, catalog))
        corrections, wrong_values = enumerated_values(scopes, catalog)
    except (SqlglotError, RecursionError, KeyError, ValueError):
        return Checked(sql)  # a construct the check cannot follow: the database will say
    problems += wrong_values
    corrected, applied = _apply(sql, corrections)
    return Checked(corrected, applied, tuple(dict.fromkeys(problems)))


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


@per_catalog
def _schema(catalog: Catalog) -> MappingSchema:
    """The catalog's tables and columns as sqlglot's schema, built once per catalog (the
    types do not matter to resolving names, so every column is `text`)."""
    mapping: dict[str, object] = {
        name: dict.fromkeys(t.column_names, "text") for name, t in catalog.tables.items()
    }
    return MappingSchema(mapping, dialect="postgres")
