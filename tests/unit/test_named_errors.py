"""One vocabulary for failures: every error Orquestra names is an `OrquestraError`, so each
entry point catches one class and prints its code and message."""

from __future__ import annotations

import doctest

import pytest

from orquestra.core import errors
from orquestra.core.conninfo import DatabaseUrlInvalid
from orquestra.core.database import AgentRoleMissing, DatabaseUnavailable, StateDatabaseMissing
from orquestra.core.deployment import DeploymentError
from orquestra.core.errors import OrquestraError
from orquestra.ddl_catalog import CatalogError
from orquestra.ddl_catalog.demo import SampleDataError
from orquestra.ddl_catalog.scaffold import ScaffoldError
from orquestra.evals.dataset import DatasetError
from orquestra.graph.model_errors import ModelAuth, ModelError
from orquestra.graph.models import ModelUnavailable
from orquestra.guards.errors import GuardRejection
from orquestra.guards.rails import GuardrailsError
from orquestra.guards.tenant_query import QueryError
from orquestra.sandbox.pool import AnalysisError
from orquestra.server.auth import TokenRefused
from orquestra.server.db_init import DatabaseNotEmpty
from orquestra.server.db_policies import PolicyError
from orquestra.server.metrics_listener import MetricsUnavailable
from orquestra.server.threads_command import PruneBusy

NAMED = [
    (DeploymentError("DEPLOYMENT_NOT_FOUND", "no folder x"), "DEPLOYMENT_NOT_FOUND"),
    (DatabaseUnavailable("cannot reach PostgreSQL"), "DB_UNAVAILABLE"),
    (StateDatabaseMissing("create it"), "STATE_DATABASE_MISSING"),
    (AgentRoleMissing("run orquestra db policies --apply"), "AGENT_ROLE_MISSING"),
    (DatabaseUrlInvalid("neither a URL nor key=value pairs"), "DATABASE_URL_INVALID"),
    (CatalogError("CATALOG_EMPTY", "no system files"), "CATALOG_EMPTY"),
    (SampleDataError("SAMPLE_DATA_UNKNOWN", "no such sample"), "SAMPLE_DATA_UNKNOWN"),
    (ScaffoldError("INIT_DIR_NOT_EMPTY", "x is not empty"), "INIT_DIR_NOT_EMPTY"),
    (DatasetError("cases.jsonl:3: bad"), "DATASET_INVALID"),
    (ModelAuth("401"), "MODEL_AUTH"),
    (ModelUnavailable("no package"), "MODEL_UNAVAILABLE"),
    (GuardRejection("GUARD_TABLE_NOT_ALLOWED", "table x"), "GUARD_TABLE_NOT_ALLOWED"),
    (QueryError("QUERY_TIMEOUT", "too slow", detail="canceling"), "QUERY_TIMEOUT"),
    (GuardrailsError("rails.yaml: bad entry"), "GUARDRAILS_INVALID"),
    (AnalysisError("ANALYSIS_TIMEOUT", "stopped"), "ANALYSIS_TIMEOUT"),
    (TokenRefused("TOKEN_EXPIRED", "expired"), "TOKEN_EXPIRED"),
    (DatabaseNotEmpty("tables exist"), "DB_NOT_EMPTY"),
    (PolicyError("POLICY_FAILED", "no"), "POLICY_FAILED"),
    (MetricsUnavailable("127.0.0.1:9464 is in use"), "METRICS_UNAVAILABLE"),
    (PruneBusy("another process is pruning"), "PRUNE_BUSY"),
]


@pytest.mark.parametrize(("error", "code"), NAMED, ids=[type(e).__name__ for e, _ in NAMED])
def test_every_named_error_is_one_kind(error: OrquestraError, code: str) -> None:
    assert isinstance(error, OrquestraError)
    assert error.code == code and error.message and str(error).startswith(f"{code}: ")


def test_a_model_error_keeps_the_detail_for_the_log_and_words_for_people() -> None:
    failure = ModelError("HTTP 503 from the provider")
    assert failure.message == failure.detail == "HTTP 503 from the provider"
    assert "503" not in failure.for_user("pt") and failure.for_user("en")


def test_the_docstring_examples_hold() -> None:
    assert doctest.testmod(errors).failed == 0
