"""The tenants' names while serving: read from the catalog's tenant directory when resources
open, and read again so that a tenant added later is recognised by name without a restart.

Two reasons to read again, both bounded so that nobody can make a replica read the table
per request:

- the names are older than `refresh_s` (`Settings.tenant_names_refresh_s`): whoever asks
  next reads them first, so a name is never older than that when a turn looks for it;
- the asker's own tenant is not among them (a tenant added since): read at once, but at most
  once per `MISS_INTERVAL_S` whoever asks, since a token may name a tenant that is not there.

A failed read keeps the names already known (a turn never fails for it) and is tried again
after `refresh_s`. Concurrent turns wait for one read, not one each.

>>> import asyncio
>>> reads = []
>>> async def read() -> TenantNames:
...     reads.append(1)
...     return TenantNames({"1": "Acme", "2": "Boreal"})
>>> directory = TenantDirectory(TenantNames({"1": "Acme"}), read, refresh_s=60)
>>> asyncio.run(directory.for_asker("1")).first_other("and Boreal?", "1") is None
True
>>> asyncio.run(directory.for_asker("2")).first_other("and Acme?", "2"), len(reads)
('Acme', 1)
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

import asyncpg

from orquestra.core.database import database_work
from orquestra.ddl_catalog import Catalog
from orquestra.ddl_catalog.model import Table
from orquestra.ddl_catalog.text import quoted
from orquestra.guards.tenant_key import InvalidTenant, TenantKey
from orquestra.guards.tenant_names import TenantNames

log = logging.getLogger(__name__)
MISS_INTERVAL_S = 10.0
"""At most one read per this many seconds for askers missing from the names."""


class TenantDirectory:
    """The current `TenantNames`, read again when stale or when an asker is missing."""

    def __init__(
        self,
        names: TenantNames,
        read: Callable[[], Awaitable[TenantNames]] | None = None,
        *,
        refresh_s: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.names = names
        """The names as last read."""
        self._read = read
        self._refresh_s = refresh_s
        self._clock = clock
        self._read_at = clock()
        self._missed_at = -float("inf")
        self._reading = asyncio.Lock()
        self.reads = 0
        """Reads made since start-up (the first one not counted)."""

    @classmethod
    def fixed(cls, names: TenantNames) -> TenantDirectory:
        """Names that are never read again (no tenant directory, or hand-built resources)."""
        return cls(names)

    async def for_asker(self, tenant: str) -> TenantNames:
        """The names for a turn of `tenant`: read again first when older than `refresh_s`,
        or when `tenant` is not among them and no such read ran in `MISS_INTERVAL_S`."""
        if self._read is None:
            return self.names
        now = self._clock()
        stale = now - self._read_at >= self._refresh_s
        missing = tenant not in self.names.names and now - self._missed_at >= MISS_INTERVAL_S
        if not (stale or missing):
            return self.names
        if missing:
            self._missed_at = now
        seen = self.reads
        async with self._reading:
            if self.reads == seen:  # nobody read them while this turn waited
                await self._read_again()
        return self.names

    async def _read_again(self) -> None:
        assert self._read is not None
        try:
            self.names = await self._read()
        except Exception as exc:  # the names known stay; the turn goes on
            log.warning("tenant names not read again: %s: %s", type(exc).__name__, exc)
        self._read_at = self._clock()
        self.reads += 1


async def open_directory(
    catalog: Catalog, pool: asyncpg.Pool, *, refresh_s: float, timeout_s: float
) -> TenantDirectory:
    """The directory of `catalog`'s tenant table, read once now through the owner's `pool`
    (the agent's role sees one tenant's row); fixed and empty when the catalog names none."""
    table = catalog.tenant_directory()
    if table is None or table.tenant_column is None:
        return TenantDirectory.fixed(TenantNames({}))
    key = TenantKey.from_catalog(catalog)
    sql = names_query(table)

    async def read() -> TenantNames:
        async with database_work(timeout_s, "reading the tenants' names"):
            rows = await pool.fetch(sql)
        names: dict[str, str] = {}
        for row in rows:
            try:
                names[key.canonical(row["tenant"])] = row["name"] or ""
            except InvalidTenant:
                continue  # a row no token could name cannot be asked about either
        # Indexing every name's words is CPU work that grows with the tenants: off the loop.
        return await asyncio.to_thread(TenantNames, names)

    return TenantDirectory(await read(), read, refresh_s=refresh_s)


def names_query(table: Table) -> str:
    """Each tenant's code and name (`tenant`, `name`), from the catalog's tenants' table."""
    column = quoted(table.tenant_column or "")
    name = quoted(table.meta.tenant_name_column or "")
    return (
        f"SELECT {column}::text AS tenant, {name}::text AS name"
        f" FROM {quoted(table.db_schema)}.{quoted(table.name)} ORDER BY {column}"
    )
