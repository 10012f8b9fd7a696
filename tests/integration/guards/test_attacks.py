"""The adversarial corpus against all three layers together, on each deployment (attacks.yaml
for logistics, clinics_attacks.yaml for clinics, whose attacks aim at the parent chains too)."""

from __future__ import annotations

import asyncpg
import pytest

from orquestra.guards import GuardRejection
from orquestra.guards.tenant_query import QueryError
from tests.deployment_cases import DEPLOYMENTS
from tests.integration.guards.conftest import (
    TenantCopy,
    corpus,
    for_each_deployment,
    multiset,
    run_guarded,
    run_on_copy,
    run_unguarded,
)


@pytest.mark.parametrize("name", DEPLOYMENTS)
def test_corpus_is_large_and_covers_every_outcome(name: str) -> None:
    attacks = corpus(name, "attacks")
    assert len(attacks) >= 50
    assert len({a["id"] for a in attacks}) == len(attacks)
    outcomes = {a["expect"] for a in attacks}
    assert {"filtered", "QUERY_TIMEOUT", "GUARD_WRITABLE_CTE", "GUARD_SYSTEM_CATALOG"} <= outcomes


@for_each_deployment("attacks", "attack", ids=lambda a: a["id"])
async def test_attack_through_all_layers(
    attack: dict, agent: asyncpg.Connection, owner: asyncpg.Connection, tenant_copy: TenantCopy
) -> None:
    expect = attack["expect"]
    if expect.startswith("GUARD_"):
        with pytest.raises(GuardRejection) as caught:
            await run_guarded(agent, attack["sql"], tenant_copy)
        assert caught.value.code == expect
    elif expect == "QUERY_TIMEOUT":
        with pytest.raises(QueryError) as failed:
            await run_guarded(agent, attack["sql"], tenant_copy)
        assert failed.value.code == "QUERY_TIMEOUT"
        assert await agent.fetchval("SELECT 1") == 1  # the connection is usable again
    else:
        result = await run_guarded(agent, attack["sql"], tenant_copy)
        assert multiset(result.rows) == multiset(
            await run_on_copy(owner, attack["sql"], tenant_copy)
        )


@pytest.mark.parametrize("deployment", ["clinics"], indirect=True)
async def test_the_check_can_fail_unguarded_attacks_on_the_parent_chain_leak(
    owner: asyncpg.Connection, tenant_copy: TenantCopy
) -> None:
    """Run as the owner without the guard, the clinics attacks that the guard filters do read
    other units' rows: an equal answer above is the guard's doing, not the data's."""
    filtered = [a for a in corpus("clinics", "attacks") if a["expect"] == "filtered"]
    leaking = [a["id"] for a in filtered if await _leaks_unguarded(owner, a["sql"], tenant_copy)]
    assert len(leaking) >= 0.8 * len(filtered), f"{len(leaking)} of {len(filtered)} leak"


async def _leaks_unguarded(owner: asyncpg.Connection, sql: str, copy: TenantCopy) -> bool:
    """Whether `sql`, unguarded, answers otherwise than on the copy; an error the copy does
    not raise (another unit's division by zero) tells about other units as well."""
    try:
        unguarded = multiset(await run_unguarded(owner, sql))
    except asyncpg.PostgresError:
        return True
    return unguarded != multiset(await run_on_copy(owner, sql, copy))
