"""`orquestra eval`: run a dataset, write the report, check thresholds; `eval compare A B`."""

from __future__ import annotations

import asyncio
import json
import logging
import os
from pathlib import Path

from orquestra.core.settings import Settings
from orquestra.evals.dataset import load_dataset
from orquestra.evals.metrics import summarize
from orquestra.evals.report import HEADLINE, compare, write_report
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
) -> int:
    cases = load_dataset(dataset)
    thresholds = dict(_threshold(item) for item in fail_under)
    summary, used = asyncio.run(_run(cases, dataset, out, model, concurrency, settings))
    print(f"\n{dataset} · {used} · {summary['cases']} cases → {out}/report.md")
    for name in HEADLINE:
        print(f"  {name:<28} {summary.get(name)}")
    failed = [
        f"{k}={summary.get(k)} < {v}" for k, v in thresholds.items() if (summary.get(k) or 0) < v
    ]
    for failure in failed:
        print(f"FAIL {failure}")
    return 1 if failed else 0


async def _run(
    cases, dataset: Path, out: Path, model: str | None, concurrency: int, settings: Settings
):
    resources = await Resources.open(settings)
    try:
        context = RunContext.from_settings(settings)
        used = model or spec_for("sql_writer", context, settings)
        results = await run_dataset(cases, resources, context, concurrency=concurrency, model=model)
    finally:
        await resources.close()
    summary = summarize(results, settings.prices, used)
    write_report(out, str(dataset), used, summary, results)
    if os.environ.get("LANGSMITH_API_KEY"):
        _upload(dataset, used, summary, results)
    return summary, used


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
