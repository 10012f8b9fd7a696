"""`orquestra review`: the review queue on the command line, for the deployment's owner.

`list` and `show` read the queue (every tenant's turns: the owner's view); `approve` runs the
turn's SQL, or the one given with `--sql FILE|-`, as the turn's tenant through the guard,
prints the rows it gave and keeps the approval; `reject` and `revert` decide otherwise; and
`export` writes the approvals as an evaluation dataset (`--eval FILE.jsonl`) or in the
deployment's `catalog/examples.yaml` format (`--examples FILE|-`). Who decides is `--by`, by
default the account running the command.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from orquestra.core.errors import OrquestraError
from orquestra.core.settings import Settings
from orquestra.guards.tenant_key import NO_TENANT

if TYPE_CHECKING:  # imported when the command runs: every command line starts without them
    from orquestra.server.review import ReviewStore

T = TypeVar("T")


def add_review_command(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    review = commands.add_parser(
        "review", help="the review queue: rated and unanswered turns, approvals, exports"
    )
    actions = review.add_subparsers(dest="review_command", required=True, metavar="ACTION")
    listed = actions.add_parser("list", help="the turns waiting for review (or decided ones)")
    listed.add_argument("--status", choices=("pending", "approved", "rejected"), default="pending")
    listed.add_argument("--json", action="store_true", help="one JSON object per turn")
    listed.set_defaults(run=_cmd_list)
    show = actions.add_parser("show", help="one turn, whole, with its history")
    show.add_argument("id", type=int, metavar="ID")
    show.add_argument("--json", action="store_true")
    show.set_defaults(run=_cmd_show)
    approve = actions.add_parser(
        "approve", help="approve a turn: its SQL (or --sql) runs as its tenant first"
    )
    approve.add_argument("id", type=int, metavar="ID")
    approve.add_argument("--sql", metavar="FILE|-", help="the corrected SQL, from a file or stdin")
    approve.add_argument("--question", metavar="TEXT", help="the question, reworded")
    approve.add_argument(
        "--complexity",
        choices=("simple", "complex"),
        default="simple",
        help="complex: it should have been asked back (a clarifying question)",
    )
    approve.add_argument("--by", default=None, help="who approves (default: this account)")
    approve.add_argument("--json", action="store_true")
    approve.set_defaults(run=_cmd_approve)
    reject = actions.add_parser("reject", help="reject a turn")
    reject.add_argument("id", type=int, metavar="ID")
    reject.add_argument("--why", default=None, metavar="TEXT")
    reject.add_argument("--by", default=None)
    reject.set_defaults(run=_cmd_reject)
    revert = actions.add_parser("revert", help="take a turn's approval back")
    revert.add_argument("id", type=int, metavar="ID")
    revert.add_argument("--by", default=None)
    revert.set_defaults(run=_cmd_revert)
    export = actions.add_parser("export", help="the approvals as an evaluation set or examples")
    target = export.add_mutually_exclusive_group(required=True)
    target.add_argument("--eval", type=Path, metavar="FILE.jsonl", help="orquestra eval's format")
    target.add_argument(
        "--examples", metavar="FILE|-", help="catalog/examples.yaml's format (- for stdout)"
    )
    export.set_defaults(run=_cmd_export)
    parser: argparse.ArgumentParser = review
    return parser


async def _with_store(settings: Settings, work: Callable[[ReviewStore], Awaitable[T]]) -> T:
    import asyncpg

    from orquestra.core.database import ensure_state_database
    from orquestra.server.review import ReviewStore
    from orquestra.server.threads import thread_scope

    scope = await asyncio.to_thread(thread_scope, settings)
    pool = await asyncpg.create_pool(await ensure_state_database(settings), min_size=1, max_size=2)
    try:
        store = ReviewStore(pool, settings.limits.database_timeout_s, scope)
        await store.ensure_tables()
        return await work(store)
    finally:
        await pool.close()


def _by(args: argparse.Namespace) -> str:
    return str(args.by or getpass.getuser())


def _cmd_list(args: argparse.Namespace, settings: Settings) -> int:
    turns = asyncio.run(_with_store(settings, lambda s: s.listed(args.status)))
    if args.json:
        for turn in turns:
            print(json.dumps(turn, ensure_ascii=False, default=str))
        return 0
    if not turns:
        print(f"no {args.status} turns")
    for t in turns:
        why = "unanswered" if not t["answered"] else f"rated {t['rating']}"
        tenant = "" if t["tenant"] == NO_TENANT else f" tenant {t['tenant']}"
        print(f"{t['id']:>6}  {why:<10} {t['route'] or '-':<9}{tenant}  {t['question'][:80]}")
    return 0


def _cmd_show(args: argparse.Namespace, settings: Settings) -> int:
    turn = asyncio.run(_with_store(settings, lambda s: s.shown(args.id)))
    if args.json:
        print(json.dumps(turn, ensure_ascii=False, default=str))
        return 0
    for key in ("id", "status", "tenant", "user_id", "question", "rewritten", "route", "model"):
        print(f"{key:>12}: {turn[key]}")
    outcome = f"rows {turn['row_count']}  stop {turn['stop_reason']}"
    print(f"{'answered':>12}: {turn['answered']}  {outcome}")
    print(f"{'rating':>12}: {turn['rating']}  {turn['comment'] or ''}")
    print(f"{'sql':>12}: {turn['sql'] or '-'}")
    for event in turn["history"]:
        print(f"{'':>12}  {event['at']} {event['action']} by {event['who']}")
    return 0


def _cmd_approve(args: argparse.Namespace, settings: Settings) -> int:
    sql = None
    if args.sql is not None:
        sql = sys.stdin.read() if args.sql == "-" else _read(Path(args.sql))
    import asyncpg

    from orquestra.core.database import Connection, agent_url
    from orquestra.ddl_catalog import load_catalog
    from orquestra.guards import GuardPolicy

    catalog = load_catalog(settings.catalog_folder)
    policy = GuardPolicy.from_catalog(catalog)

    async def approve(store: ReviewStore) -> Any:
        agents = await asyncpg.create_pool(
            agent_url(settings), min_size=1, max_size=1, connection_class=Connection
        )
        try:
            return await store.approve(
                args.id,
                catalog=catalog,
                policy=policy,
                settings=settings,
                agent_pool=agents,
                by=_by(args),
                sql=sql,
                question=args.question,
                complexity=args.complexity,
            )
        finally:
            await agents.close()

    approval = asyncio.run(_with_store(settings, approve))
    result = approval.result
    if args.json:
        rows = [[str(v) if v is not None else None for v in r] for r in result.rows[:50]]
        payload = {
            "turn_id": approval.turn_id,
            "example_id": approval.example_id,
            "shared": approval.shareable,
            "columns": result.columns,
            "rows": rows,
            "row_count": result.row_count,
        }
        print(json.dumps(payload, ensure_ascii=False))
        return 0
    print("  ".join(result.columns))
    for row in result.rows[:20]:
        print("  ".join("" if v is None else str(v) for v in row))
    more = f" (first 20 of {result.row_count})" if result.row_count > 20 else ""
    shared = (
        "other tenants see it with its values as slots"
        if approval.shareable
        else "it stays this tenant's own (a name in it could not be made a slot)"
    )
    print(f"approved turn {approval.turn_id} as example {approval.example_id}{more}; {shared}")
    return 0


def _cmd_reject(args: argparse.Namespace, settings: Settings) -> int:
    asyncio.run(_with_store(settings, lambda s: s.reject(args.id, by=_by(args), why=args.why)))
    print(f"rejected turn {args.id}")
    return 0


def _cmd_revert(args: argparse.Namespace, settings: Settings) -> int:
    example = asyncio.run(_with_store(settings, lambda s: s.revert(args.id, by=_by(args))))
    print(f"reverted example {example} of turn {args.id}; the turn is pending again")
    return 0


def _cmd_export(args: argparse.Namespace, settings: Settings) -> int:
    approved = asyncio.run(_with_store(settings, lambda s: s.approved()))
    if args.eval is not None:
        lines = [json.dumps(_case(e), ensure_ascii=False) for e in approved]
        args.eval.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
        print(f"{len(lines)} reviewed turns written to {args.eval}", file=sys.stderr)
        return 0
    import yaml

    tenanted = any(e["tenant"] != NO_TENANT for e in approved)
    kept = [e for e in approved if e["shareable"] or not tenanted]
    text = yaml.safe_dump(
        {"examples": [_example(e) for e in kept]}, allow_unicode=True, sort_keys=False, width=100
    )
    if args.examples == "-":
        sys.stdout.write(text)
    else:
        Path(args.examples).write_text(text, encoding="utf-8")
    left = len(approved) - len(kept)
    note = f"; {left} kept out (a tenant's own names in them)" if left else ""
    print(f"{len(kept)} examples written{note}", file=sys.stderr)
    return 0


def _case(example: dict[str, Any]) -> dict[str, Any]:
    """An approval as a case of `orquestra eval` (design §3.4)."""
    case = {
        "id": f"review-{example['turn_id']}",
        "question": example["question"],
        "tenant": example["tenant"],
        "route": example["route"],
        "complexity": example["complexity"],
        "gold_sql": example["sql"],
        "lang": example["lang"],
        "split": "project",
        "origin": "review",
    }
    if example["tenant"] == NO_TENANT:
        del case["tenant"]
    return case


def _example(example: dict[str, Any]) -> dict[str, Any]:
    """An approval as an entry of `catalog/examples.yaml`. Shared with every tenant, so in a
    deployment with tenants it is the template: a tenant's values as slots."""
    tenanted = example["tenant"] != NO_TENANT
    return {
        "question": example["template_question"] if tenanted else example["question"],
        "lang": example["lang"],
        "kind": example["route"],
        "tables": list(example["tables"]),
        "sql": (example["template_sql"] if tenanted else example["sql"]).strip() + "\n",
    }


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise OrquestraError("FILE_UNREADABLE", f"cannot read {path}: {exc.strerror}") from None
