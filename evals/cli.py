"""`orquestra eval`: run a dataset or a suite, write the reports, check thresholds;
`eval compare A B`."""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from itertools import groupby
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel

from orquestra.core.settings import Settings
from orquestra.core.texts import counted
from orquestra.evals.baseline import Baseline, baseline_model, run_baseline
from orquestra.evals.baseline_metrics import BaselineRun, summarize_baseline
from orquestra.evals.dataset import Case, load_dataset
from orquestra.evals.metrics import nothing_scored, summarize
from orquestra.evals.report import COMPARED, HEADLINE, compare, write_report
from orquestra.evals.runner import CaseResult, run_dataset
from orquestra.evals.suite_report import SuiteRun, write_suite_report
from orquestra.evals.suites import DATASETS_DIR, resolve_suite
from orquestra.graph.context import RunContext
from orquestra.graph.models import spec_for
from orquestra.graph.resources import Resources

log = logging.getLogger("orquestra.eval")
SHOWN_FAILURES = 20
"""Failed cases printed to the terminal; report.md and report.json list every one."""


@dataclass
class EvalRun:
    """One dataset's run: Orquestra's summary, the model spec it used, the baseline's run (if
    one ran) and the per-case results."""

    summary: dict[str, Any]
    model: str
    baseline: BaselineRun | None
    results: list[CaseResult]


def run_eval(
    dataset: Path,
    out: Path,
    model: str | None,
    concurrency: int,
    fail_under: list[str],
    settings: Settings,
    baseline: str | None = None,
) -> int:
    cases = load_dataset(dataset)
    thresholds = dict(_threshold(item) for item in fail_under)
    run = asyncio.run(_run(cases, dataset, out, model, concurrency, settings, baseline))
    summary, compared = run.summary, run.baseline
    print(f"\n{dataset} · {run.model} · {summary['cases']} cases → {out}/report.md")
    for name in HEADLINE:
        print(f"  {name:<28} {summary.get(name)}")
    if compared is not None:
        print(f"\n  {'side by side':<28} {'orquestra':>12} {compared.name:>22}")
        for name in COMPARED:
            print(f"  {name:<28} {summary.get(name)!s:>12} {compared.summary.get(name)!s:>22}")
    _print_failed_cases(summary)
    failed = _failures(summary, thresholds)
    for failure in failed:
        print(f"FAIL {failure}")
    return 1 if failed else 0


def run_suite(
    name: str,
    out: Path,
    model: str | None,
    concurrency: int,
    fail_under: list[str],
    settings_for: Callable[[str], Settings],
    baseline: str | None = None,
    root: Path = DATASETS_DIR,
) -> int:
    """Every set of the suite, each on its deployment (`settings_for(name)`), one report per
    set under `out/<deployment>/<set>/`, and the suite's summary by split beside them."""
    sets = resolve_suite(name, root)
    thresholds = dict(_threshold(item) for item in fail_under)
    runs, failed = [], []
    for deployment, group in groupby(sets, key=lambda s: s.deployment):
        settings = settings_for(deployment)
        for chosen in group:
            where = out / chosen.name
            cases = load_dataset(chosen.path)
            run = asyncio.run(
                _run(cases, chosen.path, where, model, concurrency, settings, baseline)
            )
            summary = run.summary
            print(
                f"{chosen.name:<34} {chosen.split:<8} {summary['cases']:>4} cases · route"
                f" {summary['route_accuracy']} · exec. {summary['execution_accuracy']}"
                f" → {where}/report.md"
            )
            _print_failed_cases(summary, indent="    ")
            failed += [f"{chosen.name}: {f}" for f in _failures(summary, thresholds)]
            runs.append(SuiteRun(chosen, run.model, summary, run.results, settings.prices))
    written = write_suite_report(out, name, runs)
    print(f"\nsuite {name} · {len(runs)} sets → {written}")
    for failure in failed:
        print(f"FAIL {failure}")
    return 1 if failed else 0


def _failures(summary: dict[str, Any], thresholds: dict[str, float]) -> list[str]:
    """Why the run fails (exit 1): every case failed, or a metric is under its threshold."""
    failed = [
        f"{k}={summary.get(k)} < {v}" for k, v in thresholds.items() if (summary.get(k) or 0) < v
    ]
    if nothing_scored(summary):
        failed.insert(
            0,
            f"every case failed ({summary['errors']} of {summary['cases']}):"
            " nothing could be scored",
        )
    return failed


