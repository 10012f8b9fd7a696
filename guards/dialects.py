"""Dialect slips repaired before the guard: SQL a model wrote in T-SQL or MySQL, as PostgreSQL.

Hosted models often slip into another dialect (`SELECT TOP 5`, `GETDATE()`, `ISNULL`,
`LIMIT 10, 20`, backticks, `+` between strings). `normalise(sql, dialects)` leaves valid
PostgreSQL alone (byte for byte) and transpiles the rest with sqlglot from each listed dialect
in turn; the first reading that PostgreSQL's own parser (pglast) accepts, with no foreign
construct left, wins. Nothing here decides what may run: the result goes through the guard
like any other SQL, and input that cannot be repaired comes back unchanged for the guard to
refuse as before.

>>> normalise("SELECT TOP 3 num FROM orders ORDER BY total DESC", ["tsql", "mysql"])
Normalised(sql='SELECT num FROM orders ORDER BY total DESC NULLS LAST LIMIT 3', dialect='tsql')
>>> normalise("SELECT DATE_FORMAT(sent, '%Y-%m') FROM orders", ["tsql", "mysql"])
Normalised(sql="SELECT TO_CHAR(CAST(sent AS TIMESTAMP), 'YYYY-MM') FROM orders", dialect='mysql')
>>> normalise("SELECT coalesce(note, '-') FROM orders", ["tsql", "mysql"]).dialect is None
True

Detection is cheap on purpose (it runs on every draft): pglast's JSON parse tree (no Python
node objects) is searched for function and type names PostgreSQL does not have, T-SQL's
`FORMAT(value, pattern)` and `+` beside a text literal; sqlglot only runs when one is found
or the text does not parse.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import sqlglot
from pglast.parser import parse_sql_json
from sqlglot.dialects.dialect import Dialect, Dialects
from sqlglot.errors import ErrorLevel

from orquestra.core.errors import OrquestraError
from orquestra.guards import allowlist
from orquestra.guards.dialect_passes import PASSES
from orquestra.guards.dialect_words import (
    FOREIGN_FUNCTIONS,
    FOREIGN_TYPES,
    TEXT_TYPES,
    is_text_literal,
)

_WORD = re.compile(r"[a-z_][a-z0-9_$]*(?:\s*\()?")
"""A word of lower-cased SQL text, with the `(` after it when it is called."""
_TYPE_WORDS = FOREIGN_TYPES | {"char"}
_CHECKED_CALLS = FOREIGN_FUNCTIONS | {"format", "string_agg"} | _TYPE_WORDS
_SUSPECT_WORDS = _TYPE_WORDS | {f"{name}(" for name in _CHECKED_CALLS}
"""Text that may hold a foreign construct: only then is the parse tree searched (most
drafts have none, and the search costs more than the parse)."""


class UnknownDialect(OrquestraError):
    """A dialect name sqlglot does not know (`--dialect`, `model_sql_dialects`)."""

    code = "DIALECT_UNKNOWN"


@dataclass(frozen=True)
class Normalised:
    """SQL for the guard, and the dialect it was read as when it was transpiled."""

    sql: str
    """PostgreSQL to send to the guard (the input itself when untouched)."""
    dialect: str | None
    """The dialect it was read as, when it was transpiled; None when untouched."""


def normalise(sql: str, dialects: Sequence[str]) -> Normalised:
    """`sql` as PostgreSQL: untouched when it already is, else read as the first of
    `dialects` that gives clean PostgreSQL. Never raises; an empty list turns it off.

    A reading that calls only functions the guard knows is preferred to an earlier one that
    does not: sqlglot writes a function it has no PostgreSQL for under a name of its own
    (`DAY_OF_WEEK`), which another dialect's reading may have translated.

    >>> normalise("SELECT name + ' - ' + city FROM clients", ["tsql"]).sql
    "SELECT name || ' - ' || city FROM clients"
    >>> normalise("SELECT `status` FROM orders LIMIT 10, 20", ["tsql", "mysql"])
    Normalised(sql='SELECT "status" FROM orders LIMIT 20 OFFSET 10', dialect='mysql')
    >>> normalise("SELECT TOP 3 * FROM orders", [])
    Normalised(sql='SELECT TOP 3 * FROM orders', dialect=None)
    >>> normalise("DROP TABLE ((", ["tsql", "mysql"])
    Normalised(sql='DROP TABLE ((', dialect=None)
    """
    untouched = Normalised(sql, None)
    try:
        return _repaired(sql, dialects) or untouched
    except Exception:  # a bug here must cost a fixer call, never the turn
        return untouched


def _repaired(sql: str, dialects: Sequence[str]) -> Normalised | None:
    """`normalise`'s work: None when `sql` is left as it is."""
    if not dialects or is_postgres(sql):
        return None
    fallback: Normalised | None = None
    for dialect in dialects:
        repaired = _transpiled(sql, dialect)
        if repaired is None or not is_postgres(repaired):
            continue
        if _known_calls_only(repaired):
            return Normalised(repaired, dialect)
        fallback = fallback or Normalised(repaired, dialect)
    return fallback


