"""The tenant directory is read again while serving, and never once per request: when the
names are older than the refresh interval, or when the asker's own tenant is missing (at
most once per `MISS_INTERVAL_S`, whoever asks). A failed read keeps the names known.
(Over a real server and database: tests/e2e/test_tenant_added.py.)"""

from __future__ import annotations

import asyncio

import pytest

from orquestra.graph.tenant_directory import MISS_INTERVAL_S, TenantDirectory
from orquestra.guards.tenant_names import TenantNames

START = {"1": "Acme Video", "2": "Boreal Video"}


class Table:
    """The tenants' table as the directory reads it, with a clock the test moves."""

    def __init__(self) -> None:
        self.rows = dict(START)
        self.now = 0.0
        self.reads = 0
        self.failing = False

    async def read(self) -> TenantNames:
        self.reads += 1
        await asyncio.sleep(0)  # a real read yields to other turns
        if self.failing:
            raise ConnectionError("the database went away")
        return TenantNames(dict(self.rows))

    def directory(self, refresh_s: float = 60.0) -> TenantDirectory:
        return TenantDirectory(
            TenantNames(dict(self.rows)), self.read, refresh_s=refresh_s, clock=lambda: self.now
        )


async def test_a_tenant_added_later_is_named_once_the_names_are_stale() -> None:
    table = Table()
    directory = table.directory(refresh_s=60)
    table.rows["3"] = "Cedar Video"
    names = await directory.for_asker("1")
    assert names.first_other("and Cedar Video?", "1") is None and table.reads == 0
    table.now = 59.9
    await directory.for_asker("1")
    assert table.reads == 0
    table.now = 60.0
    names = await directory.for_asker("1")
    assert names.first_other("and Cedar Video?", "1") == "Cedar Video" and table.reads == 1


async def test_a_new_tenant_is_known_in_its_own_first_turn() -> None:
    table = Table()
    directory = table.directory()
    table.rows["3"] = "Cedar Video"
    table.now = 1.0
    names = await directory.for_asker("3")
    assert names.own_names("sales of Cedar Video", "3") == ["Cedar Video"]
    assert table.reads == 1


async def test_askers_missing_from_the_table_read_it_once_per_interval() -> None:
    """A token naming a tenant that is not there (or many such tokens) cannot make the
    replica read the table per request."""
    table = Table()
    directory = table.directory(refresh_s=3600)
    for second in range(int(MISS_INTERVAL_S)):
        table.now = float(second)
        await asyncio.gather(*(directory.for_asker(f"ghost-{n}") for n in range(50)))
    assert table.reads == 1
    table.now = MISS_INTERVAL_S
    await directory.for_asker("ghost-0")
    assert table.reads == 2


async def test_turns_at_once_wait_for_one_read() -> None:
    table = Table()
    directory = table.directory(refresh_s=60)
    table.now = 120.0
    await asyncio.gather(*(directory.for_asker("1") for _ in range(20)))
    assert table.reads == 1


async def test_a_failed_read_keeps_the_names_and_waits_a_refresh_before_trying_again() -> None:
    table = Table()
    directory = table.directory(refresh_s=60)
    table.failing = True
    table.now = 60.0
    names = await directory.for_asker("1")
    assert names.own_names("Acme Video", "1") == ["Acme Video"] and table.reads == 1
    table.now = 100.0
    await directory.for_asker("1")
    assert table.reads == 1
    table.failing = False
    table.now = 120.0
    await directory.for_asker("1")
    assert table.reads == 2


@pytest.mark.parametrize("asker", ["1", "someone-else"])
async def test_fixed_names_are_never_read_again(asker: str) -> None:
    directory = TenantDirectory.fixed(TenantNames(START))
    assert (await directory.for_asker(asker)).names == START and directory.reads == 0
