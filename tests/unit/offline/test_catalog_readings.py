"""Readings of an imported catalog itself, on a made-up crew whose catalog is English only
(`tests/fixtures/catalogs/crew_en`), as `orquestra init` leaves an imported schema.

- A person kept in two columns (a given name and a family name, `given_name_columns` and
  `family_name_columns` of the language data) is shown by the two joined ("first last"), as
  people say a name, not by one of them.
- A table that keeps its rows' date in year, month and day numbers (columns named by the
  languages' `year_noun`, `month_noun`, `day_noun`) is placed in time by the calendar date
  they make, not by a timestamp it also has; a date the question names is still read as named.
- A word that names a table ("dispatcher") is no verb naming when the rows happened: the rows
  are placed by their own date, not by the date spelled like that table ("dispatched_on").
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from orquestra.ddl_catalog import load_catalog
from orquestra.ddl_catalog.model import Catalog
from orquestra.guards import GuardPolicy, guard_sql
from orquestra.offline import _write_sql
from orquestra.offline.lexicon import lexicon_for

TODAY = date(2026, 6, 30)
CREW = Path(__file__).resolve().parents[2] / "fixtures" / "catalogs" / "crew_en"


@pytest.fixture(scope="module")
def crew() -> Catalog:
    return load_catalog(CREW)


@pytest.mark.parametrize(
    "question",
    ["Which technician handled the most repairs in 2025?", "how many repairs per technician?"],
)
def test_a_person_is_shown_by_the_whole_name(crew: Catalog, question: str) -> None:
    sql = sql_of(crew, question)
    assert "t.first_name || ' ' || t.last_name" in sql
    assert "GROUP BY 1, t.technician_id" in sql  # two people named alike stay apart


def sql_of(crew: Catalog, question: str) -> str:
    sql = _write_sql(question, crew, lexicon_for(crew), TODAY, (), "en")["sql"]
    assert isinstance(sql, str) and sql, question
    guard_sql(sql, GuardPolicy.from_catalog(crew), "1")
    return sql


@pytest.mark.parametrize(
    "question", ["average temperature in January 2025", "how many readings per month in 2025?"]
)
def test_a_date_kept_in_parts_places_the_rows(crew: Catalog, question: str) -> None:
    sql = sql_of(crew, question)
    assert "make_date(r.year, r.month, r.day) >= DATE '2025-01-01'" in sql
    assert "taken_at" not in sql


def test_a_table_with_a_date_of_its_own_is_placed_by_it(crew: Catalog) -> None:
    assert "r.opened_on >= DATE '2025-01-01'" in sql_of(crew, "how many repairs in 2025?")


def test_a_tables_name_is_no_verb_of_a_date(crew: Catalog) -> None:
    ranked = sql_of(crew, "Which dispatcher handled the most repairs in 2025?")
    assert "r.opened_on >= DATE '2025-01-01'" in ranked and "dispatched_on" not in ranked
    assert "r.dispatched_on >= DATE '2025-01-01'" in sql_of(
        crew, "how many repairs were dispatched in 2025?"
    )
