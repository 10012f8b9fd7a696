"""Attacks aimed at the parent chain (attacks.yaml), for every store, with layer 2 alone and
with all three layers.

An attack is either refused by the guard with the expected code, or it returns exactly what
it returns on the attacking store's own copy: never a row of another store. A control shows
the comparison can fail: run without the guard, the filtered attacks do read other stores.
"""

from __future__ import annotations

from pathlib import Path

import asyncpg
import pytest
import yaml

from orquestra.guards import GuardPolicy, GuardRejection
from orquestra.guards.tenant_query import QueryError
from tests.integration.guards.conftest import multiset
from tests.integration.guards.via.conftest import (
    TENANTS,
    run_guarded,
    run_on_copy,
    run_unguarded,
)

ATTACKS: list[dict] = yaml.safe_load((Path(__file__).parent / "attacks.yaml").read_text("utf-8"))
FILTERED = [a for a in ATTACKS if a["expect"] == "filtered"]


def test_corpus_is_large_and_unique() -> None:
    assert len(ATTACKS) >= 50
    assert len({a["id"] for a in ATTACKS}) == len(ATTACKS)
    assert {a["expect"] for a in ATTACKS} >= {"filtered", "GUARD_TABLE_NOT_ALLOWED"}


@pytest.mark.parametrize("layers", ["layer2-alone", "all-layers"])
@pytest.mark.parametrize("tenant", TENANTS)
@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a["id"])
async def test_attack_through_the_guard(
    attack: dict,
    tenant: str,
    layers: str,
    via_policy: GuardPolicy,
    owner: asyncpg.Connection,
    via_agent: asyncpg.Connection,
) -> None:
    """Layer 2 alone runs as the owner (no row-level security); all layers as the agent."""
    conn = owner if layers == "layer2-alone" else via_agent
    if attack["expect"] == "QUERY_ERROR":
        with pytest.raises(QueryError) as failed:
            await run_guarded(conn, attack["sql"], via_policy, tenant)
        assert failed.value.code == "QUERY_ERROR"
        return
    if attack["expect"] != "filtered":
        with pytest.raises(GuardRejection) as caught:
            await run_guarded(conn, attack["sql"], via_policy, tenant)
        assert caught.value.code == attack["expect"]
        return
    result = await run_guarded(conn, attack["sql"], via_policy, tenant)
    assert multiset(result.rows) == multiset(await run_on_copy(owner, attack["sql"], tenant))


async def test_the_check_can_fail_unguarded_attacks_leak(owner: asyncpg.Connection) -> None:
    """Without the guard (as the owner, no row-level security), the attacks read other stores."""
    leaking = 0
    for attack in FILTERED:
        unguarded = multiset(await run_unguarded(owner, attack["sql"]))
        copies = [multiset(await run_on_copy(owner, attack["sql"], t)) for t in TENANTS]
        leaking += all(unguarded != copy for copy in copies)
    assert leaking >= 0.9 * len(FILTERED), f"{leaking} of {len(FILTERED)} leak unguarded"
