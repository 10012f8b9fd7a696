"""A small slice of the evaluation harness, end to end with the offline model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evals.compare import exact_match, relaxed_match
from evals.dataset import DatasetError, load_dataset

HERE = Path(__file__).parent
BIN = Path(sys.executable).parent


def test_comparison_rules() -> None:
    gold = [[1, "a"], [2, "b"]]
    assert exact_match([["b", 2.001], ["a", 1]], gold)  # column order and rounding ignored
    assert not exact_match([["a", 1]], gold)
    assert not exact_match([["a", 1, "x"], ["b", 2, "y"]], gold)
    assert relaxed_match([["a", 1, "x"], ["b", 2, "y"]], gold)  # an extra column is fine
    assert not relaxed_match([["a", 1]], gold)
    assert exact_match([], []) and relaxed_match([], [])


def test_dataset_errors_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "a", "question": "x", "tenant": "101", "route": "chat"}\n{"id": "b"}\n')
    with pytest.raises(DatasetError) as caught:
        load_dataset(path)
    assert "bad.jsonl:2" in caught.value.message


def test_a_blocked_case_names_its_rail(tmp_path: Path) -> None:
    path = tmp_path / "blocked.jsonl"
    path.write_text('{"id": "a", "question": "x", "tenant": "101", "route": "blocked"}\n')
    with pytest.raises(DatasetError, match=r"(?s)blocked.jsonl:1: .*`blocked_by`"):
        load_dataset(path)


def test_eval_slice_writes_a_complete_report(demo_db, data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    env = {**os.environ, "ORQUESTRA_DATA_DIR": str(data_dir)}
    command = [
        str(BIN / "orquestra"),
        "eval",
        "--dataset",
        str(HERE / "slice.jsonl"),
        "--out",
        str(out),
        "--fail-under",
        "route_accuracy=0.8",
    ]
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads((out / "report.json").read_text())
    summary = report["summary"]
    for metric in (
        "route_accuracy",
        "execution_accuracy",
        "relaxed_execution_accuracy",
        "clarification_precision",
        "clarification_recall",
        "knowledge_contains",
        "fixer_recoveries",
        "rail_block_precision",
        "rail_block_recall",
        "rail_false_blocks",
        "judge_refined_answers",
        "judge_unverified_answers",
        "cap_hits",
        "tenant_leaks",
        "model_calls_per_case",
        "prompt_tokens_per_case",
        "cost_per_case_usd",
        "latency_ms_median",
        "latency_ms_p95",
        "by_route",
        "by_complexity",
        "by_lang",
    ):
        assert metric in summary, metric
    assert summary["tenant_leaks"] == 0 and summary["errors"] == 0
    assert summary["clarification_recall"] == 1.0
    assert summary["rail_block_recall"] == 1.0 and summary["rail_false_blocks"] == []
    assert {c["id"] for c in report["cases"]} == {c.id for c in load_dataset(HERE / "slice.jsonl")}
    assert (out / "report.md").read_text().startswith("# Evaluation")
    assert (out / "report.png").read_bytes()[:4] == b"\x89PNG"
    failing = subprocess.run(
        [*command[:-2], "--fail-under", "execution_accuracy=1.01"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert failing.returncode == 1 and "FAIL execution_accuracy" in failing.stdout
    compared = subprocess.run(
        [
            str(BIN / "orquestra"),
            "eval",
            "compare",
            str(out / "report.json"),
            str(out / "report.json"),
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert compared.returncode == 0 and "0 change(s)" in compared.stdout
