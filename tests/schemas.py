"""The public schemas in `tests/fixtures/schemas/`, loaded into scratch databases.

`load_schema(server_url, "chinook", "db_name")` creates the database (dropping one a
previous run left) and runs the schema's own script in it; `foreign_keys=False` drops every
foreign key afterwards, which is how most real databases arrive (the declared keys are then
the answer key for the joins `init` proposes). By default a schema comes as it was published:
nycflights13 declares no foreign keys (its script adds the documented ones, marked as the
answer key, which are dropped), Northwind and Chinook keep theirs.
"""

from __future__ import annotations

import re
from pathlib import Path

import asyncpg

from tests.databases import fresh_database

SCHEMAS = Path(__file__).parent / "fixtures" / "schemas"
NAMES = ("northwind", "chinook", "nycflights13")
PUBLISHED_WITHOUT_FOREIGN_KEYS = frozenset({"nycflights13"})
_OWN_DATABASE = re.compile(
    r"^(DROP DATABASE[^;]*;|CREATE DATABASE[^;]*;|\\c [^\n]*)$", re.MULTILINE | re.IGNORECASE
)
DECLARED_KEYS_SQL = """
SELECT c.conrelid::regclass::text AS child, a.attname AS child_column,
       c.confrelid::regclass::text AS parent, b.attname AS parent_column
FROM pg_constraint c
JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
JOIN pg_attribute b ON b.attrelid = c.confrelid AND b.attnum = ANY (c.confkey)
WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace
ORDER BY 1, 2
"""


def schema_names() -> list[str]:
    """Every public schema in `tests/fixtures/schemas/` (a folder holding its SQL)."""
    return sorted(p.name for p in SCHEMAS.iterdir() if p.is_dir() and any(p.glob("*.sql")))


def script(name: str) -> str:
    """The schema's SQL without the lines that create or switch to its own database."""
    path = next((SCHEMAS / name).glob("*.sql"))
    return _OWN_DATABASE.sub("", path.read_text(encoding="utf-8"))


async def load_schema(
    server_url: str, name: str, database: str, *, foreign_keys: bool | None = None
) -> tuple[str, list[tuple[str, str, str, str]]]:
    """Create `database` holding schema `name`; its URL and the foreign keys it declared
    (child, column, parent, column), whether or not they were kept (`None`: as published)."""
    if foreign_keys is None:
        foreign_keys = name not in PUBLISHED_WITHOUT_FOREIGN_KEYS
    url = await fresh_database(server_url, database)
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(script(name))
        declared = [tuple(r) for r in await conn.fetch(DECLARED_KEYS_SQL)]
        if not foreign_keys:
            for row in await conn.fetch(
                "SELECT conrelid::regclass::text AS t, conname FROM pg_constraint "
                "WHERE contype = 'f' AND connamespace = 'public'::regnamespace"
            ):
                await conn.execute(f'ALTER TABLE {row["t"]} DROP CONSTRAINT "{row["conname"]}"')
    finally:
        await conn.close()
    return url, declared  # type: ignore[return-value]
