"""Propose each imported table's tenancy from the schema's foreign keys, fail-closed.

A table holding the tenant column is a root (`tenant_column`). A table that reaches a root
along foreign keys gets `tenant_via` along the first key of the best such path; when several
keys lead to tenant data the choice is deterministic (paths whose keys are all NOT NULL
first — a NULL key hides the row from every tenant —, then the fewest hops, then the
parent's name) and the keys not chosen are named for a person to confirm. A table is proposed
`shared` only when none of its keys can reach tenant data; a key into a table this import
cannot see (another schema, a view) leaves the table undecided, and so does a view without
the tenant column: the loader then refuses it until a person decides.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Key:
    """A foreign key: `table(columns)` → `target(target_columns)`."""

    table: str
    columns: tuple[str, ...]
    target: str
    target_columns: tuple[str, ...]
    not_null: bool
    """All local columns are NOT NULL (no row escapes the parent's tenant as NULL)."""


@dataclass(frozen=True)
class ViaProposal:
    """`tenant_via` for one table: the key chosen, the path it opens, and the others."""

    key: Key
    path: tuple[str, ...]
    """The table, its parent, … up to the root holding the tenant column."""
    alternatives: tuple[tuple[str, ...], ...] = ()
    """Paths through the keys not chosen (each starts at the table)."""
    alternative_keys: tuple[Key, ...] = ()
    """The first key of each alternative path, in the same order."""

    @property
    def columns(self) -> dict[str, str]:
        return dict(zip(self.key.columns, self.key.target_columns, strict=True))


@dataclass(frozen=True)
class TenancyProposal:
    """Every table's proposed tenancy; `undecided` says why a table got none."""

    roots: tuple[str, ...] = ()
    via: dict[str, ViaProposal] = field(default_factory=dict)
    shared: tuple[str, ...] = ()
    undecided: dict[str, str] = field(default_factory=dict)


def propose_tenancy(
    tables: dict[str, tuple[str, ...]],
    keys: list[Key],
    tenant_column: str | None,
    views: frozenset[str] = frozenset(),
) -> TenancyProposal:
    """Tenancy for `tables` (name → column names) from foreign `keys` (targets may lie
    outside `tables`: those keys make a table undecided unless it has a path).
    `tenant_column=None`: one organisation's data (`--no-tenancy`), every table shared."""
    if tenant_column is None:
        return TenancyProposal(shared=tuple(sorted(tables)))
    roots = tuple(sorted(t for t, cols in tables.items() if tenant_column in cols))
    if not roots:
        reason = f"no table has the tenant column {tenant_column!r}; pass --tenant-column"
        return TenancyProposal(undecided={t: reason for t in sorted(tables)})
    by_table: dict[str, list[Key]] = {t: [] for t in tables}
    for key in keys:
        if key.table in by_table and key.target != key.table:
            by_table[key.table].append(key)
    cost = _cost_to_roots(by_table, roots)
    via: dict[str, ViaProposal] = {}
    shared: list[str] = []
    undecided: dict[str, str] = {}
    for name in sorted(tables):
        if name in roots:
            continue
        if name in cost:
            via[name] = _via(name, by_table, cost)
        elif name in views:
            undecided[name] = (
                f"a view without {tenant_column}: its rows may come from tenant tables"
            )
        elif outside := sorted({k.target for k in by_table[name] if k.target not in tables}):
            undecided[name] = (
                f"its foreign keys reach tables this import does not hold ({', '.join(outside)})"
            )
        else:
            shared.append(name)
    return TenancyProposal(roots, via, tuple(shared), undecided)


Cost = tuple[bool, int]
"""A path's cost: does any key along it allow NULL, then its number of hops."""


def _cost_to_roots(by_table: dict[str, list[Key]], roots: tuple[str, ...]) -> dict[str, Cost]:
    """The best path's cost from each table to a root (absent: no path). A path of NOT NULL
    keys beats a shorter one through a nullable key, whose NULL rows would belong to nobody."""
    cost: dict[str, Cost] = dict.fromkeys(roots, (False, 0))
    changed = True
    while changed:  # relax until stable: a cycle only adds hops, so this ends
        changed = False
        for name, table_keys in by_table.items():
            offers = [_through(k, cost) for k in table_keys if k.target in cost]
            if offers and (name not in cost or min(offers) < cost[name]):
                cost[name] = min(offers)
                changed = True
    return cost


def _through(key: Key, cost: dict[str, Cost]) -> Cost:
    nullable, hops = cost[key.target]
    return (nullable or not key.not_null, hops + 1)


def _via(name: str, by_table: dict[str, list[Key]], cost: dict[str, Cost]) -> ViaProposal:
    candidates = sorted(
        (k for k in by_table[name] if k.target in cost), key=lambda k: _rank(k, cost)
    )
    chosen, others = candidates[0], candidates[1:]
    return ViaProposal(
        chosen,
        (name, *_path(chosen.target, by_table, cost)),
        tuple((name, *_path(k.target, by_table, cost)) for k in others),
        tuple(others),
    )


def _path(start: str, by_table: dict[str, list[Key]], cost: dict[str, Cost]) -> tuple[str, ...]:
    """`start`, then the parent each table along the way chose, up to a root."""
    path = [start]
    while cost[path[-1]][1] > 0:
        keys = (k for k in by_table[path[-1]] if k.target in cost)
        path.append(min(keys, key=lambda k: _rank(k, cost)).target)
    return tuple(path)


def _rank(key: Key, cost: dict[str, Cost]) -> tuple[bool, int, str, tuple[str, ...]]:
    """NOT NULL paths first, then fewest hops, then names: the same choice on every run."""
    return (*_through(key, cost), key.target, key.columns)


def describe_via(proposal: ViaProposal) -> str:
    """One line for people: the path chosen and the ones not chosen."""
    columns = ", ".join(f"{c} = {proposal.key.target}.{p}" for c, p in proposal.columns.items())
    line = f"{' → '.join(proposal.path)} (on {columns})"
    if proposal.alternatives:
        line += "; not chosen: " + "; ".join(" → ".join(a) for a in proposal.alternatives)
    return line
