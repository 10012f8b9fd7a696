"""A small slice of the evaluation harness, end to end with the offline model, on each
deployment: slice.jsonl for logistics, clinics_slice.jsonl for clinics (eight cases of
evals/datasets/clinics/project.jsonl, one per route and three on tables scoped through
parents, plus a follow-up and a blocked message written here, which the dataset does not
have); and a suite over both, each set on its own deployment.

Only what must hold whatever the offline model answers is asserted on clinics: a complete
report, no tenant leak, no error, every gold SQL executed, the rail blocking its case. The
offline model's accuracy there is the eval's to measure, not this test's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from orquestra.evals.compare import exact_match, relaxed_match
from orquestra.evals.dataset import DatasetError, load_dataset
from tests.deployment_cases import DeploymentUnderTest, only

HERE = Path(__file__).parent
BIN = Path(sys.executable).parent
SLICES = {"logistics": HERE / "slice.jsonl", "clinics": HERE / "clinics_slice.jsonl"}
FAIL_UNDER = {"logistics": ("--fail-under", "route_accuracy=0.8"), "clinics": ()}
"""The logistics slice also gates on the route accuracy the demo has always had."""
METRICS = (
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
    "model_calls_by_route_taken",
)


def test_comparison_rules() -> None:
    gold = [[1, "a"], [2, "b"]]
    assert exact_match([["b", 2.001], ["a", 1]], gold)  # column order and rounding ignored
    assert not exact_match([["a", 1]], gold)
    assert not exact_match([["a", 1, "x"], ["b", 2, "y"]], gold)
    assert relaxed_match([["a", 1, "x"], ["b", 2, "y"]], gold)  # an extra column is fine
    assert not relaxed_match([["a", 1]], gold)
    assert exact_match([], []) and relaxed_match([], [])


PROVENANCE = '"split": "project", "origin": "harness"'


def test_dataset_errors_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    first = f'{{"id": "a", "question": "x", "tenant": "101", "route": "chat", {PROVENANCE}}}'
    path.write_text(f'{first}\n{{"id": "b"}}\n')
    with pytest.raises(DatasetError) as caught:
        load_dataset(path)
    assert "bad.jsonl:2" in caught.value.message


def test_every_dataset_loads_and_a_rewording_keeps_its_sources_gold() -> None:
    """The shipped sets all load; a case that rewords another (`source`) of its deployment
    keeps its tenant and gold, so that its result measures the wording alone."""
    root = Path(__file__).resolve().parents[3] / "evals" / "datasets"
    found = [
        (path.parent.name, c) for path in sorted(root.glob("*/*.jsonl")) for c in load_dataset(path)
    ]
    assert {deployment for deployment, _ in found} == {"logistics", "clinics"}
    # Rewordings say questions of the earlier development sets in other words.
    cases = {(deployment, c.id): c for deployment, c in found if c.split == "dev"}
    rewordings = [(deployment, c) for deployment, c in found if c.source]
    assert rewordings
    for deployment, case in rewordings:
        source = cases[(deployment, case.source)]
        assert (case.tenant, case.gold_sql, case.route) == (
            source.tenant,
            source.gold_sql,
            source.route,
        ), case.id
        assert case.answer_contains == source.answer_contains, case.id
        assert case.question != source.question, case.id


def test_a_blocked_case_names_its_rail(tmp_path: Path) -> None:
    path = tmp_path / "blocked.jsonl"
    path.write_text(
        f'{{"id": "a", "question": "x", "tenant": "101", "route": "blocked", {PROVENANCE}}}\n'
    )
    with pytest.raises(DatasetError, match=r"(?s)blocked.jsonl:1: .*`blocked_by`"):
        load_dataset(path)


def eval_command(deployment: DeploymentUnderTest, out: Path, *extra: str) -> list[str]:
    dataset = SLICES[deployment.name]
    return [str(BIN / "orquestra"), "eval", "--dataset", str(dataset), "--out", str(out), *extra]


def environment(deployment: DeploymentUnderTest) -> dict[str, str]:
    """The CLI's environment: the session's data folder and, for clinics, the deployment
    (whose database, `orquestra_clinics`, the session loaded)."""
    env = {**os.environ, "ORQUESTRA_DATA_DIR": str(deployment.settings.data_dir)}
    if deployment.name != "logistics":
        env["ORQUESTRA_DEPLOYMENT"] = deployment.name
    return env


@pytest.fixture(scope="session")
def slice_run(deployment: DeploymentUnderTest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`orquestra eval` on the deployment's slice, once; the folder of its report."""
    out = tmp_path_factory.mktemp(f"eval-{deployment.name}") / "run"
    command = eval_command(deployment, out, *FAIL_UNDER[deployment.name])
    env = environment(deployment)
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    return out


