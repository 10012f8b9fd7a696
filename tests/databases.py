"""Scratch databases on the tests' embedded PostgreSQL, one per suite that needs its own."""

from __future__ import annotations

import asyncpg

from orquestra.core.database import with_database


async def fresh_database(server_url: str, name: str) -> str:
    """Drop `name` if a previous run left it, create it empty, and return its URL."""
    admin = await asyncpg.connect(with_database(server_url, "postgres"))
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    return with_database(server_url, name)
