"""Summary metrics of an evaluation run, overall and by route, complexity and language."""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from orquestra.evals.runner import CaseResult


def rate(values: Iterable[bool | None]) -> float | None:
    known = [v for v in values if v is not None]
    return round(sum(known) / len(known), 4) if known else None


def quantile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 1)


class Metered(Protocol):
    """A case's model use (Orquestra's results and the baseline's)."""

    model_calls: int
    prompt_tokens: int
    completion_tokens: int
    tokens_estimated: bool
    latency_ms: float


class Scored(Protocol):
    """A case's comparison with its gold rows (None: no gold SQL)."""

    exact: bool | None
    relaxed: bool | None


def cost(result: Metered, prices: dict[str, dict[str, float]], model: str) -> float:
    """Cost of a case in USD with the price table (per million tokens)."""
    price = prices.get(model, {})
    return (
        result.prompt_tokens * price.get("prompt", 0.0)
        + result.completion_tokens * price.get("completion", 0.0)
    ) / 1_000_000


def summarize(
    results: list[CaseResult], prices: dict[str, dict[str, float]] | None = None, model: str = ""
) -> dict[str, Any]:
    prices = prices or {}
    clarify_expected = [r.expected_route == "clarify" for r in results]
    clarified = [r.clarified for r in results]
    true_pos = sum(e and c for e, c in zip(clarify_expected, clarified, strict=True))
    summary: dict[str, Any] = {
        "cases": len(results),
        "route_accuracy": rate(r.route == r.expected_route for r in results),
        **accuracy(results),
        "clarification_precision": round(true_pos / sum(clarified), 4) if sum(clarified) else None,
        "clarification_recall": (
            round(true_pos / sum(clarify_expected), 4) if sum(clarify_expected) else None
        ),
        "knowledge_contains": rate(r.knowledge_ok for r in results),
        "fixer_recoveries": sum(r.fixer_recovered for r in results),
        **_rails(results),
        "cap_hits": sum(len(r.caps_hit) for r in results),
        "tenant_leaks": sum(r.tenant_leak for r in results),
        "errors": sum(r.error is not None for r in results),
        "failures": failures(results),
        **usage(results, prices, model),
    }
    for key in ("expected_route", "complexity", "lang"):
        summary[f"by_{key.removeprefix('expected_')}"] = {
            value: _group([r for r in results if getattr(r, key) == value])
            for value in sorted({getattr(r, key) for r in results})
        }
    summary["model_calls_by_route_taken"] = calls_by_route_taken(results)
    return summary


def failures(results: list[CaseResult]) -> list[dict[str, str]]:
    """Each failed case (see `CaseResult.error`): its id, the failure's code and message."""
    return [
        {"id": r.id, "code": r.error, "message": r.error_message or ""}
        for r in results
        if r.error is not None
    ]


def nothing_scored(summary: dict[str, Any]) -> bool:
    """Every case failed: the run measured nothing, whatever its figures say.

    >>> nothing_scored({"cases": 3, "errors": 3}), nothing_scored({"cases": 3, "errors": 2})
    (True, False)
    """
    return bool(summary["cases"]) and summary["errors"] == summary["cases"]


def calls_by_route_taken(results: list[CaseResult]) -> dict[str, dict[str, float]]:
    """Model calls per case by the route the graph took. The overall mean mixes routes of
    very different cost (a clarification is one call, a data answer several), so a model
    that answers more questions raises it without any turn costing more; this tells the two
    apart."""
    taken = sorted({r.route for r in results})
    return {
        route: {
            "cases": len(group),
            "model_calls_per_case": round(statistics.mean(r.model_calls for r in group), 2),
        }
        for route in taken
        if (group := [r for r in results if r.route == route])
    }


def accuracy(results: Sequence[Scored]) -> dict[str, float | None]:
    """Execution accuracy, strict and relaxed, over the cases with gold SQL."""
    return {
        "execution_accuracy": rate(r.exact for r in results),
        "relaxed_execution_accuracy": rate(
            r.exact or r.relaxed if r.exact is not None else None for r in results
        ),
    }


def usage(
    results: Sequence[Metered], prices: dict[str, dict[str, float]], model: str
) -> dict[str, Any]:
    """Model calls, tokens, cost and latency per case, the same for any system measured."""
    latencies = [r.latency_ms for r in results]
    return {
        "model_calls_per_case": round(statistics.mean(r.model_calls for r in results), 2),
        "prompt_tokens_per_case": round(statistics.mean(r.prompt_tokens for r in results), 1),
        "completion_tokens_per_case": round(
            statistics.mean(r.completion_tokens for r in results), 1
        ),
        "tokens_estimated_cases": sum(r.tokens_estimated for r in results),
        "cost_per_case_usd": round(statistics.mean(cost(r, prices, model) for r in results), 6),
        "latency_ms_median": quantile(latencies, 0.5),
        "latency_ms_p95": quantile(latencies, 0.95),
    }


def _rails(results: list[CaseResult]) -> dict[str, Any]:
    """How the input rails and the judges did: right blocks, wrong blocks, misses, rewrites."""
    expected = [r for r in results if r.expected_block]
    blocked = [r for r in results if r.blocked_by]
    right = [r for r in blocked if r.blocked_by == r.expected_block]
    return {
        "rail_block_precision": round(len(right) / len(blocked), 4) if blocked else None,
        "rail_block_recall": round(len(right) / len(expected), 4) if expected else None,
        "rail_false_blocks": [r.id for r in blocked if not r.expected_block],
        "rail_missed_blocks": [r.id for r in expected if r.blocked_by != r.expected_block],
        "judge_refined_answers": sum(r.refine_rounds > 0 for r in results),
        "judge_unverified_answers": sum(bool(r.judges_failed) for r in results),
    }


def _group(results: list[CaseResult]) -> dict[str, Any]:
    return {
        "cases": len(results),
        "route_accuracy": rate(r.route == r.expected_route for r in results),
        **accuracy(results),
    }