def test_eval_slice_writes_a_complete_report(
    deployment: DeploymentUnderTest, slice_run: Path
) -> None:
    report = json.loads((slice_run / "report.json").read_text())
    summary = report["summary"]
    for metric in METRICS:
        assert metric in summary, metric
    assert summary["tenant_leaks"] == 0 and summary["errors"] == 0
    assert summary["rail_block_recall"] == 1.0 and summary["rail_false_blocks"] == []
    cases = {c["id"]: c for c in report["cases"]}
    dataset = load_dataset(SLICES[deployment.name])
    assert set(cases) == {c.id for c in dataset}
    assert {c["tenant"] for c in cases.values()} <= set(deployment.tenants)
    for case in dataset:
        if case.gold_sql:  # run through the guard on this deployment's database
            assert cases[case.id]["exact"] is not None, f"{case.id}: the gold SQL did not run"
        assert cases[case.id]["expected_route"] == case.route
    taken = summary["model_calls_by_route_taken"]
    assert sum(group["cases"] for group in taken.values()) == len(cases)
    for route, group in taken.items():  # each route's mean is of its own cases' calls
        calls = [c["model_calls"] for c in cases.values() if c["route"] == route]
        assert group["model_calls_per_case"] == round(sum(calls) / len(calls), 2), route
    assert (slice_run / "report.md").read_text().startswith("# Evaluation")
    assert "## model calls by route taken" in (slice_run / "report.md").read_text()
    assert (slice_run / "report.png").read_bytes()[:4] == b"\x89PNG"


@only("clinics")
def test_the_clinics_slice_reaches_tables_scoped_through_parents(
    deployment: DeploymentUnderTest,
) -> None:
    """Its gold SQL reads every level of the clinics' parent chains: a leak there would show
    in `tenant_leaks` or in the gold comparison, not pass unseen."""
    gold = " ".join(c.gold_sql or "" for c in load_dataset(SLICES[deployment.name]))
    for table in ("laudo_achados", "apontamentos_revisao", "plantoes"):
        assert f"FROM {table}" in gold or f"JOIN {table}" in gold, table
    assert {c.route for c in load_dataset(SLICES[deployment.name])} == {
        "tracking",
        "analytics",
        "knowledge",
        "chat",
        "clarify",
        "blocked",
    }


@only("logistics")
def test_eval_gates_and_compares(deployment: DeploymentUnderTest, slice_run: Path) -> None:
    report = json.loads((slice_run / "report.json").read_text())
    assert report["summary"]["clarification_recall"] == 1.0
    env = environment(deployment)
    failing = subprocess.run(
        eval_command(deployment, slice_run, "--fail-under", "execution_accuracy=1.01"),
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert failing.returncode == 1 and "FAIL execution_accuracy" in failing.stdout
    report_file = str(slice_run / "report.json")
    compared = subprocess.run(
        [str(BIN / "orquestra"), "eval", "compare", report_file, report_file],
        capture_output=True,
        text=True,
        env=env,
    )
    assert compared.returncode == 0 and "0 changes" in compared.stdout


def test_a_suite_runs_each_set_on_its_own_deployment(
    data_dir: Path, demo_db: object, clinics_db: object, tmp_path: Path
) -> None:
    """`--suite all` over a datasets folder holding both slices, with no deployment given:
    each set ran on its own deployment's database (every gold SQL executed there), one
    report per set under `<out>/<deployment>/<set>/`, and the suite's summary by split."""
    root = tmp_path / "evals" / "datasets"
    for name, path in SLICES.items():
        (root / name).mkdir(parents=True)
        shutil.copy(path, root / name / "slice.jsonl")
    env = {k: v for k, v in os.environ.items() if k != "ORQUESTRA_DEPLOYMENT"}
    env["ORQUESTRA_DATA_DIR"] = str(data_dir)
    out = tmp_path / "out"
    command = [str(BIN / "orquestra"), "eval", "--suite", "all", "--out", str(out)]
    ran = subprocess.run(
        command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    for name, path in SLICES.items():
        report = json.loads((out / name / "slice" / "report.json").read_text())
        cases = load_dataset(path)
        assert [c["id"] for c in report["cases"]] == [c.id for c in cases]
        assert report["summary"]["errors"] == 0 and report["summary"]["tenant_leaks"] == 0
        exact = {c["id"]: c["exact"] for c in report["cases"]}
        assert all(exact[c.id] is not None for c in cases if c.gold_sql), name
    suite = json.loads((out / "suite-all.json").read_text())
    assert list(suite["splits"]) == ["clinics:project", "logistics:project"]
    assert suite["splits"]["logistics:project"]["cases"] == len(load_dataset(SLICES["logistics"]))
    assert list(suite["sets"]) == ["clinics/slice", "logistics/slice"]
    assert "| clinics/slice | project |" in (out / "suite-all.md").read_text()
