"""Real schemas' constructs through the whole guard, run as the agent role on PostgreSQL.

A small rental schema (constructs/catalog) declares an enum (`mpaa_rating`), a domain
(`year`), `text[]` columns and a `tsvector` column; films are shared, copies belong to a
store, rentals belong to the store of their copy (`tenant_via`). Each query is guarded from
the catalog's own policy, executed as the least-privilege agent for each store, and must
return the rows written down here by hand; the refused ones must stay refused.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest

from orquestra.core.database import connect
from orquestra.core.settings import Settings
from orquestra.ddl_catalog import Catalog, load_catalog
from orquestra.guards import GuardPolicy, GuardRejection, allowlist, guard_sql
from orquestra.guards.rls_setup import policy_statements
from orquestra.guards.tenant_query import ExecutionLimits, run_as_tenant
from tests.databases import fresh_database

CATALOG_DIR = Path(__file__).parent / "constructs" / "catalog"
DATABASE = "orq_constructs"
AGENT_ROLE = "orq_constructs_agent"
LIMITS = ExecutionLimits(row_cap=0, statement_timeout_ms=5_000, client_timeout_s=10.0)

FILMS = [
    (1, "Academy Dinosaur", "An epic drama of a feminist and a mad scientist who must battle a teacher in the Canadian Rockies", 2006, "PG", ["Deleted Scenes", "Behind the Scenes"]),  # noqa: E501
    (2, "Ace Goldfinger", "An astounding epistle of a database administrator and an explorer who must find a car in ancient China", 2006, "G", ["Trailers", "Deleted Scenes"]),  # noqa: E501
    (3, "Adaptation Holes", "An astounding reflection of a lumberjack and a car who must sink a lumberjack in a baloon factory", 2006, "NC-17", ["Trailers", "Deleted Scenes"]),  # noqa: E501
    (4, "Affair Prejudice", "A fanciful documentary of a frisbee and a lumberjack who must chase a monkey in a shark tank", 2007, "G", ["Commentaries", "Behind the Scenes"]),  # noqa: E501
    (5, "African Egg", "A fast-paced documentary of a pastry chef and a dentist who must pursue a forensic psychologist in the gulf of Mexico", 2005, "G", ["Deleted Scenes"]),  # noqa: E501
    (6, "Agent Truman", "An intrepid panorama of a robot and a boy who must escape a sumo wrestler in ancient China", 2006, "PG", ["Deleted Scenes"]),  # noqa: E501
]  # fmt: skip
INVENTORY = [(1, 1, 1), (2, 2, 1), (3, 3, 1), (4, 1, 2), (5, 4, 2), (6, 6, 2)]
"""(inventory_id, film_id, store_id): store 1 holds films 1-3, store 2 films 1, 4 and 6."""
RENTALS = [
    (1, 1, "returned late, case cracked", ["late", "damaged"]),
    (2, 2, "returned on time", []),
    (3, 4, "disc scratched and returned late", ["late", "damaged"]),
    (4, 5, "lost by the customer", ["lost"]),
    (5, 3, "case cracked", ["damaged"]),
]
"""(rental_id, inventory_id, note, flags): rentals 1, 2, 5 are store 1's, 3 and 4 store 2's."""

SHARED = object()
"""Marks an expectation that is the same for both stores (a query on shared films only)."""
CASES = [
    # Enum and domain casts, bare and schema-qualified; enum order and enum arrays.
    ("SELECT title FROM film WHERE rating = 'PG'::mpaa_rating ORDER BY title",
     SHARED, [("Academy Dinosaur",), ("Agent Truman",)]),
    ("SELECT title FROM film WHERE rating > CAST('PG-13' AS public.mpaa_rating)",
     SHARED, [("Adaptation Holes",)]),
    ("SELECT count(*) FROM film WHERE rating = ANY('{G,NC-17}'::mpaa_rating[])",
     SHARED, [(4,)]),
    ("SELECT count(*), min(release_year) FROM film WHERE release_year >= CAST(2006 AS year)",
     SHARED, [(5, 2006)]),
    ("SELECT title FROM film WHERE release_year = '2005'::public.year", SHARED, [("African Egg",)]),
    ("SELECT f.rating::text, count(*) FROM inventory i JOIN film f USING (film_id) "
     "WHERE f.rating <> 'NC-17'::mpaa_rating GROUP BY f.rating ORDER BY f.rating",
     [("G", 1), ("PG", 1)], [("G", 1), ("PG", 2)]),
    # Arrays: = ANY, <> ALL, @>, <@, &&, subscripts, functions, unnest, ARRAY[...], array_agg.
    ("SELECT f.title FROM inventory i JOIN film f USING (film_id) "
     "WHERE 'Trailers' = ANY(f.special_features) ORDER BY 1",
     [("Ace Goldfinger",), ("Adaptation Holes",)], []),
    ("SELECT f.title FROM inventory i JOIN film f USING (film_id) "
     "WHERE f.special_features @> ARRAY['Behind the Scenes'] ORDER BY 1",
     [("Academy Dinosaur",)], [("Academy Dinosaur",), ("Affair Prejudice",)]),
    ("SELECT rental_id FROM rental WHERE flags && ARRAY['lost', 'damaged'] ORDER BY 1",
     [(1,), (5,)], [(3,), (4,)]),
    ("SELECT rental_id FROM rental WHERE flags <@ ARRAY['late', 'damaged'] ORDER BY 1",
     [(1,), (2,), (5,)], [(3,)]),
    ("SELECT rental_id FROM rental WHERE 'lost' <> ALL(flags) ORDER BY 1",
     [(1,), (2,), (5,)], [(3,)]),
    ("SELECT rental_id, flags[1], array_length(flags, 1), cardinality(flags), "
     "array_to_string(flags, '+') FROM rental ORDER BY 1",
     [(1, "late", 2, 2, "late+damaged"), (2, None, None, 0, ""), (5, "damaged", 1, 1, "damaged")],
     [(3, "late", 2, 2, "late+damaged"), (4, "lost", 1, 1, "lost")]),
    ("SELECT u.flag, count(*) FROM rental r CROSS JOIN LATERAL unnest(r.flags) AS u(flag) "
     "GROUP BY u.flag ORDER BY 1",
     [("damaged", 2), ("late", 1)], [("damaged", 1), ("late", 1), ("lost", 1)]),
    ("SELECT array_agg(DISTINCT f.rating ORDER BY f.rating)::text[], (ARRAY['a', 'b', 'c'])[2:3] "
     "FROM inventory i JOIN film f USING (film_id)",
     [(["G", "PG", "NC-17"], ["b", "c"])], [(["G", "PG"], ["b", "c"])]),
    # Full-text match: @@ with each tsquery constructor, to_tsvector with a regconfig, ranking.
    ("SELECT title FROM film WHERE fulltext @@ to_tsquery('english', 'lumberjack & shark')",
     SHARED, [("Affair Prejudice",)]),
    ("SELECT f.title FROM inventory i JOIN film f USING (film_id) "
     "WHERE f.fulltext @@ plainto_tsquery('english', 'ancient China')",
     [("Ace Goldfinger",)], [("Agent Truman",)]),
    ("SELECT title FROM film "
     "WHERE fulltext @@ websearch_to_tsquery('english', 'lumberjack -shark')",
     SHARED, [("Adaptation Holes",)]),
    ("SELECT title FROM film WHERE fulltext @@ phraseto_tsquery('english', 'mad scientist')",
     SHARED, [("Academy Dinosaur",)]),
    ("SELECT rental_id FROM rental "
     "WHERE to_tsvector('english'::regconfig, note) @@ to_tsquery('english', 'crack') ORDER BY 1",
     [(1,), (5,)], []),
    ("SELECT title FROM film WHERE fulltext @@ to_tsquery('english', 'lumberjack | china') "
     "ORDER BY ts_rank(fulltext, to_tsquery('english', 'lumberjack | china')) DESC, title LIMIT 1",
     SHARED, [("Adaptation Holes",)]),
]  # fmt: skip
"""(SQL, store 1's rows or SHARED, store 2's rows): what each store must get, by hand."""

REFUSED = [
    ("SELECT 'film'::regclass", "GUARD_TYPE_NOT_ALLOWED"),
    ("SELECT 'PG'::pg_catalog.mpaa_rating", "GUARD_TYPE_NOT_ALLOWED"),
    ("SELECT title::regconfig FROM film", "GUARD_TYPE_NOT_ALLOWED"),
    ("SELECT ts_headline('english', note, to_tsquery('late')) FROM rental", "GUARD_FUNCTION_NOT_ALLOWED"),  # noqa: E501
    ("SELECT * FROM ts_stat('SELECT fulltext FROM film')", "GUARD_FUNCTION_NOT_ALLOWED"),
]  # fmt: skip


@pytest.fixture(scope="module")
def films_catalog() -> Catalog:
    return load_catalog(CATALOG_DIR)


@pytest.fixture(scope="module")
def films_policy(films_catalog: Catalog) -> GuardPolicy:
    return GuardPolicy.from_catalog(films_catalog)


@pytest.fixture(scope="module")
async def films_db(settings: Settings, films_catalog: Catalog) -> str:
    """The owner's URL of a fresh database with the schema, its rows and layer 3."""
    from orquestra.core.database import admin_url

    url = await fresh_database(admin_url(settings), DATABASE)
    conn = await asyncpg.connect(url)
    try:
        await _load(conn, films_catalog)
        for statement in policy_statements(films_catalog, role=AGENT_ROLE, database=DATABASE):
            await conn.execute(statement)
    finally:
        await conn.close()
    return url


