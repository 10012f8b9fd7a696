"""`orquestra eval`: run a dataset, write the report, check thresholds; `eval compare A B`."""

from __future__ import annotations

import asyncio
import json
import logging
import os
from pathlib import Path

from langchain_core.language_models import BaseChatModel

from orquestra.core.settings import Settings
from orquestra.evals.baseline import Baseline, baseline_model, run_baseline
from orquestra.evals.baseline_metrics import BaselineRun, summarize_baseline
from orquestra.evals.dataset import load_dataset
from orquestra.evals.metrics import summarize
from orquestra.evals.report import COMPARED, HEADLINE, compare, write_report
from orquestra.evals.runner import run_dataset
from orquestra.graph.context import RunContext
from orquestra.graph.models import spec_for
from orquestra.graph.resources import Resources

log = logging.getLogger("orquestra.eval")


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
    summary, used, compared = asyncio.run(
        _run(cases, dataset, out, model, concurrency, settings, baseline)
    )
    print(f"\n{dataset} · {used} · {summary['cases']} cases → {out}/report.md")
    for name in HEADLINE:
        print(f"  {name:<28} {summary.get(name)}")
    if compared is not None:
        print(f"\n  {'side by side':<28} {'orquestra':>12} {compared.name:>22}")
        for name in COMPARED:
            print(f"  {name:<28} {summary.get(name)!s:>12} {compared.summary.get(name)!s:>22}")
    failed = [
        f"{k}={summary.get(k)} < {v}" for k, v in thresholds.items() if (summary.get(k) or 0) < v
    ]
    for failure in failed:
        print(f"FAIL {failure}")
    return 1 if failed else 0


async def _run(
    cases,
    dataset: Path,
    out: Path,
    model: str | None,
    concurrency: int,
    settings: Settings,
    baseline: str | None = None,
):
    used = model or spec_for("sql_writer", RunContext.from_settings(settings), settings)
    # Decided before anything runs: a baseline that cannot run leaves no half-written report.
    chat = baseline_model(baseline, used, settings) if baseline else None
    return await evaluate(
        cases, dataset, out, model, concurrency, settings, (baseline, used, chat) if chat else None
    )


async def evaluate(
    cases,
    dataset: Path,
    out: Path,
    model: str | None,
    concurrency: int,
    settings: Settings,
    baseline: tuple[str, str, BaseChatModel] | None = None,
) -> tuple[dict, str, BaselineRun | None]:
    """Orquestra on the cases and, given `(name, model spec, chat model)`, the baseline on
    the same cases; the report written. Returns Orquestra's summary, its model spec and the
    baseline's run."""
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
    return summary, used, compared


async def _baseline(
    baseline: tuple[str, str, BaseChatModel],
    cases,
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


def _upload(dataset: Path, model: str, summary: dict, results) -> None:
    """Optional: the run as a LangSmith dataset of examples with outcomes; never fatal."""
    try:
        from langsmith import Client

        client = Client()
        name = f"orquestra-{dataset.stem}-{model.replace(':', '-')}"
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
    print(f"{len(changes)} change(s)")
    return 0
