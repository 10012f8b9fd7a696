"""Which values of a profiled table may enter the catalog, which every tenant's prompts share.

Profiling never carries one tenant's data to another: a value read from tenant rows enters
the catalog only as common vocabulary:

- a text column is enumerated when the rows read hold at most `MAX_VALUES` distinct values,
  none longer than `MAX_VALUE_CHARS` characters or `MAX_VALUE_WORDS` words (free text), not
  all of them numbers (codes), none personal data (`personal_data`); identifiers, keys,
  names and free text (by their name's words) are never enumerated;
- in a tenant table (the tenant column's, or one reaching it by `tenant_via`, followed to
  the root to learn each row's tenant), a value is kept only when the rows of at least
  `MIN_TENANTS` distinct tenants hold it, and at least `MIN_TENANT_SHARE` of the tenants
  seen in the table: a status or a category every business uses, never one business's
  product name, code or customer. Fewer than `MIN_TENANTS` tenants: no value at all. A
  sample only lowers these counts, so it errs towards leaving a value out;
- a shared table's rows are every tenant's to read, so its values are not tenant data: they
  are kept when they repeat (`MIN_REPEAT` rows per value at least; one-off values are names
  and free text), and a small lookup's labels (at most `LOOKUP_ROWS` rows, one label per
  row: `genre.name`) are kept too, unless the table names people (`first_name`). While
  tenancy is proposed and not yet confirmed, a table without a foreign key to tenant data
  looks shared, so in a tenanted deployment a shared table is read only while it is as
  small as reference data is (`REFERENCE_ROWS`); the review lists the tables read;
- a table whose tenancy is undecided is not read. Without tenants (`--no-tenancy`) every
  table is shared.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from orquestra.ddl_catalog.model import base_type
from orquestra.ddl_catalog.naming import (
    TEXT_TYPES,
    column_kind,
    is_free_text,
    is_label,
)
from orquestra.ddl_catalog.personal_data import find_personal_data
from orquestra.ddl_catalog.profiling_sql import Sampled
from orquestra.ddl_catalog.tenancy import Key

__all__ = ["Scope", "is_candidate", "is_label_only", "kept_values"]

MAX_VALUES = 30
"""Distinct values at most in the rows read: more, and the column is not enumerated."""
MAX_VALUE_CHARS = 40
MAX_VALUE_WORDS = 4
"""A longer value is free text, and so is its column."""
MIN_REPEAT = 2
"""Rows per value at least, in a shared table: one-off values are names and free text."""
MIN_TENANTS = 3
MIN_TENANT_SHARE = 0.2
"""A tenant table's value is common vocabulary when at least `MIN_TENANTS` distinct tenants
hold it and at least this share of the tenants seen in the table."""
LOOKUP_ROWS = 30
"""A shared table this small, read whole, is a lookup: its labels are vocabulary."""
REFERENCE_ROWS = 1_000
"""In a tenanted deployment, a (proposed) shared table is read only up to this size."""


@dataclass(frozen=True)
class Scope:
    """Whose rows a table holds: nobody's in particular, a tenant's (and how to reach the
    tenant), or not known yet."""

    kind: str
    """`shared`, `tenant` or `undecided`."""
    chain: tuple[Key, ...] = ()
    """For a `tenant_via` table: the keys up to the root that holds the tenant column."""


def is_candidate(column: Any, table: str, keyed: set[str], language: str, shared: bool) -> bool:
    """A text column that may hold vocabulary: not a key, an identifier or a date; a name or
    free text only as the label of a shared lookup (decided once its rows are counted)."""
    name = column["column_name"]
    if column["type"].endswith("]") or column["enum_values"] or name in keyed:
        return False  # an array, or an enum (its labels are its values already), or a key
    if base_type(column["type"]) not in TEXT_TYPES:
        return False
    if column_kind(name, column["type"], language) in ("identifier", "date"):
        return False
    return (shared and is_label(name, table)) or not is_label_only(name)


def is_label_only(column: str) -> bool:
    """A name or free text: enumerated only as a small lookup's labels."""
    return column_kind(column, "text", "") == "name" or is_free_text(column)


def kept_values(
    found: list[tuple[str, int, int]], seen: Sampled, scope: Scope, lookup: bool
) -> tuple[tuple[str, ...], int]:
    """The values written for one column and how many were left out for too few tenants.
    `found`: (value, rows, tenants), the most frequent first; `lookup`: the column is the
    label of a small shared table read whole.

    >>> five = Sampled(rows=400, tenants=5, limit=10_000, tablesampled=False)
    >>> found = [("SHOES", 200, 5), ("BAGS", 150, 3), ("ACME LINE", 50, 1)]
    >>> kept_values(found, five, Scope("tenant"), lookup=False)
    (('SHOES', 'BAGS'), 1)
    >>> kept_values(found, Sampled(400, 2, 10_000, False), Scope("tenant"), lookup=False)
    ((), 3)
    >>> shared = Sampled(rows=9, tenants=0, limit=10_000, tablesampled=False)
    >>> kept_values([("Sales", 6, 0), ("Owner", 3, 0)], shared, Scope("shared"), lookup=False)
    (('Sales', 'Owner'), 0)
    >>> kept_values([("Paris", 1, 0), ("Rome", 1, 0)], shared, Scope("shared"), lookup=False)
    ((), 0)
    """
    texts = [value for value, _, _ in found]
    if not _vocabulary_like(texts):
        return (), 0
    rows = sum(count for _, count, _ in found)
    if scope.kind == "shared":
        return (tuple(texts) if lookup or rows >= MIN_REPEAT * len(found) else ()), 0
    if seen.tenants < MIN_TENANTS:
        return (), len(found)
    needed = max(MIN_TENANTS, math.ceil(MIN_TENANT_SHARE * seen.tenants))
    kept = tuple(value for value, _, tenants in found if tenants >= needed)
    return kept, len(found) - len(kept)


def _vocabulary_like(values: list[str]) -> bool:
    """Short words, not numbers, nothing personal: what a column of categories holds."""
    if not values:
        return False
    if any(len(v) > MAX_VALUE_CHARS or len(v.split()) > MAX_VALUE_WORDS for v in values):
        return False
    if all(not any(ch.isalpha() for ch in v) for v in values):
        return False  # numbers and codes written as text
    return not any(find_personal_data(v) for v in values)
