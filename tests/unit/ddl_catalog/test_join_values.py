"""Joins known from the values where the name says nothing: what `judge` writes, lists or
leaves alone, on hand-made value sets — the adversarial ones first (the rows themselves are
read in tests/integration/test_joins_by_values.py)."""

from __future__ import annotations

import itertools
import string

from orquestra.ddl_catalog.join_value_search import no_key
from orquestra.ddl_catalog.join_values import KeyValues, chance, is_key_type, judge, key_like

PK = "primary key"


def column(
    table: str, name: str, values: set[str], distinct: int = 0, unique_by: str = ""
) -> KeyValues:
    """A column whose values are all codes, `distinct` of them read (default: all)."""
    count = distinct or len(values)
    return KeyValues(table, name, "text", frozenset(values), count, count, unique_by=unique_by)


def codes(count: int, step: int = 1) -> set[str]:
    """`count` three-capital codes, every `step`-th of AAA, AAB, …"""
    every = ("".join(t) for t in itertools.product(string.ascii_uppercase, repeat=3))
    return set(itertools.islice(every, 0, count * step, step))


AIRPORTS = column(
    "airport", "code", codes(300, 50) | {"BOS", "ORD", "SFO", "NEW", "ACT"}, unique_by=PK
)
"""About 300 of the 17,576 three-capital codes: a density of 1.7%."""


def verdict(child: KeyValues, *held: tuple[KeyValues, int]) -> str | None:
    match = judge(child, held)
    return None if match is None else match.note or "write"


def test_three_airport_codes_found_in_one_key_only_are_a_join() -> None:
    origin = column("route", "origin", {"BOS", "ORD", "SFO"})
    assert verdict(origin, (AIRPORTS, 3)) == "write"
    assert chance(3, AIRPORTS) < 1e-5


def test_a_status_whose_two_codes_happen_to_be_airport_codes_is_only_listed() -> None:
    status = column("shipment", "status", {"NEW", "ACT"})
    note = verdict(status, (AIRPORTS, 2))
    assert note is not None and note.startswith("too few values to tell (chance of a coincidence")


def test_one_letter_flags_are_never_a_join_even_with_many_rows() -> None:
    answers = column("answer", "code", {"Y", "N", "M"}, unique_by=PK)
    flag = column("member", "active", {"Y", "N"}, 2)
    assert verdict(flag, (answers, 2)) is None


def test_a_single_distinct_value_says_nothing() -> None:
    country = column("member", "home", {"BOS"})
    assert verdict(country, (AIRPORTS, 1)) is None


def test_codes_found_in_two_keys_are_a_guess_listed_as_such() -> None:
    regions = column("region", "code", {f"R{i:02}" for i in range(40)}, unique_by=PK)
    zones = column("zone", "code", {f"R{i:02}" for i in range(30)}, unique_by=PK)
    office = column("office", "area", {f"R{i:02}" for i in range(20)})
    assert verdict(office, (regions, 20), (zones, 20)) == (
        "values found in several keys (region.code, zone.code)"
    )
    # a second key holding under half of them does not make it a guess
    few = column("zone", "code", {f"R{i:02}" for i in range(5)}, unique_by=PK)
    assert verdict(office, (regions, 20), (few, 5)) == "write"


def test_orphans_are_listed_and_a_weak_overlap_is_left_alone() -> None:
    dest = column("route", "dest", codes(40, 50))
    assert verdict(dest, (AIRPORTS, 38)) == "ORPHANS"  # 95%
    assert verdict(dest, (AIRPORTS, 34)) is None  # 85%: a few shared words


def test_values_that_are_no_code_count_as_not_found() -> None:
    # 20 codes read, all found, but 20 more values of the column are free text
    area = column("office", "area", {f"R{i:02}" for i in range(20)})
    mixed = KeyValues("office", "area", "text", area.values, 40, 20)
    regions = column("region", "code", area.values | {"R99"}, unique_by=PK)
    assert verdict(area, (regions, 20)) == "write"
    assert verdict(mixed, (regions, 20)) is None


def test_only_a_key_of_codes_is_a_parent() -> None:
    names = column("team", "name", {"Lions", "Tigers", "Bears"}, unique_by=PK)
    texts = KeyValues("team", "name", "text", names.values, 4, 3, unique_by=PK)  # one with spaces
    mascot = column("fan", "favourite", {"Lions", "Tigers"})
    assert verdict(mascot, (texts, 2)) is None
    not_unique = column("team", "name", names.values)
    assert verdict(mascot, (not_unique, 2)) is None
    # a lookup whose unique codes are the column's words: by the rows, what it refers to
    assert verdict(mascot, (names, 2)) == "write"


def test_a_key_unique_only_on_the_rows_is_a_parent() -> None:
    depots = column(
        "depot",
        "code",
        {f"D{i:02}" for i in range(40)},
        unique_by="no repeated value in 40 rows read",
    )
    parcel = column("parcel", "depot_ref", {f"D{i:02}" for i in range(20)})
    assert verdict(parcel, (depots, 20)) == "write"


def test_uuids_are_codes_of_a_shape_no_coincidence_fills() -> None:
    ids = {f"{i:08x}-0000-4000-8000-{i:012x}" for i in range(1, 50)}
    users = column("account", "id", ids, unique_by=PK)
    created_by = column("event", "created_by", set(sorted(ids)[:2]))
    assert chance(2, users) < 1e-30
    assert verdict(created_by, (users, 2)) == "write"


def test_what_counts_as_a_code_and_a_key_type() -> None:
    assert key_like("EWR") and key_like("N14228") and key_like("01581")
    assert not key_like("Alfreds Futterkiste") and not key_like("x" * 65)
    assert is_key_type("character varying(5)") and is_key_type("uuid") and is_key_type("bpchar")
    assert not is_key_type("integer") and not is_key_type("text[]")


def test_statistics_spare_reading_columns_that_cannot_be_keys() -> None:
    assert no_key(1.0, 0, [])  # no value
    assert no_key(0.0, 1, ["new"])  # a single one
    assert no_key(0.0, 2, ["Y", "N"])  # flags
    assert no_key(0.0, -1, ["label 1", "label 2", "label 3"])  # free text
    assert not no_key(0.0, 3, ["EWR", "JFK", "LGA"])
    assert not no_key(0.0, 3, ["AB   ", "CD   "])  # char(5) values come padded
    assert not no_key(0.0, -1, [])  # never analysed: read
