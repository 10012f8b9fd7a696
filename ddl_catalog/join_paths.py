"""The catalog's join graph, and the tables that connect a set of chosen tables.

Edges are the catalog's `joins:` and the DDL's foreign keys, both ways. A join on the
tenant column alone relates every row of a tenant to every row of the same tenant: it leads
to the tenants' own table, but never out of it (two tables are not related through their
common tenant), so it is followed one way only.

Chosen tables are connected the way a person draws the joins of a query: the nearest one
first, along a shortest path. Where several shortest paths exist, one that walks from child
to parent is preferred to one through a table that two of its neighbours are both parents of
(a many-to-many link table, then any other: joining two parents through a child that holds
rows of its own multiplies them, the "chasm trap"); then the one through the tables the
question speaks most for.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field

from orquestra.ddl_catalog.model import Catalog

MAX_PATHS = 64
"""Shortest paths compared at most when connecting one table (a catalog's graph is small)."""
Shortest = dict[str, tuple[int, list[str]]]
"""Each table reached: its distance, and the tables just before it on its shortest paths."""


@dataclass(frozen=True)
class JoinGraph:
    """The tables each table joins to, which of them are its parents, and its link tables."""

    neighbours: Mapping[str, frozenset[str]]
    parents: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Each table's parents: the tables its own joins lead to (not on the tenant alone)."""
    links: frozenset[str] = frozenset()
    """Many-to-many link tables: two parents or more, and no column but their keys."""

    @classmethod
    def of(cls, catalog: Catalog) -> JoinGraph:
        graph: dict[str, set[str]] = {name: set() for name in catalog.tables}
        parents: dict[str, set[str]] = {name: set() for name in catalog.tables}
        links = set()
        for table in catalog.tables.values():
            keys = [(set(j.on), j.to) for j in table.meta.joins]
            keys += [(set(k.columns), k.to) for k in table.foreign_keys]
            keys = [(on, to) for on, to in keys if to in graph and to != table.name]
            for columns, target in keys:
                graph[table.name].add(target)
                if table.tenant_column is None or columns != {table.tenant_column}:
                    graph[target].add(table.name)  # a real join: both ways
                    parents[table.name].add(target)
            keyed = set(table.primary_key).union(*(on for on, _ in keys))
            if len(parents[table.name]) > 1 and set(table.column_names) <= keyed:
                links.add(table.name)
        return cls(
            {n: frozenset(t) for n, t in graph.items()},
            {n: frozenset(p) for n, p in parents.items()},
            frozenset(links),
        )

    def connect(self, core: list[str], score: Mapping[str, float]) -> dict[str, tuple[str, ...]]:
        """`core` and the tables on the join paths between them: each table → the path that
        brought it (from a table already chosen to the one it connected, ends included),
        empty for the tables of `core`. A table no join reaches stays, alone.

        >>> from orquestra.ddl_catalog import load_catalog
        >>> graph = JoinGraph.of(load_catalog())
        >>> graph.connect(["clientes", "itens_pedido"], {})
        {'clientes': (), 'itens_pedido': (), 'pedidos': ('clientes', 'pedidos', 'itens_pedido')}
        """
        chosen: dict[str, tuple[str, ...]] = {name: () for name in core}
        connected, waiting = {core[0]}, list(core[1:])
        while waiting:
            shortest = self._shortest(connected)
            reached = [name for name in waiting if name in shortest]
            if not reached:
                break  # the rest are reached by no join: they stay, unconnected
            target = min(reached, key=lambda n: shortest[n][0])
            path = self._best_path(shortest, target, score)
            for name in path[1:-1]:
                chosen.setdefault(name, path)
            connected |= set(path)
            waiting.remove(target)
        return chosen

    def distances(self, sources: set[str]) -> dict[str, int]:
        """Each table's number of joins from the nearest of `sources` (unreachable: absent)."""
        return {name: distance for name, (distance, _) in self._shortest(sources).items()}

    def _best_path(
        self, shortest: Shortest, target: str, score: Mapping[str, float]
    ) -> tuple[str, ...]:
        """The shortest path to `target` that walks best (`_cost`), through the best-scored
        tables where that does not decide (among the first `MAX_PATHS` shortest paths)."""
        paths: list[tuple[str, ...]] = []
        stack: list[tuple[str, ...]] = [(target,)]
        while stack and len(paths) < MAX_PATHS:
            tail = stack.pop()
            before = shortest[tail[0]][1]
            if not before:
                paths.append(tail)
            stack += [(name, *tail) for name in sorted(before, reverse=True)]
        return min(paths, key=lambda p: (self._cost(p), -sum(score.get(n, 0.0) for n in p[1:-1])))

    def _cost(self, path: tuple[str, ...]) -> int:
        """How badly `path` walks: 1 for each link table two of its neighbours on the path are
        both parents of, 2 for any other such table.

        >>> graph = JoinGraph({}, {"line": frozenset({"order", "product"})}, frozenset())
        >>> graph._cost(("order", "line", "product")), graph._cost(("line", "order", "client"))
        (2, 0)
        """
        cost = 0
        for before, middle, after in zip(path, path[1:], path[2:], strict=False):
            if {before, after} <= self.parents.get(middle, frozenset()):
                cost += 1 if middle in self.links else 2
        return cost

    def _shortest(self, sources: set[str]) -> Shortest:
        """Every table reachable from `sources`, breadth first, every shortest way kept."""
        found: Shortest = {name: (0, []) for name in sorted(sources)}
        queue = deque(found)
        while queue:
            name = queue.popleft()
            distance = found[name][0]
            for neighbour in sorted(self.neighbours.get(name, ())):
                if neighbour not in found:
                    found[neighbour] = (distance + 1, [name])
                    queue.append(neighbour)
                elif found[neighbour][0] == distance + 1:
                    found[neighbour][1].append(name)
        return found
