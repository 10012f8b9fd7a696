"""Writing a run (`report.json`, `report.md`, `report.png`) and comparing two runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import altair as alt
import vl_convert

from orquestra.core.texts import counted
from orquestra.evals.baseline_metrics import LEAK_CHECKS, BaselineRun
from orquestra.evals.runner import CaseResult

HEADLINE = (
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
    "rail_missed_blocks",
    "judge_refined_answers",
    "judge_unverified_answers",
    "cap_hits",
    "tenant_leaks",
    "errors",
    "model_calls_per_case",
    "prompt_tokens_per_case",
    "tokens_estimated_cases",
    "cost_per_case_usd",
    "latency_ms_median",
    "latency_ms_p95",
)

COMPARED = (
    "execution_accuracy",
    "relaxed_execution_accuracy",
    "model_calls_per_case",
    "prompt_tokens_per_case",
    "completion_tokens_per_case",
    "cost_per_case_usd",
    "latency_ms_median",
    "latency_ms_p95",
    "tenant_leaks",
    "errors",
)
"""What Orquestra and a baseline are compared on, side by side."""


def write_report(
    out: Path,
    dataset: str,
    model: str,
    summary: dict[str, Any],
    results: list[CaseResult],
    baseline: BaselineRun | None = None,
) -> None:
    out.mkdir(parents=True, exist_ok=True)
    payload = {
        "dataset": dataset,
        "model": model,
        "summary": summary,
        "cases": [r.as_dict() for r in results],
    }
    text = markdown(dataset, model, summary, results)
    if baseline is not None:  # without one, the report is what it always was
        payload["baseline"] = baseline.as_dict()
        text += baseline_markdown(model, summary, baseline)
    (out / "report.json").write_text(json.dumps(payload, ensure_ascii=False, indent=1, default=str))
    (out / "report.md").write_text(text, encoding="utf-8")
    (out / "report.png").write_bytes(vl_convert.vegalite_to_png(plot(summary, results).to_dict()))


def markdown(dataset: str, model: str, summary: dict[str, Any], results: list[CaseResult]) -> str:
    lines = [
        f"# Evaluation: {dataset}",
        "",
        f"Model: `{model}` · {summary['cases']} cases",
        "",
        "| metric | value |",
        "|---|---|",
    ]
    lines += [f"| {name} | {summary.get(name)} |" for name in HEADLINE]
    if summary.get("tokens_estimated_cases"):
        lines += [
            "",
            "Token counts (and so the cost) are estimates for "
            f"{counted(summary['tokens_estimated_cases'], 'case', 'cases')}: the provider sent"
            " no usage for some call.",
        ]
    for group in ("by_route", "by_complexity", "by_lang"):
        lines += [
            "",
            f"## {group.replace('_', ' ')}",
            "",
            "| group | cases | route acc. | exec. acc. | relaxed |",
            "|---|---|---|---|---|",
        ]
        for name, values in summary[group].items():
            lines.append(
                f"| {name} | {values['cases']} | {values['route_accuracy']} | "
                f"{values['execution_accuracy']} | {values['relaxed_execution_accuracy']} |"
            )
    lines += [
        "",
        "## model calls by route taken",
        "",
        "| route taken | cases | model calls per case |",
        "|---|---|---|",
    ]
    lines += [
        f"| {route} | {values['cases']} | {values['model_calls_per_case']} |"
        for route, values in summary.get("model_calls_by_route_taken", {}).items()
    ]
    errored = [r for r in results if r.error is not None]
    if errored:
        lines += [
            "",
            f"## Cases that failed ({len(errored)} of {len(results)})",
            "",
            "Each counts as a miss: its turn ended in an error, every SQL it tried was refused"
            " or failed, it stopped before any query ran, or its gold SQL could not run.",
            "",
            "| id | code | message | question |",
            "|---|---|---|---|",
        ]
        lines += [
            f"| {r.id} | {r.error} | {_cell(r.error_message or '')} | {_cell(r.question[:70])} |"
            for r in errored
        ]
    failed = [r for r in results if r.route != r.expected_route or r.exact is False]
    if failed:
        lines += [
            "",
            "## Cases that missed",
            "",
            "| id | expected | got | exact | question |",
            "|---|---|---|---|---|",
        ]
        lines += [
            f"| {r.id} | {r.expected_route} | {r.route} | {r.exact} | {r.question[:70]} |"
            for r in failed
        ]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    """`text` on one line of a Markdown table (its own `|` escaped)."""
    return " ".join(text.split()).replace("|", "\\|")


def baseline_markdown(model: str, summary: dict[str, Any], baseline: BaselineRun) -> str:
    """The side-by-side section: both columns, then how the baseline ran and was scored."""
    other = baseline.summary
    tenants = ", ".join(sorted({r.tenant for r in baseline.results}))
    checks = ", ".join(f"{name} {other['leak_checks'][name]}" for name in LEAK_CHECKS)
    lines = [
        "",
        f"## Side by side: Orquestra and the baseline `{baseline.name}`",
        "",
        f"Same {other['cases']} cases, "
        + (
            f"same model (`{baseline.model}`)."
            if baseline.model == model
            else f"Orquestra with `{model}`, the baseline with `{baseline.model}`."
        ),
        "",
        f"| metric | Orquestra | {baseline.name} |",
        "|---|---|---|",
    ]
    lines += [f"| {name} | {summary.get(name)} | {other.get(name)} |" for name in COMPARED]
    lines += [
        "",
        "- The baseline is LangChain's SQL agent as LangChain documents it for v1:"
        " `langchain.agents.create_agent` with the tools of langchain-community's"
        " `SQLDatabaseToolkit` (list tables, schema, query checker, query) over `SQLDatabase`"
        " restricted to the catalog's tables, and the tutorial's system prompt (dialect"
        " postgresql, top_k 5).",
        f"- The baseline runs with row-level security on, as the agent role `{baseline.role}`,"
        f" tenant T (each case's own: {tenants}): it can only see the tenant's rows. Each"
        " transaction is read-only with the executor's statement timeout, and one tool call"
        " runs one statement, as Orquestra's executor does.",
        "- Execution accuracy is route-independent for both: every case with gold SQL counts,"
        " and the rows are compared with the gold rows by the same rules. The baseline answers"
        " in text, so its rows are those of its last successful `sql_db_query`, run once more"
        " on the same connection as typed rows.",
        "- Answers with another tenant's rows: a result column named as a tenant column holding"
        " another tenant's value (both); for the baseline also its statement through"
        " Orquestra's guard as the tenant, without its outer LIMIT: a row the tenant's own rows"
        f" cannot produce is a leak. Baseline cases decided by each check: {checks}.",
    ]
    if other.get("tokens_estimated_cases"):
        lines.append(
            "- The baseline's token counts are estimates for "
            f"{counted(other['tokens_estimated_cases'], 'case', 'cases')}: the provider sent no"
            " usage for some call."
        )
    missed = [r for r in baseline.results if r.exact is False or r.error]
    if missed:
        lines += [
            "",
            "### Baseline cases that missed",
            "",
            "| id | tenant | exact | rows | error | question |",
            "|---|---|---|---|---|---|",
        ]
        lines += [
            f"| {r.id} | {r.tenant} | {r.exact} | {r.row_count} | {r.error or ''} |"
            f" {r.question[:70]} |"
            for r in missed
        ]
    return "\n".join(lines) + "\n"


def plot(summary: dict[str, Any], results: list[CaseResult]) -> alt.VConcatChart:
    rows = [
        {"group": f"{kind}: {name}", "metric": metric, "value": values[metric] or 0}
        for kind in ("route", "complexity", "lang")
        for name, values in summary[f"by_{kind}"].items()
        for metric in ("route_accuracy", "execution_accuracy")
    ]
    accuracy = (
        alt.Chart(_inline(rows), title="Accuracy by category")
        .mark_bar()
        .encode(
            x=alt.X("value:Q", scale=alt.Scale(domain=[0, 1])),
            y="group:N",
            color="metric:N",
            yOffset="metric:N",
        )
    )
    latency = (
        alt.Chart(_inline([{"ms": r.latency_ms} for r in results]), title="Latency per case (ms)")
        .mark_bar()
        .encode(x=alt.X("ms:Q", bin=alt.Bin(maxbins=30)), y="count():Q")
    )
    return alt.vconcat(accuracy, latency)


def _inline(rows: list[dict[str, Any]]) -> alt.Data:
    """The rows inlined in the chart's spec (`InlineData` would move them to `datasets`)."""
    # altair generates `Data.__init__(self, *args, **kwds)` without annotations.
    return alt.Data(values=rows)  # type: ignore[no-untyped-call]


def compare(first: Path, second: Path) -> list[dict[str, Any]]:
    """Cases whose outcome changed between two reports."""
    a, b = (json.loads(Path(p).read_text()) for p in (first, second))
    before = {c["id"]: c for c in a["cases"]}
    changes = []
    for case in b["cases"]:
        old = before.get(case["id"])
        if old is None:
            continue
        for key in ("route", "exact", "relaxed", "knowledge_ok", "clarified"):
            if old.get(key) != case.get(key):
                changes.append(
                    {"id": case["id"], "field": key, "before": old.get(key), "after": case.get(key)}
                )
    return changes
