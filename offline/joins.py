"""Joining the catalog's tables: shortest paths along its join keys, one alias per table,
and metric expressions qualified with an alias."""

from __future__ import annotations

from collections import deque
from functools import lru_cache
from typing import cast

import pglast
from pglast import ast
from pglast.stream import RawStream

from orquestra.ddl_catalog.model import Catalog, Table, per_catalog
from orquestra.guards.tree import iter_nodes

JoinGraph = dict[str, list[tuple[str, list[tuple[str, str]]]]]
"""Table → (neighbour table, key pairs from the table to the neighbour), in path order."""
JoinStep = tuple[str, str, list[tuple[str, str]]]
"""(from table, to table, key pairs): one join along a path."""


class Unmappable(Exception):
    """The question does not map to the catalog."""


class Joins:
    """FROM clause built along join paths from a base table, one alias per table."""

    def __init__(self, catalog: Catalog, base: str) -> None:
        self.catalog = catalog
        self.aliases = {base: alias_for(base, set())}
        self.clauses = [f"{base} AS {self.aliases[base]}"]
        self.graph = join_graph(catalog)
        self.taken: set[str] = set()  # aliases of tables joined only to name a reference
        # (from alias, table, key pairs) → alias: each reference followed once
        self.edges: dict[tuple[str, str, tuple[tuple[str, str], ...]], str] = {}
        self.outer: set[str] = set()  # aliases joined outer (what refers on from them is too)

    def taken_aliases(self) -> set[str]:
        return {*self.aliases.values(), *self.taken}

    def refer(self, alias: str, pairs: list[tuple[str, str]], target: str, optional: bool) -> str:
        """A referred row joined under an alias of its own, to show what a reference names
        ("cod_dono" → the owner's name); outer when the reference may be empty, so no row is
        lost. The same reference joined twice is joined once."""
        edge = (alias, target, tuple(pairs))
        if edge in self.edges:
            return self.edges[edge]
        other = alias_for(target, self.taken_aliases())
        self.taken.add(other)
        self.edges[edge] = other
        kind = "LEFT JOIN" if optional else "JOIN"
        if optional:
            self.outer.add(other)
        keys = " AND ".join(f"{alias}.{a} = {other}.{b}" for a, b in pairs)
        self.clauses.append(f"{kind} {target} AS {other} ON {keys}")
        return other

    def alias(self, table: str) -> str:
        if table not in self.aliases:
            path = join_path(self.graph, set(self.aliases), table)
            if path is None:
                return self._tenant(table)
            for left, right, pairs in path:
                if right in self.aliases:
                    continue
                self.aliases[right] = alias_for(right, self.taken_aliases())
                self.edges[(self.aliases[left], right, tuple(pairs))] = self.aliases[right]
                keys = " AND ".join(
                    f"{self.aliases[left]}.{a} = {self.aliases[right]}.{b}" for a, b in pairs
                )
                self.clauses.append(f"JOIN {right} AS {self.aliases[right]} ON {keys}")
        return self.aliases[table]

    def _tenant(self, table: str) -> str:
        """The tenant's own table ("which unit", where units are the tenants): joined on
        the base's tenant column, the one join the graph leaves out."""
        target = self.catalog.table(table)
        base = self.catalog.table(next(iter(self.aliases)))
        if target.primary_key != (target.tenant_column,) or not base.tenant_column:
            raise Unmappable(f"{table} cannot be joined to the other tables")
        alias = self.aliases[table] = alias_for(table, self.taken_aliases())
        self.clauses.append(
            f"JOIN {table} AS {alias} ON {self.aliases[base.name]}.{base.tenant_column}"
            f" = {alias}.{target.tenant_column}"
        )
        return alias

    def sql(self) -> str:
        return " ".join(self.clauses)


def in_values(column: str, values: list[str] | tuple[str, ...], negated: bool = False) -> str:
    """`column = 'V'` or `column IN ('V', 'W')` (with `negated`: `<>`, `NOT IN`)."""
    quoted = ", ".join(f"'{v}'" for v in values)
    if len(values) == 1:
        return f"{column} {'<>' if negated else '='} {quoted}"
    return f"{column} {'NOT IN' if negated else 'IN'} ({quoted})"


@lru_cache(maxsize=1024)
def qualify(expression: str, alias: str) -> str:
    """`expression` with every bare column prefixed by `alias` (parsed, not pattern-matched;
    remembered: a catalog has few metric expressions and a parse costs ~2 ms)."""
    statement = cast(ast.SelectStmt, pglast.parse_sql(f"SELECT {expression}")[0].stmt)
    for node in iter_nodes(statement):
        if (
            isinstance(node, ast.ColumnRef)
            and node.fields
            and len(node.fields) == 1
            and isinstance(node.fields[0], ast.String)
        ):
            node.fields = (ast.String(sval=alias), node.fields[0])
    return RawStream()((statement.targetList or ())[0].val)


def alias_for(table: str, taken: set[str]) -> str:
    candidate = "".join(part[0] for part in table.split("_"))
    while candidate in taken:
        candidate += "x"
    return candidate


@per_catalog
def join_graph(catalog: Catalog) -> JoinGraph:
    """The catalog's join graph, built once per catalog object (it is only read)."""
    return _build_join_graph(catalog)


def _build_join_graph(catalog: Catalog) -> JoinGraph:
    graph: JoinGraph = {name: [] for name in catalog.tables}
    for table in catalog.tables.values():
        for join in table.meta.joins:
            if set(join.on) == {table.tenant_column}:
                continue
            pairs = list(join.on.items())
            graph[table.name].append((join.to, pairs))
            graph[join.to].append((table.name, [(b, a) for a, b in pairs]))
    # Paths go through the things and the links between them before the event series that
    # merely describe them (an entity with no events yet must still be joined); and, among
    # paths as short, along a row's own references before the rows that refer to it (a
    # reference never repeats a row; a table of children does, and a sum would count twice).
    referenced = {join.to for t in catalog.tables.values() for join in t.meta.joins}
    for name, neighbours in graph.items():
        own = {j.to for j in catalog.table(name).meta.joins}
        neighbours.sort(
            key=lambda pair: (
                pair[0] not in referenced and looks_like_series(catalog.table(pair[0])),
                pair[0] not in own,
            )
        )
    return graph


def looks_like_series(table: Table) -> bool:
    return any(c.type_sql.startswith("timestamp") for c in table.columns) and any(
        c.meta.values for c in table.columns
    )


def join_path(graph: JoinGraph, sources: set[str], target: str) -> list[JoinStep] | None:
    previous: dict[str, tuple[str, list[tuple[str, str]]] | None] = {s: None for s in sources}
    queue = deque(sorted(sources))
    while queue:
        node = queue.popleft()
        if node == target:
            steps: list[JoinStep] = []
            while (step := previous[node]) is not None:
                parent, pairs = step
                steps.append((parent, node, pairs))
                node = parent
            return list(reversed(steps))
        for neighbour, pairs in graph[node]:
            if neighbour not in previous:
                previous[neighbour] = (node, pairs)
                queue.append(neighbour)
    return None
