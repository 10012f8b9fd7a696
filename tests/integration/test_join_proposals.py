"""Joins proposed where no foreign key is declared, tried on the rows: the public schemas with
their keys dropped (scored against the keys they declared), a hand-made schema for each
verdict, the tenancy that rests on a proposed join, and `catalog check --data`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import asyncpg
import pytest

from orquestra.core.database import embedded_server
from orquestra.core.settings import Settings
from orquestra.ddl_catalog import load_catalog
from orquestra.ddl_catalog.check_joins import check_join_data
from orquestra.ddl_catalog.importer import SchemaImport, import_schema, review_lines
from orquestra.ddl_catalog.join_proposals import naming_columns, propose_joins
from tests.databases import fresh_database
from tests.join_scores import JoinScore, score_schema

ORQUESTRA = str(Path(sys.executable).parent / "orquestra")
REPO = Path(__file__).resolve().parents[2]

NORTHWIND_NOT_FOUND = {
    ("employees", "reports_to", "employees", "employee_id"),  # role names: no table named
    ("orders", "ship_via", "shippers", "shipper_id"),
    ("customer_customer_demo", "customer_id", "customers", "customer_id"),  # empty table:
    ("customer_customer_demo", "customer_type_id", "customer_demographics", "customer_type_id"),
}
"""The declared keys not written, and why: listed for review, or not derivable by name."""
NYCFLIGHTS13_NOT_FOUND = {
    ("flights", "tailnum", "planes", "tailnum"),  # 2067/2464 values found: orphans, listed
    ("flights", "dest", "airports", "faa"),  # by its values: 90/94 found, orphans, listed
}
NYCFLIGHTS13_BY_VALUES = {  # no name says it: 'EWR', 'JFK', 'LGA' are in no other key
    ("flights", "origin", "airports", "faa"),
    ("weather", "origin", "airports", "faa"),
}
CHINOOK_NOT_FOUND = {
    ("customer", "support_rep_id", "employee", "employee_id"),
    ("employee", "reports_to", "employee", "employee_id"),
}

TEAMS_SQL = """
CREATE TABLE team (team_id integer, name text NOT NULL);          -- no key declared
CREATE TABLE coach (coach_id integer PRIMARY KEY, name text UNIQUE);
CREATE TABLE player (player_id integer PRIMARY KEY, team_id integer, coach_id integer,
                     name text);
CREATE TABLE ticket_status (status_id integer PRIMARY KEY, label text NOT NULL);
CREATE TABLE fixture (fixture_id integer PRIMARY KEY, home_team_id integer NOT NULL,
                      status_id integer NOT NULL);
