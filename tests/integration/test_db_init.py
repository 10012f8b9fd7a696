"""`db init` on the real embedded PostgreSQL: counts, idempotence, safety, determinism."""

from __future__ import annotations

import asyncpg
import pytest

from orquestra.core.database import DatabaseUnavailable, admin_url, connect, with_database
from orquestra.core.settings import Settings
from orquestra.ddl_catalog.demo import sample_version
from orquestra.server.db_init import DatabaseNotEmpty, init_database

TABLE_CHECKSUM = """
SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) FROM {table} AS t
"""


async def test_loaded_counts_match_the_report(demo_db, conn: asyncpg.Connection) -> None:
    assert demo_db.total_rows >= 100_000
    for table, expected in demo_db.row_counts.items():
        assert await conn.fetchval(f"SELECT count(*) FROM {table}") == expected, table


async def test_second_init_changes_nothing(settings: Settings, demo_db) -> None:
    again = await init_database(settings)
    assert not again.loaded
    assert again.row_counts == demo_db.row_counts
    assert again.tenant_rows == demo_db.tenant_rows


async def test_tenants_are_clearly_unequal(demo_db, conn: asyncpg.Connection) -> None:
    rows = await conn.fetch(
        "SELECT cod_fornecedor, count(*) AS n FROM notas_fiscais GROUP BY 1 ORDER BY 1"
    )
    counts = {r["cod_fornecedor"]: r["n"] for r in rows}
    assert set(counts) == {101, 102, 103, 104, 105}
    assert counts[101] > 1.5 * counts[102] > 1.5 * counts[104]
    assert max(counts.values()) >= 5 * min(counts.values())


async def test_same_seed_loads_identical_tables(settings: Settings, db_url: str) -> None:
    """Two loads with the same seed into two databases give byte-identical tables."""
    first, second = (with_database(db_url, name) for name in ("determinism_a", "determinism_b"))
    checksums = []
    for url, name in ((first, "determinism_a"), (second, "determinism_b")):
        await _create_database(db_url, name)
        report = await init_database(Settings(database_url=url, demo_scale=0.1))
        assert report.loaded
        conn = await asyncpg.connect(url)
        try:
            checksums.append(
                {t: await conn.fetchval(TABLE_CHECKSUM.format(table=t)) for t in report.row_counts}
            )
        finally:
            await conn.close()
    assert checksums[0] == checksums[1]


async def test_foreign_tables_are_never_overwritten(db_url: str) -> None:
    """A database that already has a catalog table Orquestra did not load is left alone."""
    await _create_database(db_url, "customer_owned")
    url = with_database(db_url, "customer_owned")
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(
            "CREATE TABLE pedidos (num_pedido bigint); INSERT INTO pedidos VALUES (1)"
        )
        with pytest.raises(DatabaseNotEmpty) as caught:
            await init_database(Settings(database_url=url, demo_scale=0.1))
        assert "--reset" in caught.value.message
        assert await conn.fetchval("SELECT count(*) FROM pedidos") == 1
        tables = await conn.fetchval(
            "SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'pedidos'"
        )
        assert tables == 0  # nothing half-written
    finally:
        await conn.close()


async def test_reset_reloads(db_url: str) -> None:
    await _create_database(db_url, "reset_me")
    settings = Settings(database_url=with_database(db_url, "reset_me"), demo_scale=0.1)
    await init_database(settings)
    conn = await asyncpg.connect(settings.database_url)
    try:
        await conn.execute("DELETE FROM eventos_rastreamento")
        report = await init_database(settings, reset=True)
        assert report.loaded
        count = await conn.fetchval("SELECT count(*) FROM eventos_rastreamento")
        assert count == report.row_counts["eventos_rastreamento"] > 0
    finally:
        await conn.close()


async def test_a_sample_an_older_generator_loaded_is_reloaded_as_it_was(db_url: str) -> None:
    """Rows recorded before data versions existed (or by an older version) are regenerated
    with their own seed and scale, once; the next init changes nothing."""
    await _create_database(db_url, "outdated")
    url = with_database(db_url, "outdated")
    first = await init_database(Settings(database_url=url, demo_scale=0.1))
    assert first.loaded and first.data_version == sample_version("logistics") >= 2
    conn = await asyncpg.connect(url)
    try:
        await conn.execute("DELETE FROM eventos_rastreamento")  # what an older version made
        await conn.execute("ALTER TABLE orquestra_internal.demo_dataset DROP COLUMN data_version")
        later = Settings(database_url=url, demo_scale=0.2)  # today's default differs
        reloaded = await init_database(later)
        assert reloaded.loaded and reloaded.replaced_version == 1
        assert (reloaded.seed, reloaded.scale) == (first.seed, first.scale)
        assert reloaded.row_counts == first.row_counts
        count = await conn.fetchval("SELECT count(*) FROM eventos_rastreamento")
        assert count == first.row_counts["eventos_rastreamento"]
        again = await init_database(later)
        assert not again.loaded and again.data_version == first.data_version
    finally:
        await conn.close()


async def test_unreachable_server_names_host_and_the_way_out() -> None:
    with pytest.raises(DatabaseUnavailable) as caught:
        await connect("postgresql://someone@127.0.0.1:1/warehouse")
    message = caught.value.message
    assert "127.0.0.1:1/warehouse" in message
    assert "DATABASE_URL" in message and "embedded" in message


async def test_embedded_url_points_at_the_orquestra_database(settings: Settings, demo_db) -> None:
    url = admin_url(settings)
    conn = await connect(url)
    try:
        assert await conn.fetchval("SELECT current_database()") == "orquestra"
        assert (await conn.fetchval("SHOW server_version")).startswith("16.")
        assert await conn.fetchval(
            "SELECT count(*) FROM pg_available_extensions WHERE name = 'vector'"
        )
    finally:
        await conn.close()


async def _create_database(db_url: str, name: str) -> None:
    conn = await asyncpg.connect(with_database(db_url, "postgres"))
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
