"""Where the names say nothing, is a column's set of values the key of one table?

nycflights13's `flights.origin` and `dest` name no table, yet their values ('EWR', 'ATL')
are airport codes, and the only unique column that holds them is `airports.faa`. For a
text-like column (text, varchar, char, uuid) that no name rule pairs with a parent,
`ddl_catalog.join_value_search` reads its distinct values and looks for them in every unique
column of a comparable type: a primary key or unique index on that one column, or, in a
table that declares no primary key, a column whose values do not repeat in the whole table.
`judge` then decides. The column is a key into that parent only when all of these hold:

- it has `MIN_VALUES` distinct values at least, and not all of one character (flags such as
  'Y'/'N' fit any table of one-letter codes);
- at least `MIN_CONTAINMENT` of them are found in the parent, and in no other unique column
  of the schema is even `MIN_OVERLAP` of them found (several would make it a guess);
- the parent's values are codes, not free text (`key_like`: at most `MAX_KEY_LENGTH`
  characters, no spaces);
- they are too many to be there by chance (`chance`): were strings of the parent's shape
  (its lengths, and at each position its kinds of character: digits, capitals, small
  letters) drawn at random, the chance that all the values found would be among the
  parent's is at most `MAX_CHANCE`. Three airport codes among `airports.faa`'s 1,458 of the
  46,656 strings of three capitals or digits: 3·10⁻⁵, written; two status codes that happen
  to be airport codes too: 10⁻³, listed, not written.

Found with orphans (`MIN_LISTED` to `MIN_CONTAINMENT`), in several keys, or in too few
values to tell, the column is listed for the owner, not written; below that nothing is said.

What values cannot tell apart is a key from a column that merely shares the parent's
vocabulary: a lookup table whose unique codes are exactly a column's words is, by the rows,
what that column refers to. So these joins are marked `values` for the owner to confirm
and never carry tenancy (`join_proposals`). Integers are left out: small numbers fit the
keys of most tables (1..n), where no value is a surprise.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from orquestra.ddl_catalog.join_evidence import (
    MIN_CONTAINMENT,
    MIN_OVERLAP,
    MIN_VALUES,
    TEXT_TYPES,
)
from orquestra.ddl_catalog.model import base_type, type_family

MAX_KEY_LENGTH = 64
MAX_CHANCE = 1e-4
"""At most one chance in ten thousand that the values found are there by accident."""
MIN_LISTED = 0.9
KEY_TYPES = TEXT_TYPES | {"uuid"}
CHARACTER_KINDS = {"digit": 10, "capital": 26, "small": 26}
"""How many characters a kind stands for; any other character stands for itself."""
DECLARED = ("primary key", "unique index")


@dataclass(frozen=True)
class KeyValues:
    """A text-like column's distinct values as read (their text forms), and what they say."""

    table: str
    column: str
    type: str
    values: frozenset[str]
    """Its distinct values that look like codes (`key_like`), a bounded number of them."""
    distinct: int
    """Distinct non-null values read, codes or not (a parent's rows, when not all read)."""
    codes: int
    """Of those, how many look like codes."""
    complete: bool = True
    """`values` holds every code read: the column can be searched in memory."""
    unique_by: str = ""
    """`primary key`, `unique index`, or what the rows showed (`no repeated value in …`)."""
    sampled: bool = False
    """Read from a sample of its table's rows."""

    @property
    def may_be_parent(self) -> bool:
        """A key whose values are codes only."""
        return bool(self.unique_by) and self.codes == self.distinct

    @cached_property
    def density(self) -> float:
        """Its share of the strings of its shape (`shape_space`)."""
        return min(1.0, self.distinct / max(1.0, shape_space(self.values)))


