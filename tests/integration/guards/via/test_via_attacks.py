"""Attacks aimed at the parent chain (attacks.yaml), through all three layers, for every store.

An attack is either refused by the guard with the expected code, or it returns exactly what
it returns on the attacking store's own copy: never a row of another store. A control shows
the comparison can fail: run without the guard, the filtered attacks do read other stores.
"""

from __future__ import annotations

from pathlib import Path

import asyncpg
import pytest
import yaml

from guards import GuardPolicy, GuardRejection
from guards.executor import QueryError
from tests.integration.guards.via.conftest import (
    TENANTS,
    multiset,
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


@pytest.mark.parametrize("tenant", TENANTS)
@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a["id"])
async def test_attack_through_all_layers(
    attack: dict,
    tenant: str,
    via_policy: GuardPolicy,
    via_agent: asyncpg.Connection,
    owner: asyncpg.Connection,
) -> None:
    if attack["expect"] == "QUERY_ERROR":
        with pytest.raises(QueryError) as failed:
            await run_guarded(via_agent, attack["sql"], via_policy, tenant)
        assert failed.value.code == "QUERY_ERROR"
        return
    if attack["expect"] != "filtered":
        with pytest.raises(GuardRejection) as caught:
            await run_guarded(via_agent, attack["sql"], via_policy, tenant)
        assert caught.value.code == attack["expect"]
        return
    result = await run_guarded(via_agent, attack["sql"], via_policy, tenant)
    assert multiset(result.rows) == multiset(await run_on_copy(owner, attack["sql"], tenant))


async def test_the_check_can_fail_unguarded_attacks_leak(owner: asyncpg.Connection) -> None:
    """Without the guard (as the owner, no row-level security), the attacks read other stores."""
    leaking = 0
    for attack in FILTERED:
        unguarded = multiset(await run_unguarded(owner, attack["sql"]))
        copies = [multiset(await run_on_copy(owner, attack["sql"], t)) for t in TENANTS]
        leaking += all(unguarded != copy for copy in copies)
    assert leaking >= 0.9 * len(FILTERED), f"{leaking} of {len(FILTERED)} leak unguarded"
