"""Comparing an answer's rows with the gold rows (design §3.4).

Exact: the rows as multisets, column order and names ignored, numbers rounded to 2 decimals.
Relaxed: the same number of rows, and every gold column's values found, in order, among the
answer's columns (an answer with an extra helpful column is not wrong).
"""

from __future__ import annotations

from collections import Counter
from datetime import date, datetime
from decimal import Decimal
from typing import Any


def normal(value: Any) -> Any:
    """A comparable form: numbers rounded to 2 decimals, times as ISO text."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float | Decimal):
        return round(float(value), 2)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, str):
        try:
            return round(float(value), 2)
        except ValueError:
            return value
    return str(value)


def _rows(rows: list[list[Any]]) -> list[tuple[Any, ...]]:
    return [tuple(normal(v) for v in row) for row in rows]


def exact_match(answer: list[list[Any]], gold: list[list[Any]]) -> bool:
    """Same rows as multisets, whatever the column order."""
    left, right = _rows(answer), _rows(gold)
    if len(left) != len(right):
        return False
    if not right:
        return True
    if len(left[0]) != len(right[0]):
        return False
    return Counter(tuple(sorted(map(repr, r))) for r in left) == Counter(
        tuple(sorted(map(repr, r))) for r in right
    )


def relaxed_match(answer: list[list[Any]], gold: list[list[Any]]) -> bool:
    """Same row count, and each gold column appears among the answer's columns."""
    left, right = _rows(answer), _rows(gold)
    if len(left) != len(right):
        return False
    if not right:
        return True
    columns = [Counter(row[i] for row in left) for i in range(len(left[0]))]
    return all(Counter(row[j] for row in right) in columns for j in range(len(right[0])))