@dataclass(frozen=True)
class ValueMatch:
    """`child`'s values, `found` of them in `parent`; `note`: why the join is not written."""

    child: KeyValues
    parent: KeyValues
    found: int
    note: str = ""

    @property
    def containment(self) -> float:
        """Share of the child's distinct values found (values that are no code are nowhere)."""
        return self.found / len(self.child.values) * self.child.codes / self.child.distinct

    @property
    def chance(self) -> float:
        return chance(self.found, self.parent)

    def basis(self) -> str:
        """Why the values, not a name, make it a key (for the comment and the review)."""
        return f"no other key holds them; chance of a coincidence {self.chance:.0e}"


def is_key_type(type_sql: str) -> bool:
    """Text-like or uuid: a type whose values say something of their own."""
    return not type_sql.endswith("]") and type_family(base_type(type_sql)) in KEY_TYPES


def key_like(value: str) -> bool:
    """A code, not free text: short, no spaces.

    >>> key_like("EWR"), key_like("N14228"), key_like("Alfreds Futterkiste"), key_like("")
    (True, True, False, False)
    """
    return 0 < len(value) <= MAX_KEY_LENGTH and not any(ch.isspace() for ch in value)


def shape_space(values: frozenset[str]) -> float:
    """How many strings have the shape of `values`: their lengths, and at each position the
    kinds of character seen there.

    >>> shape_space(frozenset({"EWR", "04G", "0A9"})), shape_space(frozenset({"Y", "N", "no"}))
    (46656.0, 702.0)
    """
    positions: dict[int, list[set[str]]] = {}
    for value in values:
        seen = positions.setdefault(len(value), [set() for _ in value])
        for place, ch in zip(seen, value, strict=True):
            place.add(_kind(ch))
    return float(
        sum(
            math.prod(sum(CHARACTER_KINDS.get(kind, 1) for kind in place) for place in seen)
            for seen in positions.values()
        )
    )


def chance(found: int, parent: KeyValues) -> float:
    """The chance that `found` random strings of the parent's shape would all be among its
    values.

    >>> faa = KeyValues("airports", "faa", "text", frozenset({"EWR", "04G", "0A9"}), 1458, 1458)
    >>> f"{chance(3, faa):.1e}", f"{chance(2, faa):.1e}"
    ('3.1e-05', '9.8e-04')
    """
    return parent.density**found


def judge(child: KeyValues, held: Sequence[tuple[KeyValues, int]]) -> ValueMatch | None:
    """What the keys holding some of `child`'s values (each with how many) say of it: a join
    to write (no `note`), one to list, or nothing.

    >>> faa = KeyValues("airports", "faa", "text", frozenset({"EWR", "JFK", "04G"}), 1458,
    ...                 1458, unique_by="primary key")
    >>> origin = KeyValues("flights", "origin", "text", frozenset({"EWR", "JFK", "LGA"}), 3, 3)
    >>> judge(origin, [(faa, 3)]).note, judge(origin, [(faa, 3), (faa, 2)]).note
    ('', 'values found in several keys (airports.faa, airports.faa)')
    """
    if len(child.values) < MIN_VALUES or all(len(v) == 1 for v in child.values):
        return None
    matches = sorted(
        (ValueMatch(child, parent, found) for parent, found in held if found),
        key=lambda m: (-m.found, m.parent.table, m.parent.column),
    )
    overlapping = [m for m in matches if m.containment >= MIN_OVERLAP]
    if not overlapping:
        return None
    best = overlapping[0]
    if best.containment < MIN_LISTED or not best.parent.may_be_parent:
        return None
    if len(overlapping) > 1:
        keys = ", ".join(f"{m.parent.table}.{m.parent.column}" for m in overlapping[:4])
        return _noted(best, f"values found in several keys ({keys})")
    if best.containment < MIN_CONTAINMENT:
        return _noted(best, "ORPHANS")
    if best.chance > MAX_CHANCE:
        return _noted(best, f"too few values to tell (chance of a coincidence {best.chance:.0e})")
    return best


def _noted(match: ValueMatch, note: str) -> ValueMatch:
    return ValueMatch(match.child, match.parent, match.found, note)


def _kind(ch: str) -> str:
    if ch.isdigit():
        return "digit"
    if ch.isalpha():
        return "capital" if ch.isupper() else "small"
    return ch