async def _load(conn: asyncpg.Connection, catalog: Catalog) -> None:
    for system in catalog.systems:
        for statement in (*(t.ddl for t in system.types), *system.table_ddl):
            await conn.execute(statement)
    await conn.executemany(
        "INSERT INTO film VALUES ($1, $2, $3, $4, $5, $6, to_tsvector('english', $2 || ' ' || $3))",
        FILMS,
    )
    await conn.executemany("INSERT INTO inventory VALUES ($1, $2, $3)", INVENTORY)
    await conn.executemany("INSERT INTO rental VALUES ($1, $2, $3, $4)", RENTALS)


@pytest.fixture
async def films_agent(films_db: str) -> AsyncIterator[asyncpg.Connection]:
    """The least-privilege agent role of this database."""
    from orquestra.core.database import with_user

    connection = await connect(with_user(films_db, AGENT_ROLE))
    try:
        yield connection
    finally:
        await connection.close()


def test_the_policy_knows_the_catalogs_enum_and_domain(films_policy: GuardPolicy) -> None:
    assert films_policy.types == {"public.mpaa_rating", "mpaa_rating", "public.year", "year"}


@pytest.mark.parametrize("store", ["1", "2"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0][:70])
async def test_construct_returns_the_stores_rows(
    case: tuple, store: str, films_policy: GuardPolicy, films_agent: asyncpg.Connection
) -> None:
    sql, store_1, store_2 = case
    expected = store_2 if store == "2" or store_1 is SHARED else store_1
    guarded = guard_sql(sql, films_policy, store, max_rows=0)
    result = await run_as_tenant(
        films_agent, guarded.sql, guarded.params, tenant=store, limits=LIMITS
    )
    assert [tuple(row) for row in result.rows] == expected


