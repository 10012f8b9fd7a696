"""Propose each imported table's tenancy from the schema's foreign keys, fail-closed.

A table holding the tenant column is a root (`tenant_column`). A table that reaches a root
along foreign keys gets `tenant_via` along the first key of the shortest such path; when
several keys lead to tenant data the choice is deterministic (fewest hops, then keys whose
columns are all NOT NULL — a NULL key hides the row from every tenant —, then the parent's
name) and the keys not chosen are named for a person to confirm. A table is proposed
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
    tenant_column: str,
    views: frozenset[str] = frozenset(),
) -> TenancyProposal:
    """Tenancy for `tables` (name → column names) from foreign `keys` (targets may lie
    outside `tables`: those keys make a table undecided unless it has a path)."""
    roots = tuple(sorted(t for t, cols in tables.items() if tenant_column in cols))
    if not roots:
        reason = f"no table has the tenant column {tenant_column!r}; pass --tenant-column"
        return TenancyProposal(undecided={t: reason for t in sorted(tables)})
    by_table: dict[str, list[Key]] = {t: [] for t in tables}
    for key in keys:
        if key.table in by_table and key.target != key.table:
            by_table[key.table].append(key)
    hops = _hops_to_roots(by_table, roots)
    via: dict[str, ViaProposal] = {}
    shared: list[str] = []
    undecided: dict[str, str] = {}
    for name in sorted(tables):
        if name in roots:
            continue
        if name in hops:
            via[name] = _via(name, by_table, hops)
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


def _hops_to_roots(by_table: dict[str, list[Key]], roots: tuple[str, ...]) -> dict[str, int]:
    """Fewest foreign-key hops from each table to a root (absent: no path)."""
    hops = dict.fromkeys(roots, 0)
    changed = True
    while changed:  # relax until stable: at most one pass per table, schemas are small
        changed = False
        for name, table_keys in by_table.items():
            reachable = [hops[k.target] + 1 for k in table_keys if k.target in hops]
            if reachable and min(reachable) < hops.get(name, len(by_table) + 1):
                hops[name] = min(reachable)
                changed = True
    return hops


def _via(name: str, by_table: dict[str, list[Key]], hops: dict[str, int]) -> ViaProposal:
    candidates = sorted(
        (k for k in by_table[name] if k.target in hops), key=lambda k: _rank(k, hops)
    )
    chosen, others = candidates[0], candidates[1:]
    return ViaProposal(
        chosen,
        (name, *_path(chosen.target, by_table, hops)),
        tuple((name, *_path(k.target, by_table, hops)) for k in others),
        tuple(others),
    )


def _path(start: str, by_table: dict[str, list[Key]], hops: dict[str, int]) -> tuple[str, ...]:
    """`start`, then the parent each table along the way chose, up to a root."""
    path = [start]
    while hops[path[-1]] > 0:
        nxt = min((k for k in by_table[path[-1]] if k.target in hops), key=lambda k: _rank(k, hops))
        path.append(nxt.target)
    return tuple(path)


def _rank(key: Key, hops: dict[str, int]) -> tuple[int, bool, str, tuple[str, ...]]:
    """Fewest hops, then NOT NULL keys, then names: the same choice on every run."""
    return (hops[key.target], not key.not_null, key.target, key.columns)


def describe_via(proposal: ViaProposal) -> str:
    """One line for people: the path chosen and the ones not chosen."""
    columns = ", ".join(f"{c} = {proposal.key.target}.{p}" for c, p in proposal.columns.items())
    line = f"{' → '.join(proposal.path)} (on {columns})"
    if proposal.alternatives:
        line += "; not chosen: " + "; ".join(" → ".join(a) for a in proposal.alternatives)
    return line
