"""Joins known from the values where no name says them, on a hand-made schema read by the
real import: what is written, what is only listed, and the adversarial columns — codes that
happen to be another table's, one-letter flags, a single value, integers — left alone. (The
public schemas are scored in tests/integration/test_join_proposals.py.)"""

from __future__ import annotations

import asyncpg
import pytest

from orquestra.core.database import embedded_server
from orquestra.core.settings import Settings
from orquestra.ddl_catalog.importer import SchemaImport, import_schema, review_lines
from tests.databases import fresh_database

CODE = "chr(65 + {0} / 676) || chr(65 + {0} / 26 % 26) || chr(65 + {0} % 26)"
"""The three-capital code numbered {0} (0 → AAA, 17575 → ZZZ)."""
CODES_SQL = f"""
CREATE TABLE airport (code text PRIMARY KEY, name text NOT NULL);
-- about 350 of the 17,576 three-capital codes
INSERT INTO airport SELECT c, 'airport ' || c FROM (
    SELECT {CODE.format("g")} FROM generate_series(0, 17575, 50) g
    UNION SELECT unnest(ARRAY['BOS', 'ORD', 'SFO', 'NEW', 'ACT'])) AS codes(c);
CREATE TABLE carrier (carrier_no integer PRIMARY KEY, name text);
INSERT INTO carrier SELECT 7000 + g, 'carrier ' || g FROM generate_series(1, 10) g;
-- origin: three hubs; destination: 38 airports and 2 codes no table holds; operated_by:
-- integers, never judged by their values
CREATE TABLE route (route_id integer PRIMARY KEY, origin text NOT NULL, destination text,
                    operated_by integer);
INSERT INTO route SELECT g, (ARRAY['BOS', 'ORD', 'SFO'])[1 + g % 3],
    CASE WHEN g % 40 < 38 THEN {CODE.format("(g % 40 * 50)")} ELSE 'XX' || g % 40 END,
    7001 + g % 3
    FROM generate_series(1, 400) g;
-- two status codes that happen to be airport codes too
CREATE TABLE shipment (shipment_id integer PRIMARY KEY, status text NOT NULL);
INSERT INTO shipment SELECT g, (ARRAY['NEW', 'ACT'])[1 + g % 2] FROM generate_series(1, 200) g;
-- one-letter flags found in a table of one-letter codes; a single value that is an airport
CREATE TABLE answer (code char(1) PRIMARY KEY, label text);
INSERT INTO answer VALUES ('Y', 'yes'), ('N', 'no'), ('M', 'maybe');
CREATE TABLE member (member_id integer PRIMARY KEY, active char(1), home text);
INSERT INTO member SELECT g, (ARRAY['Y', 'N'])[1 + g % 2], 'BOS' FROM generate_series(1, 100) g;
-- codes two keys hold alike
CREATE TABLE region (code text PRIMARY KEY);
CREATE TABLE zone (code text PRIMARY KEY);
INSERT INTO region SELECT 'R' || lpad(g::text, 2, '0') FROM generate_series(0, 39) g;
INSERT INTO zone SELECT code FROM region;
CREATE TABLE office (office_id integer PRIMARY KEY, area text);
INSERT INTO office SELECT g, 'R' || lpad((g % 20)::text, 2, '0') FROM generate_series(1, 60) g;
-- a table that declares no key, its codes unique on the rows
CREATE TABLE depot (code text, city text);
INSERT INTO depot SELECT 'D' || lpad(g::text, 2, '0'), 'city ' || g FROM generate_series(0, 39) g;
CREATE TABLE parcel (parcel_id integer PRIMARY KEY, depot_ref text);
INSERT INTO parcel SELECT g, 'D' || lpad((g % 20)::text, 2, '0') FROM generate_series(1, 90) g;
-- a role-named uuid key
CREATE TABLE account (id uuid PRIMARY KEY, email text);
INSERT INTO account SELECT md5(g::text)::uuid, 'user' || g FROM generate_series(1, 50) g;
CREATE TABLE event (event_id integer PRIMARY KEY, created_by uuid);
INSERT INTO event SELECT g, md5((1 + g % 5)::text)::uuid FROM generate_series(1, 30) g;
-- a lookup whose unique codes are a column's words
CREATE TABLE ticket_status (code text PRIMARY KEY);
INSERT INTO ticket_status VALUES ('open'), ('closed'), ('void');
CREATE TABLE ticket (ticket_id integer PRIMARY KEY, state text);
INSERT INTO ticket SELECT g, (ARRAY['open', 'closed'])[1 + g % 2] FROM generate_series(1, 50) g;
-- a key too large to read whole: searched through its index
CREATE TABLE serial (serial_no text PRIMARY KEY);
INSERT INTO serial SELECT 'S' || lpad(g::text, 5, '0') FROM generate_series(0, 24999) g;
CREATE TABLE part (part_id integer PRIMARY KEY, made_as text);
INSERT INTO part SELECT g, 'S' || lpad((g * 797 % 25000)::text, 5, '0')
    FROM generate_series(1, 30) g;
"""


@pytest.fixture(scope="module")
async def codes(settings: Settings) -> SchemaImport:
    server_url = embedded_server(settings.data_dir).get_uri()  # type: ignore[attr-defined]
    url = await fresh_database(server_url, "join_values_codes")
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(CODES_SQL)
        return await import_schema(conn, "public", system="codes", tenant_column=None)
    finally:
        await conn.close()


def test_columns_whose_values_only_one_key_holds_are_written(codes: SchemaImport) -> None:
    written = {
        (p.candidate.table, p.candidate.column): (p.candidate.parent, p.candidate.parent_column)
        for p in codes.joins.written
    }
    assert written == {
        ("route", "origin"): ("airport", "code"),  # three codes of ~350 of 17,576
        ("parcel", "depot_ref"): ("depot", "code"),  # unique on the rows, no key declared
        ("event", "created_by"): ("account", "id"),
        ("ticket", "state"): ("ticket_status", "code"),
        ("part", "made_as"): ("serial", "serial_no"),
    }
    assert {p.candidate.rule for p in codes.joins.written} == {"values"}
    assert (
        "    # proposed, not declared (values): 3/3 values of route.origin found in airport.code"
        " (primary key); no other key holds them; chance of a coincidence "
    ) in codes.text


def test_orphans_guesses_and_coincidences_are_listed_not_written(codes: SchemaImport) -> None:
    listed = {f"{p.candidate.table}.{p.candidate.column}": p for p in codes.joins.listed}
    assert set(listed) == {"route.destination", "shipment.status", "office.area"}
    assert listed["route.destination"].describe() == (
        "route.destination → airport.code (values): ORPHANS; 38/40 values of"
        " route.destination found in airport.code (primary key)"
    )
    assert listed["shipment.status"].note.startswith("too few values to tell (chance")
    assert listed["office.area"].note == "values found in several keys (region.code, zone.code)"
    review = review_lines(codes)
    assert any(
        line.startswith("join NOT written (declare it by hand if it is right): shipment.status")
        for line in review
    )


def test_flags_single_values_and_integers_are_left_alone(codes: SchemaImport) -> None:
    said = {
        (p.candidate.table, p.candidate.column) for p in codes.joins.written + codes.joins.listed
    }
    for place in [("member", "active"), ("member", "home"), ("route", "operated_by")]:
        assert place not in said
    assert not [line for line in codes.joins.review() if "member." in line]


def test_a_join_known_only_from_its_values_never_carries_tenancy(codes: SchemaImport) -> None:
    assert codes.joins.written and codes.joins.tenancy_keys() == []
