"""Joins `init` and `catalog import` propose where the schema declares no foreign key.

Names suggest the candidates (`ddl_catalog.join_names`); the rows decide
(`ddl_catalog.join_evidence`). For each column that may be a key, its candidates are tried
best rule first; the first rule under which exactly one candidate holds on the data wins:
at least `MIN_VALUES` distinct child values, `MIN_CONTAINMENT` of them found in the parent,
and the parent unique. That join is written into the catalog's `joins:` with its evidence as
a YAML comment, for the owner to confirm. A column whose best candidate the data contradicts
or shows with orphans (`MIN_OVERLAP` to `MIN_CONTAINMENT` of its values found), that has too
few values to tell, that fits several parents equally, or whose tables would join both ways
(1:1, direction unclear) gets a review line instead and nothing in the file — except a
column whose name says no key (`name`, `city`) and whose values are not in the column of the
same name: two attributes sharing a word, not a proposal.

Then, for the text-like columns no name pairs with a parent, the values are searched for in
every unique column of the schema (`ddl_catalog.join_values`): found in exactly one, in
numbers no coincidence explains, the join is written under the rule `values`; found with
orphans, in several keys, or in too few values to tell, it is listed.

The whole step is bounded: each statement by `join_evidence.TIMEOUT_MS`, the step by
`BUDGET_SECONDS` (a candidate left when it is spent is listed as not measured, never written;
a search by values cut short writes nothing it had not finished, and says so).

A written join whose parent column is a declared primary key or unique index also feeds the
tenancy proposal, as a declared key would (the loader accepts `tenant_via` only onto such a
key); the review then says which `tenant_via` rests on a join the database does not declare,
since that path decides which tenant sees each row. A join found by its values alone never
does: a name backs every join that decides which tenant sees a row.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from itertools import groupby
from typing import Any

import asyncpg

from orquestra.ddl_catalog.join_evidence import TIMEOUT_MS, Evidence, Side, measure
from orquestra.ddl_catalog.join_names import (
    VALUES_RULE,
    Candidate,
    Column,
    name_candidates,
    unmatched,
)
from orquestra.ddl_catalog.join_review import (
    BUDGET_SECONDS,
    OUT_OF_TIME,
    JoinProposals,
    Proposal,
    describe_link,
    proposed_links,
)
from orquestra.ddl_catalog.join_value_search import search_values
from orquestra.ddl_catalog.join_values import DECLARED, ValueMatch, is_key_type
from orquestra.ddl_catalog.tenancy import Key

__all__ = [
    "Column",
    "JoinProposals",
    "Proposal",
    "describe_link",
    "naming_columns",
    "propose_joins",
    "proposed_links",
]

MAX_TRIED = 4
"""Candidates tried per column, best first: more parents than that fit the name only when
the name says little (a schema without keys, the same column everywhere)."""


def naming_columns(
    rows: Sequence[Any], primary_key: Sequence[str] | None, unique: Mapping[tuple[str, ...], str]
) -> tuple[Column, ...]:
    """A table's columns as naming reads them, from the importer's `pg_catalog` rows."""
    return tuple(
        Column(
            r["column_name"],
            r["type"],
            r["not_null"],
            unique.get((r["column_name"],), ""),
            r["column_name"] in (primary_key or ()),
        )
        for r in rows
    )


async def propose_joins(
    conn: asyncpg.Connection,
    schema: str,
    tables: Mapping[str, Sequence[Column]],
    declared: Sequence[Key] = (),
    *,
    budget: float = BUDGET_SECONDS,
) -> JoinProposals:
    """Joins for `tables` of `schema` (their columns as `naming_columns` reads them) beyond
    the `declared` foreign keys, each tried on the data."""
    started = time.perf_counter()
    candidates = name_candidates(tables, declared)
    written: list[Proposal] = []
    listed: list[Proposal] = []
    for _, options in groupby(candidates, key=lambda c: (c.table, c.column)):
        tried = list(options)[:MAX_TRIED]
        chosen, refused = await _choose(conn, schema, tried, started + budget)
        written += chosen
        listed += refused
    named = {(c.table, c.column) for c in candidates}
    by_values, stopped = await _by_values(conn, schema, tables, declared, named, started + budget)
    written += [p for p in by_values if not p.note]
    listed += [p for p in by_values if p.note]
    written, listed = _one_way(written, listed)
    found = [*candidates, *(p.candidate for p in written + listed)]
    return JoinProposals(
        tuple(written),
        tuple(listed),
        tuple(unmatched(tables, declared, found)),
        time.perf_counter() - started,
        stopped,
    )


async def _by_values(
    conn: asyncpg.Connection,
    schema: str,
    tables: Mapping[str, Sequence[Column]],
    declared: Sequence[Key],
    named: set[tuple[str, str]],
    deadline: float,
) -> tuple[list[Proposal], str]:
    """Proposals for the text-like columns no declared key, unique constraint or name rule
    claims, from their values (`join_values`); and why that search stopped short."""
    claimed = named | {(k.table, c) for k in declared for c in k.columns}
    matches, stopped = await search_values(
        conn,
        schema,
        {
            table: [(c.name, c.type, c.unique) for c in columns if is_key_type(c.type)]
            for table, columns in tables.items()
        },
        {
            (table, c.name)
            for table, columns in tables.items()
            for c in columns
            if is_key_type(c.type) and not c.unique and (table, c.name) not in claimed
        },
        {table for table, columns in tables.items() if not any(c.in_primary_key for c in columns)},
        deadline,
    )
    return [await _try_values(conn, schema, m, tables, deadline) for m in matches], stopped


async def _try_values(
    conn: asyncpg.Connection,
    schema: str,
    match: ValueMatch,
    tables: Mapping[str, Sequence[Column]],
    deadline: float,
) -> Proposal:
    """A column's values found in a key. One the search would write is measured as any
    candidate, and written only if the rows bear it out; one it would list is listed with the
    search's own counts."""
    child, parent = match.child, match.parent
    not_null = any(c.not_null for c in tables[child.table] if c.name == child.column)
    declared = parent.unique_by if parent.unique_by in DECLARED else ""
    candidate = Candidate(
        child.table,
        child.column,
        parent.table,
        parent.column,
        VALUES_RULE,
        False,
        not_null,
        declared,
    )
    if match.note:
        evidence = Evidence(
            Side(schema, child.table, (child.column,)),
            Side(schema, parent.table, (parent.column,)),
            child.distinct if child.complete else len(child.values),
            match.found,
            child.sampled,
            True,
            parent.unique_by,
        )
        return Proposal(candidate, evidence, match.note)
    tried = await _try(conn, schema, candidate, deadline)
    verdict = tried.evidence.verdict
    return Proposal(
        candidate, tried.evidence, "" if verdict == "holds" else verdict.upper(), match.basis()
    )