def read_as(sql: str, dialect: str) -> Normalised:
    """`sql` read as `dialect` even if it parses as PostgreSQL (`orquestra sql --dialect`);
    the input unchanged (dialect None) when sqlglot cannot read or write it.

    >>> read_as("SELECT ISNULL(a, 0) FROM t", "tsql")
    Normalised(sql='SELECT COALESCE(a, 0) FROM t', dialect='tsql')
    >>> try:
    ...     read_as("SELECT 1", "cobol")
    ... except UnknownDialect as unknown:
    ...     print(unknown.code)
    DIALECT_UNKNOWN
    """
    check_dialects([dialect])
    repaired = _transpiled(sql, dialect)
    return Normalised(repaired, dialect) if repaired is not None else Normalised(sql, None)


def check_dialects(names: Sequence[str]) -> list[str]:
    """`names` if sqlglot knows each, else `UnknownDialect` naming the known ones."""
    for name in names:
        if not known_dialect(name):
            known = ", ".join(sorted(d.value for d in Dialects if d.value))
            raise UnknownDialect(f"unknown SQL dialect {name!r} (known: {known})")
    return list(names)


def load_dialects(names: Sequence[str]) -> None:
    """Import now what sqlglot imports on first use — the parser, generator and types of
    PostgreSQL and of each of `names` — so that it happens at start-up, off the event loop,
    rather than inside the first turn that meets a slip. Unknown names are left out."""
    for name in dict.fromkeys(("postgres", *names)):
        if known_dialect(name):
            sqlglot.transpile("SELECT CAST(1 AS text) AS x", read=name, write="postgres")


def known_dialect(name: str) -> bool:
    """Whether sqlglot can read `name` (a bare dialect name, no settings)."""
    try:
        return bool(name) and Dialect.get(name) is not None
    except Exception:  # a name sqlglot cannot even look up (its plugins' import)
        return False


def is_postgres(sql: str) -> bool:
    """Whether PostgreSQL's parser reads `sql` and no foreign construct is in it.

    >>> is_postgres("SELECT now() - interval '30 days'"), is_postgres("SELECT GETDATE()")
    (True, False)
    """
    try:
        parsed = parse_sql_json(sql)
    except Exception:  # pglast's ParseError, or anything odd in the input: not PostgreSQL
        return False
    if not _may_be_foreign(sql):
        return True
    tree = json.loads(parsed)
    return not any(_is_foreign(kind, node) for kind, node in _nodes(tree))


def _known_calls_only(sql: str) -> bool:
    """Whether every function `sql` calls is one the guard allows (a preference between
    readings, not a check: the guard itself decides)."""
    tree = json.loads(parse_sql_json(sql))
    calls = (node for kind, node in _nodes(tree) if kind == "FuncCall")
    return all(_builtin_name(call.get("funcname")) in allowlist.FUNCTIONS for call in calls)


