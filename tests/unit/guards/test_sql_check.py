"""The catalog check alone, on a small neutral schema (films, copies, rentals): each kind of
mistake, the case correction, and the constructs it must leave alone. The demo's corpus of
broken queries runs in tests/integration/guards/test_sql_check_corpus.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from orquestra.ddl_catalog import load_catalog
from orquestra.guards.sql_check import Checked, Correction, check_sql

FILMS = load_catalog(
    Path(__file__).resolve().parents[2] / "integration" / "guards" / "constructs" / "catalog"
)


def problems(sql: str) -> list[str]:
    return [problem.message() for problem in check_sql(sql, FILMS).problems]


def test_an_enum_types_case_is_corrected_where_it_was_written() -> None:
    checked = check_sql("SELECT title FROM film WHERE rating = 'pg-13' OR title = 'pg-13'", FILMS)
    assert checked.sql == "SELECT title FROM film WHERE rating = 'PG-13' OR title = 'pg-13'"
    assert checked.corrections == (Correction("film.rating", "pg-13", "PG-13"),)
    assert checked.problems == ()


def test_an_unknown_value_lists_the_valid_ones() -> None:
    assert problems("SELECT title FROM film WHERE rating IN ('PG', 'PG13')") == [
        "film.rating has no value 'PG13'; valid values: 'PG-13', 'PG', 'G', 'R', 'NC-17'"
    ]


def test_a_misspelled_column_gets_the_nearest_name() -> None:
    assert problems("SELECT titel FROM film") == [
        'column "titel" does not exist in film; did you mean "title"?'
    ]
    assert problems("SELECT f.titel FROM film f") == [
        'column "titel" does not exist in film; did you mean "title"?'
    ]


def test_an_unknown_table_gets_the_nearest_names() -> None:
    assert problems("SELECT count(*) FROM films") == [
        'table "films" does not exist; did you mean "film"?'
    ]


def test_an_ambiguous_column_says_each_way_to_write_it() -> None:
    sql = "SELECT film_id FROM film f JOIN inventory i ON i.film_id = f.film_id"
    assert problems(sql) == [
        'column "film_id" is ambiguous: write f.film_id (film) or i.film_id (inventory)'
    ]


def test_a_column_of_another_table_gets_the_join() -> None:
    assert problems("SELECT store_id FROM film") == [
        'column "store_id" does not exist in film (store_id is a column of inventory);'
        " to use it, JOIN inventory ON inventory.film_id = film.film_id"
    ]


@pytest.mark.parametrize(
    "sql",
    [
        "WITH t AS (SELECT film_id AS k FROM film) SELECT k, count(*) AS n FROM t GROUP BY k"
        " ORDER BY n DESC",
        "SELECT i.store_id FROM inventory i WHERE EXISTS"
        " (SELECT 1 FROM rental r WHERE r.inventory_id = i.inventory_id AND note <> '')",
        "SELECT x FROM generate_series(1, 3) AS g(x)",
        "SELECT title AS name FROM film ORDER BY name",
        "SELECT d.t FROM (SELECT title AS t FROM film) d",
        "SELECT f.* FROM film f WHERE f.release_year > 2000",
        "SELECT rating, count(*) FROM film GROUP BY 1 HAVING count(*) > 1",
        "SELECT film_id FROM film UNION SELECT film_id FROM inventory",
        "SELECT title FROM film WHERE rating = ANY (ARRAY['G', 'PG'])",
    ],
)
def test_valid_sql_is_left_alone(sql: str) -> None:
    assert check_sql(sql, FILMS) == Checked(sql)


@pytest.mark.parametrize("sql", ["", "SELEC 1", "DELETE FROM film", "SELECT 1; SELECT 2", "(("])
def test_what_it_cannot_read_is_left_to_the_guard(sql: str) -> None:
    assert check_sql(sql, FILMS).problems == ()
