"""The adversarial corpus against all three layers together (see attacks.yaml)."""

from __future__ import annotations

from pathlib import Path

import asyncpg
import pytest
import yaml

from guards import GuardPolicy, GuardRejection
from guards.executor import QueryError
from tests.integration.guards.conftest import multiset, run_guarded, run_on_copy

ATTACKS: list[dict] = yaml.safe_load(
    (Path(__file__).parent / "attacks.yaml").read_text(encoding="utf-8")
)


def test_corpus_is_large_and_covers_every_outcome() -> None:
    assert len(ATTACKS) >= 50
    assert len({a["id"] for a in ATTACKS}) == len(ATTACKS)
    outcomes = {a["expect"] for a in ATTACKS}
    assert {"filtered", "QUERY_TIMEOUT", "GUARD_WRITABLE_CTE", "GUARD_SYSTEM_CATALOG"} <= outcomes


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a["id"])
async def test_attack_through_all_layers(
    attack: dict,
    policy: GuardPolicy,
    agent: asyncpg.Connection,
    conn: asyncpg.Connection,
    tenant_copy: str,
) -> None:
    expect = attack["expect"]
    if expect.startswith("GUARD_"):
        with pytest.raises(GuardRejection) as caught:
            await run_guarded(agent, attack["sql"], policy)
        assert caught.value.code == expect
    elif expect == "QUERY_TIMEOUT":
        with pytest.raises(QueryError) as failed:
            await run_guarded(agent, attack["sql"], policy)
        assert failed.value.code == "QUERY_TIMEOUT"
        assert await agent.fetchval("SELECT 1") == 1  # the connection is usable again
    else:
        result = await run_guarded(agent, attack["sql"], policy)
        assert multiset(result.rows) == multiset(await run_on_copy(conn, attack["sql"]))
