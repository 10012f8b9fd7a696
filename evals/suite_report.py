"""A suite's summary (`suite-<name>.json` and `.md`): each split of each deployment over all
its cases, then each set's own figures; each set's full report is in its own folder."""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import groupby
from pathlib import Path
from typing import Any

from orquestra.evals.metrics import summarize
from orquestra.evals.runner import CaseResult
from orquestra.evals.suites import SuiteSet


@dataclass(frozen=True)
class SuiteRun:
    """One set's run within a suite: what the summary by split is made of."""

    dataset: SuiteSet
    model: str
    summary: dict[str, Any]
    results: list[CaseResult]
    prices: dict[str, dict[str, float]]


SUITE_COLUMNS = (
    "cases",
    "route_accuracy",
    "execution_accuracy",
    "relaxed_execution_accuracy",
    "knowledge_contains",
    "clarification_recall",
    "tenant_leaks",
    "errors",
)


def write_suite_report(out: Path, name: str, runs: list[SuiteRun]) -> Path:
    """`suite-<name>.json` and `.md` in `out`: each split of each deployment summarised over
    all its cases (as if one set), then each set's own figures. Returns the Markdown file."""
    splits = {}
    for (deployment, split), group in groupby(runs, key=_split_of):
        group_runs = list(group)
        results = [result for run in group_runs for result in run.results]
        first = group_runs[0]
        splits[f"{deployment}:{split}"] = summarize(results, first.prices, first.model)
    sets = {run.dataset.name: {"split": run.dataset.split, **run.summary} for run in runs}
    stem = f"suite-{name.replace(':', '-')}"
    out.mkdir(parents=True, exist_ok=True)
    models = sorted({run.model for run in runs})
    payload = {"suite": name, "models": models, "splits": splits, "sets": sets}
    text = json.dumps(payload, ensure_ascii=False, indent=1, default=str)
    (out / f"{stem}.json").write_text(text, encoding="utf-8")
    lines = [f"# Evaluation suite: {name}", "", f"Model: `{', '.join(models)}`"]
    lines += _table("By split (every case of the split's sets together)", "split", splits)
    lines += _table("By set (report in `<deployment>/<set>/`)", "set", sets, ("split",))
    markdown = out / f"{stem}.md"
    markdown.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return markdown


def _split_of(run: SuiteRun) -> tuple[str, str]:
    return run.dataset.deployment, run.dataset.split


def _table(
    title: str, key: str, rows: dict[str, dict[str, Any]], first: tuple[str, ...] = ()
) -> list[str]:
    columns = (*first, *SUITE_COLUMNS)
    lines = ["", f"## {title}", "", f"| {key} | " + " | ".join(columns) + " |"]
    lines.append("|---" * (len(columns) + 1) + "|")
    for label, summary in rows.items():
        lines.append(f"| {label} | " + " | ".join(str(summary.get(c)) for c in columns) + " |")
    return lines
