"""Equivalence through parents: guarded on the full database == the store's own copy.

Every query of queries.yaml runs for every store twice: with layer 2 alone (as the owner, to
whom row-level security does not apply) and with all layers (as the agent role under the
policies). A control shows the comparison can fail: without the guard, most answers differ.
"""

from __future__ import annotations

from pathlib import Path

import asyncpg
import pytest
import yaml

from orquestra.guards import GuardPolicy
from tests.integration.guards.conftest import multiset
from tests.integration.guards.via.conftest import (
    POLICY_FILE,
    TENANTS,
    run_guarded,
    run_on_copy,
    run_unguarded,
)

QUERIES: list[str] = yaml.safe_load((Path(__file__).parent / "queries.yaml").read_text("utf-8"))


def test_corpus_is_large_enough() -> None:
    assert len(QUERIES) >= 25 and len(set(QUERIES)) == len(QUERIES)


async def _check_every_tenant(
    conn: asyncpg.Connection, copy: asyncpg.Connection, sql: str, policy: GuardPolicy
) -> None:
    """`sql` guarded on `conn` equals the store's copy, for every store."""
    answered = 0
    for tenant in TENANTS:
        expected = multiset(await run_on_copy(copy, sql, tenant))
        guarded = await run_guarded(conn, sql, policy, tenant)
        assert multiset(guarded.rows) == expected, f"store {tenant}"
        answered += sum(expected.values())
    assert answered > 0  # an empty answer for every store would prove nothing


@pytest.mark.parametrize("sql", QUERIES, ids=lambda q: q[:70])
async def test_layer2_alone_equals_the_store_copy(
    sql: str, via_policy: GuardPolicy, owner: asyncpg.Connection
) -> None:
    await _check_every_tenant(owner, owner, sql, via_policy)


@pytest.mark.parametrize("sql", QUERIES, ids=lambda q: q[:70])
async def test_all_layers_equal_the_store_copy(
    sql: str, via_policy: GuardPolicy, via_agent: asyncpg.Connection, owner: asyncpg.Connection
) -> None:
    await _check_every_tenant(via_agent, owner, sql, via_policy)


async def test_the_check_can_fail_unguarded_queries_break_it(owner: asyncpg.Connection) -> None:
    """Run as the owner on the full database without the guard, most answers differ."""
    differing = 0
    for sql in QUERIES:
        unguarded = multiset(await run_unguarded(owner, sql))
        copies = [multiset(await run_on_copy(owner, sql, t)) for t in TENANTS]
        differing += all(unguarded != copy for copy in copies)
    assert differing >= 0.8 * len(QUERIES), f"{differing} of {len(QUERIES)} differ"


async def test_the_check_can_fail_a_guard_blind_to_parents_breaks_it(
    owner: asyncpg.Connection, tmp_path: Path
) -> None:
    """The same guard told that the child tables are shared (the importer's old advice)
    answers most queries with other stores' rows: the via rewrite is what makes them pass."""
    declared = yaml.safe_load(POLICY_FILE.read_text(encoding="utf-8"))
    for entry in declared["tables"].values():
        if entry.pop("tenant_via", None) is not None:
            entry["shared"] = True
    blind_file = tmp_path / "blind.yaml"
    blind_file.write_text(yaml.safe_dump(declared), encoding="utf-8")
    blind = GuardPolicy.from_file(blind_file)
    differing = 0
    for sql in QUERIES:
        for tenant in TENANTS:
            guarded = await run_guarded(owner, sql, blind, tenant)
            if multiset(guarded.rows) != multiset(await run_on_copy(owner, sql, tenant)):
                differing += 1
                break
    assert differing >= 0.8 * len(QUERIES), f"{differing} of {len(QUERIES)} differ"
