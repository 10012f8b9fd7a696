"""Walking pglast syntax trees: every node, and every table reference with its CTE scope.

CTE names resolve the way PostgreSQL resolves them: a WITH list's names are visible in the
statement's body; in a non-recursive WITH each query also sees the CTEs listed before it; in
`WITH RECURSIVE` every CTE sees all of them. A schema-qualified name is never a CTE.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cache
from typing import overload

from pglast import ast

RelationHook = Callable[[ast.RangeVar, frozenset[str]], ast.Node]
"""Called for each table reference with the CTE names in scope; returns its replacement."""


@cache
def _node_fields(kind: type[ast.Node]) -> tuple[str, ...]:
    """Fields of a node class that can hold nodes (pointers and lists, not C strings)."""
    # pglast's stubs omit the per-class field table it fills in at import
    slots: dict[str, ast.SlotTypeInfo] = kind.__slots__  # type: ignore[attr-defined]
    return tuple(
        name for name, info in slots.items() if info.c_type.endswith("*") and info.c_type != "char*"
    )


def children(node: ast.Node) -> Iterator[tuple[str, object]]:
    """(field, value) of each non-empty field of `node` that may hold nodes."""
    # mypy#11470: mypy does not see a class as Hashable, which @cache asks of its argument
    for field in _node_fields(type(node)):  # type: ignore[arg-type]
        value = getattr(node, field)
        if value is not None:
            yield field, value


def iter_nodes(value: object) -> Iterator[ast.Node]:
    """Every node in `value` (a node, or nested tuples of nodes), parents first."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, ast.Node):
            yield item
            stack.extend(reversed([child for _, child in children(item)]))
        elif isinstance(item, tuple | list):
            stack.extend(reversed(item))


def iter_relations(
    value: object, scope: frozenset[str] = frozenset()
) -> Iterator[tuple[ast.RangeVar, frozenset[str]]]:
    """Every table reference in `value` with the CTE names visible where it stands."""
    if isinstance(value, tuple | list):
        for item in value:
            yield from iter_relations(item, scope)
        return
    if not isinstance(value, ast.Node):
        return
    if isinstance(value, ast.RangeVar):
        yield value, scope
        return
    if isinstance(value, ast.SelectStmt) and value.withClause is not None:
        for cte, visible in _cte_scopes(value.withClause, scope):
            yield from iter_relations(cte.ctequery, visible)
        scope = scope | frozenset(cte.ctename for cte in value.withClause.ctes or ())
    for field, child in children(value):
        if field != "withClause":
            yield from iter_relations(child, scope)


@overload
def map_relations(
    value: ast.Node, hook: RelationHook, scope: frozenset[str] = frozenset()
) -> ast.Node: ...
@overload
def map_relations(
    value: object, hook: RelationHook, scope: frozenset[str] = frozenset()
) -> object: ...
def map_relations(value: object, hook: RelationHook, scope: frozenset[str] = frozenset()) -> object:
    """`value` with every table reference replaced by `hook(ref, cte_scope)`, in place."""
    if isinstance(value, tuple | list):
        mapped = tuple(map_relations(item, hook, scope) for item in value)
        return value if all(a is b for a, b in zip(mapped, value, strict=True)) else mapped
    if not isinstance(value, ast.Node):
        return value
    if isinstance(value, ast.RangeVar):
        return hook(value, scope)
    if isinstance(value, ast.SelectStmt) and value.withClause is not None:
        for cte, visible in _cte_scopes(value.withClause, scope):
            if cte.ctequery is not None:
                cte.ctequery = map_relations(cte.ctequery, hook, visible)
        scope = scope | frozenset(cte.ctename for cte in value.withClause.ctes or ())
    for field, child in children(value):
        if field != "withClause":
            replaced = map_relations(child, hook, scope)
            if replaced is not child:
                setattr(value, field, replaced)
    return value


def _cte_scopes(
    with_clause: ast.WithClause, scope: frozenset[str]
) -> Iterator[tuple[ast.CommonTableExpr, frozenset[str]]]:
    ctes = with_clause.ctes or ()
    names = [cte.ctename for cte in ctes]
    for position, cte in enumerate(ctes):
        visible = names if with_clause.recursive else names[:position]
        yield cte, scope | frozenset(visible)
