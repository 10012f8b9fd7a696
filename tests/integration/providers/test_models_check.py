"""`orquestra models check` as a user runs it right after setting a key: a real process, the
real OpenAI client, and a local OpenAI-compatible provider with the quirks people meet."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from orquestra.evals.metrics import summarize
from orquestra.evals.report import markdown
from orquestra.evals.runner import CaseResult
from tests.fake_provider import FakeProvider

REPO = Path(__file__).resolve().parents[3]
ORQUESTRA = str(Path(sys.executable).parent / "orquestra")


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeProvider]:
    with FakeProvider() as provider:
        yield provider


def check(data_dir: Path, **env: str) -> tuple[int, list[dict], str]:
    done = subprocess.run(
        [ORQUESTRA, "models", "check", "--json"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        env={**os.environ, "ORQUESTRA_DATA_DIR": str(data_dir), **env},
    )
    return done.returncode, json.loads(done.stdout or "[]"), done.stderr


def with_fake(fake: FakeProvider, model: str) -> dict[str, str]:
    return {
        "OPENAI_BASE_URL": fake.base_url,
        "OPENAI_API_KEY": "sk-test",
        "ORQUESTRA_MODELS__DEFAULT": f"openai:{model}",
    }


@pytest.mark.parametrize(
    ("model", "method", "usage"),
    [
        ("fake", "json_schema", True),
        ("fake+no-json-schema", "function_calling", True),
        ("fake+json-mode-only", "json_mode", True),
        ("fake+no-usage+think", "json_schema", False),
    ],
)
def test_each_role_reports_what_works(
    data_dir: Path, fake: FakeProvider, model: str, method: str, usage: bool
) -> None:
    code, roles, stderr = check(data_dir, **with_fake(fake, model))
    assert code == 0, stderr
    assert [r["role"] for r in roles][:3] == ["augmenter", "router", "sql_writer"]
    for role in roles:
        assert role["spec"] == f"openai:{model}" and role["provider"] == "openai"
        assert role["structured"] == method and role["streams"] and role["usage"] is usage
        assert role["error"] is None


def test_a_refused_key_is_named_per_role(data_dir: Path, fake: FakeProvider) -> None:
    code, roles, _ = check(data_dir, **with_fake(fake, "fake+401"))
    assert code == 1
    assert all(r["error"].startswith("MODEL_AUTH") for r in roles)


def test_the_default_offline_model_needs_no_provider(data_dir: Path) -> None:
    code, roles, stderr = check(data_dir)
    assert code == 0, stderr
    assert {r["spec"] for r in roles} == {"offline"}
    assert all(r["structured"] == "in-process" and r["streams"] for r in roles)


def test_estimated_tokens_are_marked_in_the_evaluation_report() -> None:
    base = {"route": "chat", "expected_route": "chat", "complexity": "simple", "lang": "en"}
    counted = CaseResult(id="a", question="q", tenant="101", **base)
    estimated = CaseResult(id="b", question="q", tenant="101", tokens_estimated=True, **base)
    summary = summarize([counted, estimated])
    assert summary["tokens_estimated_cases"] == 1
    assert "estimates for 1 case:" in markdown("d", "m", summary, [counted, estimated])
    assert "estimates" not in markdown("d", "m", summarize([counted]), [counted])
