"""The catalog check (`guards/sql_check.py`) over a corpus of broken queries, on the demo's
real database: each broken query is either corrected (an enumerated value's case) or stopped
with feedback precise enough that a fixer that only follows it (the offline model's
`follow`) gets the right rows; and nothing valid is ever flagged.

broken_queries.yaml holds the broken queries with the query that was meant; bench/
sql_feedback.py measures the same corpus against the raw PostgreSQL error alone.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import asyncpg
import pytest
import yaml

from orquestra.ddl_catalog import Catalog, load_catalog
from orquestra.deployments import DEPLOYMENTS_DIR
from orquestra.guards.sql_check import CODE, check_sql
from orquestra.guards.tenant_query import QueryError
from orquestra.offline.fixer import follow
from tests.deployment_cases import DEPLOYMENTS, DeploymentUnderTest, only
from tests.integration.guards.conftest import HERE, corpus, multiset, run_guarded

CASES = yaml.safe_load((HERE / "broken_queries.yaml").read_text(encoding="utf-8"))["cases"]
DEMO = load_catalog()
"""The demo's catalog, loaded once for the module."""
ROOT = Path(__file__).resolve().parents[3]
KINDS = {
    "misspelled_column",
    "synonym_column",
    "wrong_table",
    "enum_case",
    "enum_spelling",
    "ambiguous_column",
    "missing_join",
    "wrong_date_column",
}


def test_the_corpus_is_large_and_varied() -> None:
    assert len(CASES) >= 40
    assert len({case["id"] for case in CASES}) == len(CASES)
    assert set(Counter(case["kind"] for case in CASES)) == KINDS


@pytest.mark.parametrize("case", CASES, ids=lambda case: case["id"])
def test_every_broken_query_is_caught_and_its_gold_is_clean(case: dict) -> None:
    catalog = DEMO
    checked = check_sql(case["sql"], catalog)
    if case["kind"] == "enum_case":  # corrected here, without a model call
        assert checked.corrections and not checked.problems
        assert checked.sql != case["sql"]
    else:
        assert checked.problems and checked.feedback().startswith(f"{CODE}: ")
        assert checked.sql == case["sql"]
    gold = check_sql(case["gold"], catalog)
    assert (gold.sql, gold.corrections, gold.problems) == (case["gold"], (), ())


def valid_queries(name: str) -> list[str]:
    """Every query of a deployment known to be right: the evaluation datasets' gold SQL, the
    catalog's examples and the guard's equivalence queries."""
    folder = DEPLOYMENTS_DIR / name / "catalog"
    examples = yaml.safe_load((folder / "examples.yaml").read_text(encoding="utf-8"))
    found = [e["sql"] for e in (examples if isinstance(examples, list) else examples["examples"])]
    for dataset in sorted((ROOT / "evals" / "datasets" / name).glob("*.jsonl")):
        lines = dataset.read_text(encoding="utf-8").splitlines()
        found += [case["gold_sql"] for case in map(json.loads, lines) if case.get("gold_sql")]
    return found + corpus(name, "queries")


@pytest.mark.parametrize("name", DEPLOYMENTS)
def test_no_valid_query_is_flagged_or_changed(name: str) -> None:
    catalog: Catalog = load_catalog(DEPLOYMENTS_DIR / name / "catalog")
    queries = valid_queries(name)
    assert len(queries) >= 100
    flagged = [(q, check_sql(q, catalog)) for q in queries]
    assert [(q, found) for q, found in flagged if found.problems or found.sql != q] == []


@only("logistics")
@pytest.mark.parametrize("case", CASES, ids=lambda case: case["id"])
async def test_following_the_feedback_gives_the_right_rows(
    case: dict, deployment: DeploymentUnderTest, agent: asyncpg.Connection
) -> None:
    catalog = deployment.catalog
    checked = check_sql(case["sql"], catalog)
    sql = checked.sql
    if checked.problems:
        followed = follow(sql, [problem.as_dict() for problem in checked.problems])
        assert followed, checked.feedback()
        sql = followed
        assert not check_sql(sql, catalog).problems, sql
    copy = _Copy(deployment)
    got = await run_guarded(agent, sql, copy)
    expected = await run_guarded(agent, case["gold"], copy)
    assert multiset(got.rows) == multiset(expected.rows)
    assert sum(multiset(expected.rows).values()) > 0


@only("logistics")
async def test_the_raw_error_says_less(
    deployment: DeploymentUnderTest, agent: asyncpg.Connection
) -> None:
    """The control: run as written, a wrong enumerated value is no error at all (zero rows),
    and an ambiguous column's error names no table — what the check adds."""
    copy = _Copy(deployment)
    wrong_value = next(c for c in CASES if c["id"] == "enum-spelling-bloqueado")
    assert (await run_guarded(agent, wrong_value["sql"], copy)).rows == [(0,)]
    ambiguous = next(c for c in CASES if c["id"] == "ambiguous-status")
    with pytest.raises(QueryError) as raised:
        await run_guarded(agent, ambiguous["sql"], copy)
    assert "notas_fiscais" not in raised.value.detail
    assert "n.status" in check_sql(ambiguous["sql"], deployment.catalog).feedback()


class _Copy:
    """What `run_guarded` needs: the deployment's policy and tenant."""

    def __init__(self, deployment: DeploymentUnderTest) -> None:
        self.policy, self.tenant = deployment.policy, deployment.tenant
