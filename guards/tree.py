"""Walking pglast syntax trees: every node, and every table reference with its CTE scope.

`relations()` resolves CTE names the way PostgreSQL does: a WITH list's names are visible in
the statement's body; in a non-recursive WITH each query also sees the CTEs listed before
it; in `WITH RECURSIVE` every CTE sees all of them. A schema-qualified name is never a CTE.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from pglast import ast

RelationHook = Callable[[ast.RangeVar, frozenset[str]], ast.Node]
"""Called for each table reference with the CTE names in scope; returns its replacement."""


def children(node: ast.Node) -> Iterator[tuple[str, object]]:
    """(field, value) of each field of `node` that may hold nodes."""
    for field in type(node).__slots__:
        value = getattr(node, field)
        if isinstance(value, ast.Node | tuple | list):
            yield field, value


def iter_nodes(value: object) -> Iterator[ast.Node]:
    """Every node in `value` (a node, or nested tuples of nodes), parents first."""
    if isinstance(value, ast.Node):
        yield value
        for _, child in children(value):
            yield from iter_nodes(child)
    elif isinstance(value, tuple | list):
        for item in value:
            yield from iter_nodes(item)


def map_relations(value: object, hook: RelationHook, scope: frozenset[str] = frozenset()) -> object:
    """Replace every table reference (`RangeVar`) in `value` by `hook(ref, cte_scope)`."""
    if isinstance(value, tuple | list):
        return tuple(map_relations(item, hook, scope) for item in value)
    if not isinstance(value, ast.Node):
        return value
    if isinstance(value, ast.RangeVar):
        return hook(value, scope)
    if isinstance(value, ast.SelectStmt) and value.withClause is not None:
        scope = _map_with(value.withClause, hook, scope)
    for field, child in children(value):
        if field != "withClause":
            setattr(value, field, map_relations(child, hook, scope))
    return value


def _map_with(with_clause: ast.WithClause, hook: RelationHook, scope: frozenset[str]):
    names = [cte.ctename for cte in with_clause.ctes]
    for position, cte in enumerate(with_clause.ctes):
        visible = names if with_clause.recursive else names[:position]
        cte.ctequery = map_relations(cte.ctequery, hook, scope | frozenset(visible))
    return scope | frozenset(names)
