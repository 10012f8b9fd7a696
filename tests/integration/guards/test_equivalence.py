"""Semantic equivalence on each deployment: guarded on the full database == unguarded on the
tenant's own copy (equivalence_queries.yaml for logistics, clinics_equivalence_queries.yaml
for clinics, whose tables are scoped through parents at one and two levels)."""

from __future__ import annotations

import asyncpg
import pytest

from tests.deployment_cases import DEPLOYMENTS, DeploymentUnderTest
from tests.integration.guards.conftest import (
    TenantCopy,
    corpus,
    for_each_deployment,
    multiset,
    run_guarded,
    run_on_copy,
    run_unguarded,
)

VIA_QUERIES_AT_LEAST = 10
"""Of the clinics queries, how many must read a table scoped through parents."""


@pytest.mark.parametrize("name", DEPLOYMENTS)
def test_corpus_is_large_enough(name: str) -> None:
    queries = corpus(name, "queries")
    assert len(queries) >= (30 if name == "logistics" else 25)
    assert len(set(queries)) == len(queries)


def test_clinics_queries_reach_every_via_table_at_each_level() -> None:
    queries = corpus("clinics", "queries")
    via = ("laudo_achados", "revisoes_qualidade", "apontamentos_revisao", "plantoes")
    for table in via:
        assert any(table in sql for sql in queries), table
    assert sum(any(t in sql for t in via) for sql in queries) >= VIA_QUERIES_AT_LEAST
    for construct in ("JOIN", "WITH", "OVER (", "UNION", "EXISTS", "GROUP BY", "LEFT JOIN"):
        assert any(construct in sql for sql in queries), construct


@for_each_deployment("queries", "sql", ids=lambda q: q[:60])
async def test_guarded_query_equals_the_tenant_copy(
    sql: str, agent: asyncpg.Connection, owner: asyncpg.Connection, tenant_copy: TenantCopy
) -> None:
    expected = multiset(await run_on_copy(owner, sql, tenant_copy))
    guarded = await run_guarded(agent, sql, tenant_copy)
    assert multiset(guarded.rows) == expected
    assert sum(expected.values()) > 0  # an empty answer would prove nothing


async def test_the_check_can_fail_unguarded_queries_break_it(
    deployment: DeploymentUnderTest, owner: asyncpg.Connection, tenant_copy: TenantCopy
) -> None:
    """Run as the owner on the full database without the guard, most answers differ."""
    queries = corpus(deployment.name, "queries")
    differing = 0
    for sql in queries:
        unguarded = multiset(await run_unguarded(owner, sql))
        differing += unguarded != multiset(await run_on_copy(owner, sql, tenant_copy))
    assert differing >= 0.8 * len(queries), f"{differing} of {len(queries)} differ"
