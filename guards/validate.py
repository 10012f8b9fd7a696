"""Layer 1: parse with PostgreSQL's own parser and allowlist every node, failing closed.

`parse_one` turns text into exactly one statement; `validate` walks the whole tree and
rejects anything not positively allowed: a node type it does not know, a function, operator
or type outside the allowlist, a table outside the policy, a parameter the model supplied.
Casts may also name the schema's own enum and domain types the policy lists.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pglast
from pglast import ast

from orquestra.guards import allowlist
from orquestra.guards.errors import GuardRejection
from orquestra.guards.table_policy import GuardPolicy
from orquestra.guards.tree import iter_nodes, iter_relations

PLAIN_NODES = {
    "ResTarget",
    "ColumnRef",
    "A_Star",
    "A_Const",
    "Integer",
    "Float",
    "String",
    "Boolean",
    "BoolExpr",
    "NullTest",
    "BooleanTest",
    "WindowDef",
    "SortBy",
    "CaseExpr",
    "CaseWhen",
    "CoalesceExpr",
    "MinMaxExpr",
    "RangeSubselect",
    "JoinExpr",
    "Alias",
    "WithClause",
    "GroupingSet",
    "A_ArrayExpr",
    "A_Indirection",
    "A_Indices",
    "RowExpr",
    "NamedArgExpr",
    "CollateClause",
    "GroupingFunc",
    "RangeVar",
    "TypeName",
}
"""Node types with nothing to check beyond their children."""


def parse_one(sql: str) -> ast.SelectStmt:
    """The single SELECT in `sql`, or a rejection saying why not.

    >>> type(parse_one("SELECT 1 -- one")).__name__
    'SelectStmt'
    >>> try:
    ...     parse_one("SELECT 1; DELETE FROM orders")
    ... except GuardRejection as refused:
    ...     print(refused)
    GUARD_MULTIPLE_STATEMENTS: exactly one statement is allowed, got 2
    """
    if not sql or not sql.strip():
        raise GuardRejection("GUARD_EMPTY", "the query is empty")
    try:
        statements = pglast.parse_sql(sql)
    except pglast.parser.ParseError as exc:
        raise GuardRejection("GUARD_PARSE_ERROR", f"not valid PostgreSQL: {exc.args[0]}") from None
    if not statements:
        raise GuardRejection("GUARD_EMPTY", "the query is empty")
    if len(statements) != 1:
        raise GuardRejection(
            "GUARD_MULTIPLE_STATEMENTS", f"exactly one statement is allowed, got {len(statements)}"
        )
    statement = statements[0].stmt
    if not isinstance(statement, ast.SelectStmt):
        kind = type(statement).__name__.removesuffix("Stmt").upper()
        raise GuardRejection("GUARD_NOT_SELECT", f"only SELECT queries are allowed, not {kind}")
    return statement


def validate(statement: ast.SelectStmt, policy: GuardPolicy, *, tenant_param: bool = False) -> None:
    """Reject `statement` unless every node in it is allowed. Mutates nothing.

    An empty policy allows no table, only queries of constants:

    >>> validate(parse_one("SELECT round(2.5) AS n"), GuardPolicy({}))
    >>> for sql in ("SELECT pg_sleep(10)", "SELECT * FROM orders"):
    ...     try:
    ...         validate(parse_one(sql), GuardPolicy({}))
    ...     except GuardRejection as refused:
    ...         print(refused)
    GUARD_FUNCTION_NOT_ALLOWED: function pg_sleep() is not allowed
    GUARD_TABLE_NOT_ALLOWED: table orders is not in the catalog
    """
    for node in iter_nodes(statement):
        name = type(node).__name__
        check = CHECKS.get(name)
        if check is not None:
            check(node, policy)
        elif isinstance(node, ast.ParamRef) and tenant_param and node.number == 1:
            continue  # the rewrite's own tenant parameter, checked by the final verification
        elif name not in PLAIN_NODES:
            raise _rejection_for_node(node)
    for ref, scope in iter_relations(statement):
        _check_table(ref, scope, policy)


def _rejection_for_node(node: ast.Node) -> GuardRejection:
    name = type(node).__name__
    if isinstance(node, ast.ParamRef):
        return GuardRejection("GUARD_PARAMETER", "queries may not carry parameters or placeholders")
    if isinstance(node, ast.RangeTableSample):
        return GuardRejection("GUARD_NODE_NOT_ALLOWED", "TABLESAMPLE is not allowed")
    if name.endswith("Stmt"):
        return GuardRejection("GUARD_WRITABLE_CTE", f"a {name} may not appear inside a query")
    return GuardRejection("GUARD_NODE_NOT_ALLOWED", f"{name} is not allowed in a query")


def _check_select(node: ast.SelectStmt, _: GuardPolicy) -> None:
    if node.intoClause is not None:
        raise GuardRejection("GUARD_SELECT_INTO", "SELECT INTO creates a table; not allowed")
    if node.lockingClause:
        raise GuardRejection("GUARD_LOCKING_CLAUSE", "FOR UPDATE/SHARE locks rows; not allowed")


def _check_cte(node: ast.CommonTableExpr, _: GuardPolicy) -> None:
    if not isinstance(node.ctequery, ast.SelectStmt):
        kind = type(node.ctequery).__name__.removesuffix("Stmt").upper()
        raise GuardRejection("GUARD_WRITABLE_CTE", f"a WITH query may only SELECT, not {kind}")


def _check_function(node: ast.FuncCall, _: GuardPolicy) -> None:
    name = _unqualified(node.funcname, "function")
    if name not in allowlist.FUNCTIONS:
        raise GuardRejection("GUARD_FUNCTION_NOT_ALLOWED", f"function {name}() is not allowed")


def _check_range_function(node: ast.RangeFunction, _: GuardPolicy) -> None:
    calls = [item[0] for item in node.functions or ()]
    if node.is_rowsfrom or len(calls) != 1 or not isinstance(calls[0], ast.FuncCall):
        raise GuardRejection("GUARD_FUNCTION_NOT_ALLOWED", "ROWS FROM is not allowed")
    name = _unqualified(calls[0].funcname, "function")
    if name not in allowlist.SET_RETURNING_IN_FROM:
        raise GuardRejection(
            "GUARD_FUNCTION_NOT_ALLOWED", f"function {name}() may not be used as a table"
        )


def _check_operator(node: ast.A_Expr, _: GuardPolicy | None = None) -> None:
    name = _unqualified(node.name, "operator")
    if name not in allowlist.OPERATORS:
        raise GuardRejection("GUARD_OPERATOR_NOT_ALLOWED", f"operator {name} is not allowed")


def _check_cast(node: ast.TypeCast, policy: GuardPolicy) -> None:
    type_name = node.typeName
    assert type_name is not None  # the parser gives every cast its type's name
    names = [n.sval for n in type_name.names or ()]
    shown = ".".join(names) or "?"
    if type_name.setof or not _castable(names, node.arg, policy):
        raise GuardRejection("GUARD_TYPE_NOT_ALLOWED", f"casting to {shown} is not allowed")


def _castable(names: list[str], arg: ast.Node | None, policy: GuardPolicy) -> bool:
    """Whether a cast to the type spelled `names` may stand around `arg`.

    Allowlisted built-ins (bare or `pg_catalog.`), `regconfig` around a string literal only,
    and the policy's own types: `schema.name` always, a bare `name` only when the policy
    lists it bare and no built-in type has that name (written bare, it would mean the
    built-in: `regclass`).
    """
    builtin = len(names) == 1 or (len(names) == 2 and names[0] == "pg_catalog")
    if builtin and names[-1].lower() in allowlist.TYPES:
        return True
    if builtin and names[-1].lower() in allowlist.LITERAL_ONLY_TYPES:
        return isinstance(arg, ast.A_Const) and isinstance(arg.val, ast.String)
    if len(names) == 1:
        shadowed = names[0] in allowlist.BUILTIN_TYPES or names[0].startswith("pg_")
        return not shadowed and names[0] in policy.types
    return len(names) == 2 and names[0] != "pg_catalog" and ".".join(names) in policy.types


def _check_value_function(node: ast.SQLValueFunction, _: GuardPolicy) -> None:
    assert node.op is not None  # the parser sets which function it is
    if node.op.name not in allowlist.SQL_VALUE_FUNCTIONS:
        raise GuardRejection("GUARD_FUNCTION_NOT_ALLOWED", f"{node.op.name[6:]} is not allowed")


def _check_sublink(node: ast.SubLink, _: GuardPolicy) -> None:
    assert node.subLinkType is not None  # the parser sets the kind of every sublink
    if node.subLinkType.name not in allowlist.SUBLINK_TYPES:
        raise GuardRejection("GUARD_NODE_NOT_ALLOWED", f"{node.subLinkType.name} is not allowed")
    if node.operName:
        _check_operator(ast.A_Expr(name=node.operName))


def _unqualified(names: tuple[Any, ...] | None, what: str) -> str:
    """The last part of `names` (pglast's tuple of `String`s), refused unless it stands bare
    or after `pg_catalog.`; lower-cased except for an operator."""
    parts: list[str] = [n.sval for n in names or ()]
    if not parts or len(parts) > 2 or (len(parts) == 2 and parts[0] != "pg_catalog"):
        shown = ".".join(parts) or "?"
        raise GuardRejection(f"GUARD_{what.upper()}_NOT_ALLOWED", f"{what} {shown} is not allowed")
    return parts[-1].lower() if what != "operator" else parts[-1]


def _check_table(ref: ast.RangeVar, scope: frozenset[str], policy: GuardPolicy) -> None:
    shown = ".".join(p for p in (ref.catalogname, ref.schemaname, ref.relname) if p)
    assert ref.relname is not None  # the parser names every table reference
    if ref.schemaname in allowlist.SYSTEM_SCHEMAS or ref.relname.startswith("pg_"):
        raise GuardRejection("GUARD_SYSTEM_CATALOG", f"system catalog {shown} is not allowed")
    if ref.catalogname is None and ref.schemaname is None and ref.relname in scope:
        return  # a CTE of this query
    if ref.catalogname is not None or policy.lookup(ref.schemaname, ref.relname) is None:
        raise GuardRejection("GUARD_TABLE_NOT_ALLOWED", f"table {shown} is not in the catalog")


# Each check takes the node class its key names: a dispatch on the class name that mypy
# cannot relate to the argument's type, hence `Any` for the node.
CHECKS: dict[str, Callable[[Any, GuardPolicy], None]] = {
    "SelectStmt": _check_select,
    "CommonTableExpr": _check_cte,
    "FuncCall": _check_function,
    "RangeFunction": _check_range_function,
    "A_Expr": _check_operator,
    "TypeCast": _check_cast,
    "SQLValueFunction": _check_value_function,
    "SubLink": _check_sublink,
}
