"""`orquestra threads prune`: one pruning pass on demand (`server.retention`), and what it
removed — conversations past the retention, what failed turns left, conversations nobody
owns — as a line for people or, with `--json`, one JSON object."""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import TYPE_CHECKING

from orquestra.core.errors import OrquestraError
from orquestra.core.settings import Settings
from orquestra.core.texts import counted

if TYPE_CHECKING:  # imported when the command runs: every command line starts without them
    from orquestra.server.retention import PruneReport


class PruneBusy(OrquestraError):
    """Another process is pruning the same state database right now."""

    code = "PRUNE_BUSY"


def add_threads_command(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    threads = commands.add_parser("threads", help="conversations kept in the state database")
    actions = threads.add_subparsers(dest="threads_command", required=True, metavar="ACTION")
    prune: argparse.ArgumentParser = actions.add_parser(
        "prune",
        help="delete conversations idle past the retention, what failed turns left, and"
        " conversations nobody owns; print what went",
    )
    prune.add_argument(
        "--older-than-days",
        type=float,
        default=None,
        metavar="N",
        help="delete conversations idle more than N days (default: thread_retention_days;"
        " 0 there keeps them)",
    )
    prune.add_argument("--dry-run", action="store_true", help="count only; delete nothing")
    prune.add_argument("--json", action="store_true", help="print the report as JSON")
    prune.set_defaults(run=_cmd_threads_prune)
    return prune


def _cmd_threads_prune(args: argparse.Namespace, settings: Settings) -> int:
    if args.older_than_days is not None and args.older_than_days < 0:
        raise OrquestraError("INVALID_OPTION", "--older-than-days must be 0 or more")
    from orquestra.server.threads import thread_scope

    scope = thread_scope(settings)  # may start the embedded PostgreSQL: before the loop
    report = asyncio.run(_prune(settings, scope, args.older_than_days, args.dry_run))
    if args.json:
        print(json.dumps(report.as_json()))
    else:
        print(describe(report))
    return 0


async def _prune(
    settings: Settings, scope: str, older_than_days: float | None, dry_run: bool
) -> PruneReport:
    import asyncpg

    from orquestra.core.database import ensure_state_database
    from orquestra.server.retention import Pruner
    from orquestra.server.run_leases import RunLeases
    from orquestra.server.threads import ThreadStore

    pool = await asyncpg.create_pool(await ensure_state_database(settings), min_size=1, max_size=2)
    try:
        timeout = settings.limits.database_timeout_s
        await ThreadStore(pool, timeout, scope).ensure_table()
        await RunLeases(pool, ttl_s=settings.run_lease_s, timeout_s=timeout).ensure_table()
        pruner = Pruner.of(pool, settings, scope, older_than_days=older_than_days)
        report = await pruner.prune(dry_run=dry_run)
    finally:
        await pool.close()
    if report is None:
        raise PruneBusy("another process is pruning this state database now; try again soon")
    return report


def describe(report: PruneReport) -> str:
    """The report as one line.

    >>> from orquestra.server.retention import PruneReport
    >>> from orquestra.server.thread_erasure import Removed
    >>> line = describe(PruneReport(Removed(threads=1, checkpoints=14), [0.02]))
    >>> line.split(", ")[:3], line.split(" (")[-1]
    (['removed 1 thread', '0 orphaned threads', '14 checkpoints'], '1 batch, 0.02 s)')
    """
    removed = report.removed
    parts = [
        counted(removed.threads, "thread", "threads"),
        counted(removed.orphans, "orphaned thread", "orphaned threads"),
        counted(removed.checkpoints, "checkpoint", "checkpoints"),
        counted(removed.writes, "write", "writes"),
        counted(removed.blobs, "blob", "blobs"),
        counted(removed.note_counters, "note counter", "note counters"),
    ]
    batches = counted(len(report.batch_s), "batch", "batches")
    verb = "would remove" if report.dry_run else "removed"
    return f"{verb} {', '.join(parts)} ({batches}, {report.seconds} s)"