def _may_be_foreign(sql: str) -> bool:
    """Whether the text has a `+`, a foreign function's name before `(`, or a foreign type's
    name: a few microseconds, where searching the tree costs tens."""
    if "+" in sql:
        return True
    words = ("".join(word.split()) for word in _WORD.findall(sql.lower()))
    return not _SUSPECT_WORDS.isdisjoint(words)


def _transpiled(sql: str, dialect: str) -> str | None:
    """`sql` read as `dialect` and written as PostgreSQL after the repair passes; None if
    sqlglot cannot (one statement only: more is for the guard to refuse as written)."""
    if not known_dialect(dialect):
        return None
    try:
        statements = sqlglot.parse(sql, read=dialect, error_level=ErrorLevel.RAISE)
        if len(statements) != 1 or statements[0] is None:
            return None
        tree = statements[0]
        for repair in PASSES:
            tree = repair(tree)
        return str(tree.sql(dialect="postgres", unsupported_level=ErrorLevel.RAISE))
    except Exception:  # sqlglot's ParseError, UnsupportedError, or a bug: not repairable
        return None


def _nodes(value: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    """(node type, fields) of every node in pglast's JSON tree."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, child in item.items():
                if isinstance(child, dict) and key[:1].isupper():
                    yield key, child
                stack.append(child)
        elif isinstance(item, list):
            stack.extend(item)


def _is_foreign(kind: str, node: dict[str, Any]) -> bool:
    if kind == "FuncCall":
        name = _builtin_name(node.get("funcname"))
        if name == "format":  # T-SQL's FORMAT(value, pattern); PostgreSQL's starts with text
            return not _is_text_constant(_first(node.get("args")))
        if name == "string_agg":  # T-SQL's STRING_AGG(…) WITHIN GROUP (ORDER BY …)
            return bool(node.get("agg_within_group"))
        return name in FOREIGN_FUNCTIONS
    if kind == "TypeCast":
        type_name = node.get("typeName", {})
        return _builtin_name(type_name.get("names")) in FOREIGN_TYPES or _bare_char(type_name)
    if (
        kind == "A_Expr"
        and node.get("kind") == "AEXPR_OP"
        and _builtin_name(node.get("name")) == "+"
    ):
        return _is_text(node.get("lexpr")) or _is_text(node.get("rexpr"))
    return False


def _bare_char(type_name: dict[str, Any]) -> bool:
    """`CAST(x AS CHAR)` with no length: MySQL's whole string, PostgreSQL's one character
    (the parser gives it an implied length 1, at no position in the text)."""
    if _builtin_name(type_name.get("names")) != "bpchar":
        return False
    implied = [{"A_Const": {"ival": {"ival": 1}, "location": -1}}]
    return bool(type_name.get("typmods") == implied)


def _builtin_name(names: Any) -> str | None:
    """The lower-cased name in pglast's list of `String`s when it stands bare or after
    `pg_catalog.` (a name in another schema is the database's own, never a slip)."""
    parts = [part.get("String", {}).get("sval", "") for part in names or ()]
    if len(parts) == 1 or (len(parts) == 2 and parts[0] == "pg_catalog"):
        return str(parts[-1]).lower()
    return None


def _first(items: Any) -> Any:
    return items[0] if isinstance(items, list) and items else None


def _is_text_constant(operand: Any) -> bool:
    constant = operand.get("A_Const") if isinstance(operand, dict) else None
    return isinstance(constant, dict) and "sval" in constant


def _is_text(operand: Any) -> bool:
    """Whether an operand of `+` is text: a literal that reads as neither a number, a date,
    nor an interval, or a cast to a text type."""
    if not isinstance(operand, dict):
        return False
    if _is_text_constant(operand):
        return is_text_literal(str(operand["A_Const"]["sval"].get("sval", "")))
    cast = operand.get("TypeCast")
    if isinstance(cast, dict):
        return _builtin_name(cast.get("typeName", {}).get("names")) in TEXT_TYPES
    return False