def _print_failed_cases(summary: dict[str, Any], indent: str = "  ") -> None:
    """The failed cases, each with its code and message (the first `SHOWN_FAILURES`)."""
    found = summary["failures"]
    if not found:
        return
    print(f"{indent}failed cases ({len(found)} of {summary['cases']}):")
    for failure in found[:SHOWN_FAILURES]:
        message = " ".join(failure["message"].split())
        message = message if len(message) <= 100 else message[:99] + "…"
        print(f"{indent}  {failure['id']:<14} {failure['code']:<26} {message}")
    if len(found) > SHOWN_FAILURES:
        print(f"{indent}  … and {len(found) - SHOWN_FAILURES} more (report.md lists every one)")


async def _run(
    cases: list[Case],
    dataset: Path,
    out: Path,
    model: str | None,
    concurrency: int,
    settings: Settings,
    baseline: str | None = None,
) -> EvalRun:
    used = model or spec_for("sql_writer", RunContext.from_settings(settings), settings)
    # Decided before anything runs: a baseline that cannot run leaves no half-written report.
    chosen = (baseline, used, baseline_model(baseline, used, settings)) if baseline else None
    return await evaluate(cases, dataset, out, model, concurrency, settings, chosen)


async def evaluate(
    cases: list[Case],
    dataset: Path,
    out: Path,
    model: str | None,
    concurrency: int,
    settings: Settings,
    baseline: tuple[str, str, BaseChatModel] | None = None,
) -> EvalRun:
    """Orquestra on the cases and, given `(name, model spec, chat model)`, the baseline on
    the same cases; the report written."""
    resources = await Resources.open(settings)
    compared = None
    try:
        context = RunContext.from_settings(settings)
        used = model or spec_for("sql_writer", context, settings)
        results = await run_dataset(cases, resources, context, concurrency=concurrency, model=model)
        if baseline is not None:
            compared = await _baseline(baseline, cases, resources, concurrency)
    finally:
        await resources.close()
    summary = summarize(results, settings.prices, used)
    write_report(out, str(dataset), used, summary, results, baseline=compared)
    if os.environ.get("LANGSMITH_API_KEY"):
        _upload(dataset, used, summary, results)
    return EvalRun(summary, used, compared, results)


async def _baseline(
    baseline: tuple[str, str, BaseChatModel],
    cases: list[Case],
    resources: Resources,
    concurrency: int,
) -> BaselineRun:
    name, spec, chat = baseline
    settings = resources.settings
    runner = await asyncio.to_thread(Baseline.open, name, chat, settings, resources.catalog)
    try:
        results = await run_baseline(runner, cases, resources, concurrency=concurrency)
    finally:
        runner.close()
    summary = summarize_baseline(results, settings.prices, spec)
    return BaselineRun(name, spec, settings.agent_role, summary, results)


def _threshold(item: str) -> tuple[str, float]:
    name, _, value = item.partition("=")
    return name.strip(), float(value)


def _upload(dataset: Path, model: str, summary: dict[str, Any], results: list[CaseResult]) -> None:
    """Optional: the run as a LangSmith dataset of examples with outcomes; never fatal."""
    try:
        from langsmith import Client

        client = Client()
        # The folder too: each deployment has its `project` and `heldout` sets.
        name = f"orquestra-{dataset.parent.name}-{dataset.stem}-{model.replace(':', '-')}"
        remote = client.create_dataset(name, description=json.dumps(summary, default=str)[:2000])
        client.create_examples(
            dataset_id=remote.id,
            inputs=[{"question": r.question, "tenant": r.tenant} for r in results],
            outputs=[{"answer": r.answer, "route": r.route, "exact": r.exact} for r in results],
        )
    except Exception as exc:  # uploading is a convenience; the local report is the record
        log.warning("LangSmith upload failed: %s", exc)


def run_compare(first: Path, second: Path) -> int:
    changes = compare(first, second)
    for change in changes:
        print(f"{change['id']:<10} {change['field']:<14} {change['before']} → {change['after']}")
    print(counted(len(changes), "change", "changes"))
    return 0