CREATE TABLE rating (rating_id integer PRIMARY KEY, player_id integer NOT NULL);
CREATE TABLE venue (venue_code text, city text);                 -- no key, codes repeat
CREATE TABLE booking (booking_id integer PRIMARY KEY, venue_code text);
CREATE TABLE kit (item_code text PRIMARY KEY, size text);
CREATE TABLE stock (item_code text PRIMARY KEY, units integer);
INSERT INTO team SELECT g, 'team ' || g FROM generate_series(1, 8) g;
INSERT INTO coach VALUES (1, 'Ana'), (2, 'Bo');
-- players' names are not coaches' names: two attributes sharing a word, not even listed
INSERT INTO player SELECT g, 1 + g % 8, NULL, 'player ' || g FROM generate_series(1, 100) g;
INSERT INTO ticket_status VALUES (1, 'open'), (2, 'closed'), (3, 'void');
-- status codes of another scheme: same column name, values nowhere in ticket_status
INSERT INTO fixture SELECT g, 1 + g % 8, 100 + g % 5 FROM generate_series(1, 40) g;
-- 99 of 100 rated players exist: one orphan is tolerated
INSERT INTO rating SELECT g, CASE WHEN g = 100 THEN 1000 ELSE g END FROM generate_series(1, 100) g;
INSERT INTO venue VALUES ('N1', 'north'), ('N1', 'north annex'), ('S1', 'south');
INSERT INTO booking VALUES (1, 'N1'), (2, 'S1');
INSERT INTO kit VALUES ('A', 'S'), ('B', 'M');
INSERT INTO stock VALUES ('A', 3), ('B', 4);
"""


@pytest.fixture(scope="module")
def server_url(settings: Settings) -> str:
    return embedded_server(settings.data_dir).get_uri()  # type: ignore[attr-defined,no-any-return]


@pytest.fixture(scope="module")
async def teams(server_url: str) -> str:
    url = await fresh_database(server_url, "joins_teams")
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(TEAMS_SQL)
    finally:
        await conn.close()
    return url


@pytest.fixture(scope="module")
async def northwind(server_url: str) -> JoinScore:
    score, _, _ = await score_schema(server_url, "northwind", "joins_northwind")
    return score


@pytest.fixture(scope="module")
async def chinook(server_url: str) -> tuple[JoinScore, SchemaImport, str]:
    return await score_schema(
        server_url, "chinook", "joins_chinook", tenant_column="support_rep_id"
    )


def test_northwind_without_foreign_keys_gets_its_joins_back(northwind: JoinScore) -> None:
    assert northwind.wrong == frozenset()
    assert northwind.missed == NORTHWIND_NOT_FOUND
    assert len(northwind.right) == 9 and len(northwind.declared) == 13
    # the empty table's keys: no rows to try them on, so listed, not written
    assert northwind.listed == {p for p in NORTHWIND_NOT_FOUND if p[0] == "customer_customer_demo"}


def test_chinook_without_foreign_keys_gets_its_joins_back(chinook: tuple) -> None:
    score = chinook[0]
    assert score.wrong == frozenset()
    assert score.missed == CHINOOK_NOT_FOUND
    assert len(score.right) == 9 and len(score.declared) == 11


async def test_nycflights13_keys_without_a_key_word(server_url: str) -> None:
    score, imported, _ = await score_schema(server_url, "nycflights13", "joins_nycflights13")
    assert score.written == {("flights", "carrier", "airlines", "carrier")} | NYCFLIGHTS13_BY_VALUES
    assert score.wrong == frozenset()
    assert score.missed == NYCFLIGHTS13_NOT_FOUND
    assert score.listed == NYCFLIGHTS13_NOT_FOUND
    (line,) = [line for line in review_lines(imported) if "flights.tailnum" in line]
    assert "ORPHANS; " in line  # about 84% of them are planes: the sample's exact count varies
    (line,) = [line for line in imported.joins.review() if "weather.origin" in line]
    assert line == (
        "join proposed, not declared (confirm): weather.origin → airports.faa (values): 3/3"
        " values of weather.origin found in airports.faa (primary key); no other key holds"
        " them; chance of a coincidence 3e-05"
    )
    assert imported.joins.tenancy_keys() == [  # a join known from values alone: none
        k for k in imported.joins.written_keys() if k.columns == ("carrier",)
    ]


def test_tenancy_follows_proposed_joins_and_says_so(chinook: tuple, tmp_path: Path) -> None:
    _, imported, _ = chinook
    via = imported.tenancy.via
    assert via["invoice"].path == ("invoice", "customer")
    assert via["invoice_line"].path == ("invoice_line", "invoice", "customer")
    review = review_lines(imported)
    assert (
        "  rests on a PROPOSED join (no foreign key declares it; it decides which tenant sees"
        " each row): invoice.customer_id → customer.customer_id"
    ) in review
    assert (
        "keys that name no table (role names), no join proposed: customer.support_rep_id;"
        " declare their joins by hand"
    ) in review
    assert "#   rests on a PROPOSED join, not declared: invoice_line.invoice_id → " in imported.text
    assert (
        "    # proposed, not declared (same name): 412/412 values of invoice_line.invoice_id"
        " found in invoice.invoice_id (primary key)\n    - to: invoice\n"
    ) in imported.text
    (tmp_path / "systems").mkdir()
    (tmp_path / "systems" / "chinook.yaml").write_text(imported.text, encoding="utf-8")
    catalog = load_catalog(tmp_path)
    assert catalog.table("invoice_line").tenant_via.parent == "invoice"
    assert [j.to for j in catalog.table("track").meta.joins] == ["album", "media_type", "genre"]


async def test_each_verdict_on_a_hand_made_schema(teams: str) -> None:
    conn = await asyncpg.connect(teams)
    try:
        imported = await import_schema(conn, "public", system="teams", tenant_column=None)
    finally:
        await conn.close()
    written = {p.candidate.key() for p in imported.joins.written}
    by_column = {(k.table, k.columns[0]): (k.target, k.target_columns[0]) for k in written}
    assert by_column == {
        ("player", "team_id"): ("team", "team_id"),  # unique on the rows, no key declared
        ("fixture", "home_team_id"): ("team", "team_id"),  # role prefix
        ("rating", "player_id"): ("player", "player_id"),  # 99/100: one orphan tolerated
    }
    listed = {f"{p.candidate.table}.{p.candidate.column}": p for p in imported.joins.listed}
    assert set(listed) == {
        "fixture.status_id",
        "booking.venue_code",
        "player.coach_id",
        "kit.item_code",
        "stock.item_code",
    }
    # the same name, but none of its values in the other table: refused
    assert listed["fixture.status_id"].evidence.verdict == "contradicted"
    assert "0/5 values of fixture.status_id found" in listed["fixture.status_id"].describe()
    assert "NOT unique: 1 repeated value in" in listed["booking.venue_code"].describe()
    assert listed["player.coach_id"].evidence.verdict == "too few values"
    assert listed["kit.item_code"].note == "both ways (1:1): choose the direction"
    assert "99/100 values of rating.player_id found" in imported.text
    assert "no repeated value in 8 rows read" in imported.text
    # a parent unique only on the rows never carries tenancy (the loader needs a key)
    assert imported.joins.tenancy_keys() == [
        k for k in imported.joins.written_keys() if k.target == "player"
    ]


async def test_a_spent_time_budget_writes_nothing(teams: str) -> None:
    conn = await asyncpg.connect(teams)
    try:
        columns = await conn.fetch(
            "SELECT table_name::text, column_name::text, data_type AS type,"
            " is_nullable = 'NO' AS not_null FROM information_schema.columns"
            " WHERE table_schema = 'public' AND table_name IN ('player', 'rating')"
        )
        tables = {
            name: naming_columns(
                [c for c in columns if c["table_name"] == name],
                [f"{name}_id"],
                {(f"{name}_id",): "primary key"},
            )
            for name in ("player", "rating")
        }
        proposals = await propose_joins(conn, "public", tables, budget=0)
    finally:
        await conn.close()
    assert proposals.written == ()
    assert [p.evidence.verdict for p in proposals.listed] == ["not measured"]
    assert "time budget for join proposals spent" in proposals.listed[0].describe()
    assert proposals.review()[:2] == [
        "1 column not tried on the data, the 2 s budget for join proposals spent: rating.player_id",
        "joins by values not searched in full (time budget spent): some columns whose name"
        " says no table were not tried",
    ]


async def test_init_then_check_data_tries_every_join(
    chinook: tuple, data_dir: Path, tmp_path: Path
) -> None:
    """The owner's path: `init` (a real process) writes the proposed joins and says what the
    tenancy rests on; `catalog check --data` tries each join on the rows."""
    _, _, url = chinook
    folder = tmp_path / "chinook"
    args = ("init", str(folder), "--schema", "public", "--tenant-column", "support_rep_id")
    result = orquestra(url, data_dir, *args)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("join proposed, not declared (confirm): ") == 9
    assert "rests on a PROPOSED join" in result.stdout
    catalog_dir = folder / "catalog"
    conn = await asyncpg.connect(url)
    try:
        findings = await check_join_data(conn, load_catalog(catalog_dir))
    finally:
        await conn.close()
    assert len(findings) == 9 and not any(f.contradicted for f in findings)
    result = orquestra(url, data_dir, "catalog", "check", "--catalog", str(catalog_dir), "--data")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("join HOLDS: ") == 9
    assert "9 joins tried on the data" in result.stdout
    # a join the rows contradict: genres 1..25 are not media types 1..5
    system = catalog_dir / "systems" / "public.yaml"
    text = system.read_text(encoding="utf-8")
    wrong = text.replace(
        "- to: genre\n      'on':\n        genre_id: genre_id",
        "- to: media_type\n      'on':\n        genre_id: media_type_id",
    )
    assert wrong != text
    system.write_text(wrong, encoding="utf-8")
    result = orquestra(url, data_dir, "catalog", "check", "--catalog", str(catalog_dir), "--data")
    assert result.returncode == 1, result.stdout + result.stderr
    assert (
        "join CONTRADICTED: 5/25 values of track.genre_id found in media_type.media_type_id"
        " (primary key)"
    ) in result.stdout
    assert "1 join the data contradicts" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr


def orquestra(url: str, data_dir: Path, *args: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "DATABASE_URL": url, "ORQUESTRA_DATA_DIR": str(data_dir)}
    return subprocess.run(
        [ORQUESTRA, *args], capture_output=True, text=True, env=environment, cwd=REPO, timeout=300
    )
