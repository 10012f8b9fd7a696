"""Where Orquestra keeps its own state (`server.database.state_url`), on a real server."""

from __future__ import annotations

import asyncpg
import pytest

from orquestra.core.database import (
    STATE_DATABASE,
    DatabaseUnavailable,
    StateDatabaseMissing,
    admin_url,
    ensure_state_database,
    state_url,
    with_database,
    with_user,
)
from orquestra.core.settings import Settings


def test_the_embedded_database_keeps_everything(settings: Settings, db_url: str) -> None:
    assert state_url(settings) == db_url


def test_an_explicit_state_url_wins_even_on_the_data_database(settings: Settings) -> None:
    data = "postgresql://app@db.example/sales"
    chosen = settings.model_copy(update={"database_url": data, "state_url": data})
    assert state_url(chosen) == data


async def test_beside_a_company_database_a_database_of_its_own(
    settings: Settings, db_url: str
) -> None:
    server = admin_url(settings)
    root = await asyncpg.connect(with_database(server, "postgres"))
    try:
        await root.execute(f"DROP DATABASE IF EXISTS {STATE_DATABASE} WITH (FORCE)")
    finally:
        await root.close()
    company = settings.model_copy(update={"database_url": db_url})
    url = await ensure_state_database(company)
    assert url == with_database(db_url, STATE_DATABASE) != db_url
    assert await ensure_state_database(company) == url  # a second replica: already there
    await (await asyncpg.connect(url)).close()


async def test_a_role_that_may_not_create_it_is_told_what_to_do(
    settings: Settings, db_url: str
) -> None:
    server = admin_url(settings)
    root = await asyncpg.connect(with_database(server, "postgres"))
    try:
        await root.execute(f"DROP DATABASE IF EXISTS {STATE_DATABASE} WITH (FORCE)")
        await root.execute(
            "DO $$ BEGIN CREATE ROLE state_test_plain LOGIN NOCREATEDB;"
            " EXCEPTION WHEN duplicate_object THEN NULL; END $$"
        )
    finally:
        await root.close()
    company = with_user(with_database(server, "postgres"), "state_test_plain")
    plain = settings.model_copy(update={"database_url": company})
    with pytest.raises(StateDatabaseMissing) as missing:
        await ensure_state_database(plain)
    assert missing.value.code == "STATE_DATABASE_MISSING"
    assert "ORQUESTRA_STATE_URL" in missing.value.message


async def test_an_unreachable_state_url_is_named(settings: Settings, db_url: str) -> None:
    wrong = settings.model_copy(update={"state_url": with_database(db_url, "no_such_state")})
    with pytest.raises(DatabaseUnavailable) as failed:
        await ensure_state_database(wrong)
    assert "ORQUESTRA_STATE_URL" in failed.value.message and "no_such_state" in failed.value.message