async def test_an_enum_column_comes_back_to_the_agent(
    films_policy: GuardPolicy, films_agent: asyncpg.Connection
) -> None:
    guarded = guard_sql("SELECT rating FROM film WHERE film_id = 1", films_policy, "1")
    result = await run_as_tenant(
        films_agent, guarded.sql, guarded.params, tenant="1", limits=LIMITS
    )
    assert result.rows == [("PG",)]


@pytest.mark.parametrize(("sql", "code"), REFUSED, ids=lambda v: str(v)[:50])
def test_still_refused(sql: str, code: str, films_policy: GuardPolicy) -> None:
    with pytest.raises(GuardRejection) as caught:
        guard_sql(sql, films_policy, "1")
    assert caught.value.code == code


async def test_builtin_type_names_match_the_server(films_db: str) -> None:
    """`allowlist.BUILTIN_TYPES` is every type name PostgreSQL itself has (so a schema's
    type is never mistaken for a built-in, nor a new built-in for a schema's type)."""
    conn = await asyncpg.connect(films_db)
    try:
        names = await conn.fetch(
            "SELECT typname FROM pg_type WHERE typnamespace = 'pg_catalog'::regnamespace "
            "AND typname NOT LIKE '\\_%' AND typtype <> 'c'"
        )
    finally:
        await conn.close()
    assert {r["typname"] for r in names} == allowlist.BUILTIN_TYPES
