"""The verdicts a join's evidence earns, at the documented thresholds (the rows themselves
are read in tests/integration/test_join_proposals.py)."""

from __future__ import annotations

import pytest

from orquestra.ddl_catalog.join_evidence import Evidence, Side, declared_uniqueness

CHILD = Side("public", "orders", ("customer_id",))
PARENT = Side("public", "customers", ("customer_id",))


@pytest.mark.parametrize(
    ("values", "found", "unique", "verdict"),
    [
        (830, 830, True, "holds"),
        (100, 98, True, "holds"),  # a few orphans are common
        (100, 97, True, "orphans"),
        (100, 50, True, "orphans"),
        (100, 49, True, "contradicted"),
        (5, 0, True, "contradicted"),
        (830, 830, False, "contradicted"),  # a child row would meet several parents
        (1, 1, True, "too few values"),
        (0, 0, True, "too few values"),
        (0, 0, False, "contradicted"),
    ],
)
def test_verdicts(values: int, found: int, unique: bool, verdict: str) -> None:
    evidence = Evidence(CHILD, PARENT, values, found, False, unique, "primary key")
    assert evidence.verdict == verdict


def test_a_measurement_that_failed_is_never_taken_for_holding() -> None:
    evidence = Evidence(CHILD, PARENT, problem="timed out")
    assert evidence.verdict == "not measured"
    assert evidence.describe() == (
        "orders.customer_id → customers.customer_id: not measured (timed out)"
    )


def test_the_evidence_names_counts_never_values() -> None:
    evidence = Evidence(CHILD, PARENT, 830, 829, True, True, "primary key")
    assert evidence.describe() == (
        "829/830 values of orders.customer_id (in 10000 of its rows) found in"
        " customers.customer_id (primary key)"
    )


def test_a_unique_key_within_the_join_columns_makes_them_unique() -> None:
    keys = {("a",): "unique index", ("a", "b"): "primary key"}
    assert declared_uniqueness(keys, ("a", "b")) == "primary key"
    assert declared_uniqueness(keys, ("a",)) == "unique index"
    assert declared_uniqueness(keys, ("b",)) == ""
