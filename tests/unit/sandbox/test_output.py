"""The analysis a worker answers is checked against its own job before anything uses it."""

from __future__ import annotations

import doctest
import random
from datetime import date, timedelta

import pytest

from orquestra.sandbox import output
from orquestra.sandbox.analysis import analyze, share_scope
from orquestra.sandbox.output import Provenance, checked_analysis, checked_figures
from orquestra.sandbox.pool import AnalysisError

MONTHS = {
    "columns": ["mes", "faturamento"],
    "rows": [["2026-01-01", 100.0], ["2026-02-01", 80.0], ["2026-03-01", 120.0]],
    "question": "faturamento por mes comparado ao anterior",
}
CUSTOMERS = {
    "columns": ["cliente", "valor_vencido"],
    "rows": [[f"Cliente {i}", float(i * 10)] for i in range(1, 9)] + [["Cliente 99", 9000.0]],
    "row_count": 40,
    "truncated": True,
}


def test_the_docstring_examples_hold() -> None:
    results = doctest.testmod(output)
    assert results.attempted >= 4 and results.failed == 0


def _jobs() -> list[dict]:
    """Built-in analyses of many shapes: series, rankings, listings, nulls, mixed labels."""
    rng = random.Random(7)
    jobs = [MONTHS, CUSTOMERS]
    for n in (1, 2, 5, 40):
        start = date(2025, 1, 1)
        jobs.append(
            {
                "columns": ["dia", "canal", "pedidos", "valor"],
                "rows": [
                    [
                        (start + timedelta(days=i)).isoformat(),
                        rng.choice(["EDI", "API", None, 7]),
                        rng.randint(0, 9),
                        rng.choice([None, round(rng.uniform(1, 1e5), 2)]),
                    ]
                    for i in range(n)
                ],
            }
        )
        jobs.append(
            {
                "columns": ["canal", "valor"],
                "rows": [[rng.choice(["EDI", 3, None]), rng.uniform(0, 50)] for _ in range(n)],
                "limited": True,
            }
        )
    return jobs


@pytest.mark.parametrize("job", _jobs())
def test_every_built_in_analysis_passes_unchanged(job: dict) -> None:
    analysis = analyze(job)
    assert checked_analysis(analysis, job) == analysis
    scoped = share_scope(analysis, len(job["rows"]))
    assert checked_analysis(scoped, job) == scoped


@pytest.mark.parametrize(
    "tamper",
    [
        lambda a: a["trend"].update(measure="Boreal Bebidas: 18.230,00"),
        lambda a: a["trend"]["last"].update(period="Cliente Secreto"),
        lambda a: a["measures"].update({"Cliente Secreto": {"sum": 1.0}}),
        lambda a: a["notes"].append("Boreal Bebidas owes 18.230,00"),
        lambda a: a.update(extra="anything"),
        lambda a: a["trend"]["last"].update(value=float("nan")),
        lambda a: a["columns"].append({"name": "x", "kind": "number", "nulls": 0}),
        lambda a: a["trend"].update(time=["not", "a", "name"]),
    ],
)
def test_words_the_rows_do_not_hold_are_refused(tamper) -> None:
    analysis = analyze(MONTHS)
    tamper(analysis)
    with pytest.raises(AnalysisError) as refused:
        checked_analysis(analysis, MONTHS)
    assert refused.value.code == "ANALYSIS_INVALID"


def test_top_labels_come_from_the_jobs_own_rows() -> None:
    analysis = analyze(CUSTOMERS)
    assert checked_analysis(analysis, CUSTOMERS)["top"]["items"][0]["label"] == "Cliente 99"
    analysis["top"]["items"][0]["label"] = "Cliente de outro fornecedor"
    with pytest.raises(AnalysisError):
        checked_analysis(analysis, CUSTOMERS)
    analysis = analyze(CUSTOMERS)
    analysis["top"]["items"] *= 3  # more items than the analysis ever lists
    with pytest.raises(AnalysisError):
        checked_analysis(analysis, CUSTOMERS)


def test_not_an_analysis_at_all() -> None:
    for raw in (None, "Boreal", [1, 2], 3):
        with pytest.raises(AnalysisError):
            checked_analysis(raw, MONTHS)


def test_figures_keep_to_the_querys_words() -> None:
    seen = Provenance.of(CUSTOMERS)
    kept = {
        "total_valor_vencido": 9360.0,
        "top_cliente": "Cliente 99",
        "Cliente 99": 9000.0,
        "share_pct": [96.2, 0.1],
        "median valor": 45.0,
        "média_móvel_3": 12.5,  # the words of statistics in each language, accents or not
        "crescimento_pct_q1": 3.0,
    }
    assert checked_figures(kept, seen) == kept
    for bad in (
        {"owner": "Cliente 99"},  # a key of free words
        {"total": "Boreal Bebidas"},  # a value the rows do not hold
        {"total": float("inf")},
        {"n": list(range(100))},  # too many figures
        {"a": {"b": {"c": {"d": {"e": 1}}}}},  # nested too deeply
    ):
        assert checked_figures(bad, seen) is None, bad


def test_bad_figures_are_dropped_and_the_built_in_analysis_stays() -> None:
    analysis = {**analyze(MONTHS), "figures": {"spy": "Cliente Secreto"}}
    checked = checked_analysis(analysis, MONTHS)
    assert "figures" not in checked and checked["trend"]["measure"] == "faturamento"
