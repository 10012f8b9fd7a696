"""Comparing an answer's rows with the gold rows (design §3.4).

Exact: the rows as multisets, column order and names ignored, numbers rounded to 2 decimals.
Relaxed: the same number of rows, and every gold column's values found, in order, among the
answer's columns (an answer with an extra helpful column is not wrong); a period given by its
first day is the same as its year's or month's number (`date_trunc('year', …)` and
`EXTRACT(YEAR …)` answer alike: the chat shows both as "1997").
"""

from __future__ import annotations

import re
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
    columns = [[row[i] for row in left] for i in range(len(left[0]))]
    held = [Counter(column) for column in columns]
    for j in range(len(right[0])):
        wanted = [row[j] for row in right]
        if Counter(wanted) in held:
            continue
        part = _period_part(wanted)
        if part is None or not any(
            Counter(_period_numbers(column, part)) == Counter(wanted) for column in columns
        ):
            return False
    return True


YEARS = range(1000, 3000)
MONTHS = range(1, 13)
PERIOD_START = re.compile(r"^(\d{4})-(\d{2})-01(?:T00:00:00(?:[+-]\d{2}:\d{2})?)?$")
"""A period's first day as `normal` writes it: a date, or midnight of it."""


def _period_part(values: list[Any]) -> str | None:
    """`year` or `month` when every value is such a number (as `normal` leaves it)."""
    if not values or not all(isinstance(v, float) and v.is_integer() for v in values):
        return None
    if all(int(v) in YEARS for v in values):
        return "year"
    return "month" if all(int(v) in MONTHS for v in values) else None


def _period_numbers(values: list[Any], part: str) -> list[Any]:
    """Each value that is a period's first day as its year's or month's number; the others
    as they are (then they match no number)."""
    found = []
    for value in values:
        start = PERIOD_START.match(value) if isinstance(value, str) else None
        found.append(float(start.group(1 if part == "year" else 2)) if start else value)
    return found