async def _choose(
    conn: asyncpg.Connection, schema: str, options: list[Candidate], deadline: float
) -> tuple[list[Proposal], list[Proposal]]:
    """(written, listed) for one child column: rule by rule, best first."""
    first_refusal: Proposal | None = None
    for _, ranked in groupby(options, key=lambda c: c.rank):
        tried = [await _try(conn, schema, c, deadline) for c in ranked]
        holding = [p for p in tried if p.evidence.verdict == "holds"]
        if len(holding) == 1:
            return holding, []
        if holding:
            others = ", ".join(f"{p.candidate.parent}.{p.candidate.parent_column}" for p in holding)
            return [], [Proposal(p.candidate, p.evidence, f"ambiguous ({others})") for p in holding]
        first_refusal = first_refusal or tried[0]
        if any(p.evidence.verdict in ("too few values", "not measured") for p in tried):
            break  # the child's values, or the time, will not be there for the next rule
    if first_refusal is None or _unrelated(first_refusal):
        return [], []
    return [], [first_refusal]


def _unrelated(proposal: Proposal) -> bool:
    """A column whose name says no key (`name`, `city`) whose values are not in the column
    of the same name: two attributes that share a word, nothing for the owner to review."""
    return proposal.candidate.keyless and proposal.evidence.verdict == "contradicted"


async def _try(
    conn: asyncpg.Connection, schema: str, candidate: Candidate, deadline: float
) -> Proposal:
    child = Side(schema, candidate.table, (candidate.column,))
    parent = Side(schema, candidate.parent, (candidate.parent_column,))
    left = deadline - time.perf_counter()
    if left <= 0:
        evidence = Evidence(child, parent, problem=OUT_OF_TIME)
    else:  # no statement may run past the budget either
        timeout = min(TIMEOUT_MS, left * 1000)
        evidence = await measure(conn, child, parent, candidate.declared_unique, timeout)
    return Proposal(candidate, evidence)


def _one_way(
    written: list[Proposal], listed: list[Proposal]
) -> tuple[list[Proposal], list[Proposal]]:
    """Two columns that would each reference the other (1:1, neither named by the key):
    which is the parent is the owner's call, so both are listed, neither written."""
    ends = {
        (p.candidate.table, p.candidate.column, p.candidate.parent, p.candidate.parent_column)
        for p in written
    }
    both = [
        p
        for p in written
        if (p.candidate.parent, p.candidate.parent_column, p.candidate.table, p.candidate.column)
        in ends
    ]
    note = "both ways (1:1): choose the direction"
    return (
        [p for p in written if p not in both],
        listed + [Proposal(p.candidate, p.evidence, note) for p in both],
    )
