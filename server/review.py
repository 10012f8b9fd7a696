"""What people say of the answers, and what reviewers make of it (design §3.1, §3.2).

Every answered turn is recorded in the state database with what it stood on: the question
as asked and as rewritten, the route, the SQL, the rows counted, the model, why it stopped,
the tenant and the user. A person rates their own turns up or down, with a comment
(`POST /v1/threads/{id}/feedback`). A rated turn joins the review queue, and so does a turn
that could not be answered (no query ran for a data question, a cap or an honest stop, a
refusal) by itself.

A reviewer approves a turn — its SQL, or a corrected one, guarded and run as that turn's
tenant before it is kept — or rejects it. An approval is a reviewed example
(`graph.reviewed_examples`) that every replica uses from its next turn; approving again
replaces it, and `revert` takes it back. Every decision is in the review log: who, what,
when.

What the queue shows is the tenant's own: a reviewer signed in for tenant A sees A's turns
only. The command line, run by the deployment's owner, sees every tenant's.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

import asyncpg
import sqlglot
from sqlglot import exp

from orquestra.core.database import database_work, setup_lock
from orquestra.core.errors import OrquestraError
from orquestra.core.settings import Settings
from orquestra.ddl_catalog.model import Catalog
from orquestra.ddl_catalog.selection_words import vocabulary_of
from orquestra.graph.checkpoints import SCHEMA
from orquestra.graph.event_types import ResultData
from orquestra.graph.reviewed_examples import TABLE as EXAMPLES
from orquestra.graph.reviewed_examples import VERSION, slots_json
from orquestra.graph.reviewed_examples import create_table as create_examples
from orquestra.guards import GuardPolicy, GuardRejection, guard_sql
from orquestra.guards.example_literals import NotParsed, template_of
from orquestra.guards.tenant_query import QueryError, QueryResult, run_as_tenant
from orquestra.guards.tokens import Caller

TURNS = f"{SCHEMA}.turns"
LOG = f"{SCHEMA}.review_log"
COMMENT_CHARS = 2000
DATA_ROUTES = frozenset({"TRACKING", "ANALYTICS"})

Status = Literal["pending", "approved", "rejected"]
Rating = Literal["up", "down"]


class ReviewError(OrquestraError):
    """A review action that cannot be done (unknown turn, SQL refused, …)."""


@dataclass(frozen=True)
class Approval:
    """What an approval kept, and the rows its SQL gave as the turn's tenant."""

    turn_id: int
    example_id: int
    shareable: bool
    result: QueryResult


def unanswered(result: ResultData) -> bool:
    """A turn that could not answer: a data question where no query gave rows, a cap or an
    honest stop, a refusal by a rail."""
    if result.blocked_by or result.stop_reason:
        return True
    if result.route not in DATA_ROUTES:
        return False
    return not any(a.outcome in ("rows", "zero_rows") for a in result.attempts or [])


def _drafted_sql(result: ResultData) -> str | None:
    """The SQL as the writer wrote it (before the guard): the one that ran, else the last."""
    attempts = result.attempts or []
    ran = [a for a in attempts if a.outcome in ("rows", "zero_rows")]
    chosen = (ran or attempts)[-1:] if attempts else []
    return chosen[0].sql if chosen else None


class ReviewStore:
    """The turns, their ratings and the review log of one scope, in the state database."""

    def __init__(self, pool: asyncpg.Pool, timeout_s: float, scope: str) -> None:
        self.pool = pool
        self.timeout_s = timeout_s
        self.scope = scope

    async def ensure_tables(self) -> None:
        """The turns, the log and the examples' tables, in one step under the setup lock
        (replicas starting together take it in turn for each step)."""
        async with self.pool.acquire() as conn, setup_lock(conn, "preparing the review tables"):
            await create_examples(conn)
            await conn.execute(
                f"CREATE TABLE IF NOT EXISTS {TURNS} (id bigserial PRIMARY KEY,"
                " run_id text NOT NULL UNIQUE, scope text NOT NULL, thread_id text NOT NULL,"
                " tenant text NOT NULL, user_id text NOT NULL, question text NOT NULL,"
                " rewritten text, lang text, route text, sql text, row_count integer,"
                " model text, stop_reason text, answered boolean NOT NULL,"
                " tables text[] NOT NULL DEFAULT '{}',"
                " created_at timestamptz NOT NULL DEFAULT now(),"
                " rating text CHECK (rating IN ('up', 'down')), comment text, rated_at timestamptz,"
                " status text CHECK (status IN ('pending', 'approved', 'rejected')),"
                " reviewed_by text, reviewed_at timestamptz, why text)"
            )
            await conn.execute(
                f"CREATE INDEX IF NOT EXISTS turns_queue_idx ON {TURNS} (scope, status, id)"
            )
            await conn.execute(
                f"CREATE INDEX IF NOT EXISTS turns_thread_idx ON {TURNS} (scope, thread_id)"
            )
            await conn.execute(
                f"CREATE TABLE IF NOT EXISTS {LOG} (id bigserial PRIMARY KEY,"
                " scope text NOT NULL, turn_id bigint NOT NULL, example_id bigint,"
                " action text NOT NULL, who text NOT NULL,"
                " at timestamptz NOT NULL DEFAULT now(), detail jsonb NOT NULL DEFAULT '{}')"
            )

    async def record(
        self,
        caller: Caller,
        *,
        thread_id: str,
        run_id: str,
        message: str,
        rewritten: str | None,
        lang: str | None,
        result: ResultData,
    ) -> None:
        """Keep an answered turn; one that could not answer joins the queue at once."""
        could_not = unanswered(result)
        tables = (result.sources or {}).get("tables", [])
        async with database_work(self.timeout_s, "recording the turn"):
            await self.pool.execute(
                f"INSERT INTO {TURNS} (run_id, scope, thread_id, tenant, user_id, question,"
                " rewritten, lang, route, sql, row_count, model, stop_reason, answered, tables,"
                " status) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,"
                " $15, $16) ON CONFLICT (run_id) DO NOTHING",
                run_id,
                self.scope,
                thread_id,
                caller.tenant,
                caller.user,
                message,
                rewritten,
                lang,
                result.route,
                _drafted_sql(result),
                result.row_count,
                result.model,
                result.stop_reason or (result.blocked_by.code if result.blocked_by else None),
                not could_not,
                list(tables),
                "pending" if could_not else None,
            )

    async def rate(
        self, caller: Caller, thread_id: str, run_id: str, rating: Rating, comment: str | None
    ) -> dict[str, Any] | None:
        """Rate one of the caller's own turns (again: the last rating counts); the turn joins
        the queue unless a reviewer already decided on it. None: no such turn of theirs."""
        async with database_work(self.timeout_s, "keeping the rating"):
            row = await self.pool.fetchrow(
                f"UPDATE {TURNS} SET rating = $1, comment = $2, rated_at = now(),"
                " status = coalesce(status, 'pending') WHERE run_id = $3 AND thread_id = $4"
                " AND tenant = $5 AND user_id = $6 AND scope = $7 RETURNING id, route, status",
                rating,
                comment,
                run_id,
                thread_id,
                caller.tenant,
                caller.user,
                self.scope,
            )
        return dict(row) if row else None

    async def listed(
        self, status: Status | None = "pending", *, tenant: str | None = None, limit: int = 200
    ) -> list[dict[str, Any]]:
        """The queue (or every decided turn of a status), oldest first; one tenant's only
        when `tenant` is given."""
        async with database_work(self.timeout_s, "reading the review queue"):
            rows = await self.pool.fetch(
                f"SELECT id, tenant, user_id, question, route, answered, rating, comment, status,"
                f" created_at FROM {TURNS} WHERE scope = $1 AND status IS NOT NULL"
                " AND ($2::text IS NULL OR status = $2) AND ($3::text IS NULL OR tenant = $3)"
                " ORDER BY id LIMIT $4",
                self.scope,
                status,
                tenant,
                limit,
            )
        return [_plain(r) for r in rows]

    async def shown(self, turn_id: int, *, tenant: str | None = None) -> dict[str, Any]:
        """One turn of the queue, whole, with its review history."""
        if not 0 < turn_id < 2**63:
            raise ReviewError("REVIEW_NOT_FOUND", f"no turn {turn_id} in the review queue")
        async with database_work(self.timeout_s, "reading the turn"):
            row = await self.pool.fetchrow(
                f"SELECT * FROM {TURNS} WHERE id = $1 AND scope = $2"
                " AND status IS NOT NULL AND ($3::text IS NULL OR tenant = $3)",
                turn_id,
                self.scope,
                tenant,
            )
            if row is None:
                raise ReviewError("REVIEW_NOT_FOUND", f"no turn {turn_id} in the review queue")
            history = await self.pool.fetch(
                f"SELECT action, who, at, example_id, detail FROM {LOG}"
                " WHERE scope = $1 AND turn_id = $2 ORDER BY id",
                self.scope,
                turn_id,
            )
        shown = _plain(row)
        shown.pop("scope", None)
        shown["history"] = [
            {**_plain(h), "detail": json.loads(h["detail"]) if h["detail"] else {}} for h in history
        ]
        return shown

    async def approve(
        self,
        turn_id: int,
        *,
        catalog: Catalog,
        policy: GuardPolicy,
        settings: Settings,
        agent_pool: asyncpg.Pool,
        by: str,
        sql: str | None = None,
        question: str | None = None,
        complexity: Literal["simple", "complex"] = "simple",
        tenant: str | None = None,
    ) -> Approval:
        """Approve a turn with its SQL or `sql` (and `question`, if edited): the SQL is
        guarded and run as the turn's tenant first, and nothing is kept when either refuses
        it (`ReviewError` with the guard's or the database's code)."""
        turn = await self.shown(turn_id, tenant=tenant)
        sql = (sql if sql is not None else turn["sql"] or "").strip().rstrip(";").strip()
        if not sql:
            raise ReviewError("REVIEW_NEEDS_SQL", "this turn ran no SQL: approve it with --sql")
        question = (question or turn["rewritten"] or turn["question"]).strip()
        try:
            guarded = guard_sql(sql, policy, turn["tenant"], max_rows=settings.limits.row_cap + 1)
            async with agent_pool.acquire() as conn:
                result = await run_as_tenant(
                    conn,
                    guarded.sql,
                    guarded.params,
                    tenant=turn["tenant"],
                    limits=settings.limits.execution(),
                )
        except GuardRejection as exc:
            raise ReviewError(exc.code, f"the guard refused the SQL: {exc.message}") from None
        except QueryError as exc:
            raise ReviewError(exc.code, f"the database refused the SQL: {exc.message}") from None
        try:
            template = await asyncio.to_thread(  # parsing and the catalog's words: CPU
                lambda: template_of(question, sql, catalog, vocabulary_of(catalog))
            )
        except NotParsed as exc:
            raise ReviewError(
                "REVIEW_SQL_UNREADABLE", f"the SQL could not be read: {exc}"
            ) from None
        route = (turn["route"] or "ANALYTICS").lower()
        kind = route if route in ("tracking", "analytics") else "analytics"
        tables = sorted({t for t in turn["tables"]} | _tables_of(sql, catalog))
        async with (
            database_work(self.timeout_s, "keeping the approval"),
            self.pool.acquire() as conn,
            conn.transaction(),
        ):
            await conn.execute(
                f"UPDATE {EXAMPLES} SET reverted_at = now(), reverted_by = $1,"
                f" version = nextval('{VERSION}') WHERE scope = $2 AND turn_id = $3"
                " AND reverted_at IS NULL",
                by,
                self.scope,
                turn_id,
            )
            example_id = await conn.fetchval(
                f"INSERT INTO {EXAMPLES} (scope, turn_id, tenant, question, sql, route,"
                " complexity, lang, tables, template_question, template_sql, slots, shareable,"
                " approved_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb,"
                " $13, $14) RETURNING id",
                self.scope,
                turn_id,
                turn["tenant"],
                question,
                sql,
                kind,
                complexity,
                turn["lang"] or "pt",
                tables,
                template.question,
                template.sql,
                slots_json(template.slots),
                template.shareable,
                by,
            )
            await self._decided(conn, turn_id, "approved", by, None)
            detail = {"sql": sql, "question": question, "complexity": complexity}
            await self._log(conn, turn_id, example_id, "approved", by, detail)
        return Approval(turn_id, example_id, template.shareable, result)

    async def reject(
        self, turn_id: int, *, by: str, why: str | None = None, tenant: str | None = None
    ) -> None:
        await self.shown(turn_id, tenant=tenant)
        async with (
            database_work(self.timeout_s, "keeping the rejection"),
            self.pool.acquire() as conn,
            conn.transaction(),
        ):
            await self._retract(conn, turn_id, by)
            await self._decided(conn, turn_id, "rejected", by, why)
            await self._log(conn, turn_id, None, "rejected", by, {"why": why} if why else {})

    async def revert(self, turn_id: int, *, by: str, tenant: str | None = None) -> int:
        """Take a turn's approval back: its example leaves every prompt from the next turn,
        and the turn is pending again. The example reverted (`REVIEW_NOT_APPROVED` if none)."""
        await self.shown(turn_id, tenant=tenant)
        async with (
            database_work(self.timeout_s, "reverting the approval"),
            self.pool.acquire() as conn,
            conn.transaction(),
        ):
            example_id = await self._retract(conn, turn_id, by)
            if example_id is None:
                raise ReviewError(
                    "REVIEW_NOT_APPROVED", f"turn {turn_id} has no approval to revert"
                )
            await conn.execute(
                f"UPDATE {TURNS} SET status = 'pending', reviewed_by = NULL,"
                " reviewed_at = NULL, why = NULL WHERE id = $1",
                turn_id,
            )
            await self._log(conn, turn_id, example_id, "reverted", by, {})
        return example_id

    async def approved(self) -> list[dict[str, Any]]:
        """Every example in force, oldest first, with its turn's tenant and labels."""
        async with database_work(self.timeout_s, "reading the approvals"):
            rows = await self.pool.fetch(
                f"SELECT e.id, e.turn_id, e.tenant, e.question, e.sql, e.route, e.complexity,"
                f" e.lang, e.tables, e.template_question, e.template_sql, e.shareable,"
                f" e.approved_by, e.approved_at"
                f" FROM {EXAMPLES} e WHERE e.scope = $1 AND e.reverted_at IS NULL ORDER BY e.id",
                self.scope,
            )
        return [_plain(r) for r in rows]

    async def _retract(self, conn: asyncpg.Connection, turn_id: int, by: str) -> int | None:
        return await conn.fetchval(  # type: ignore[no-any-return]
            f"UPDATE {EXAMPLES} SET reverted_at = now(), reverted_by = $1,"
            f" version = nextval('{VERSION}') WHERE scope = $2 AND turn_id = $3"
            " AND reverted_at IS NULL RETURNING id",
            by,
            self.scope,
            turn_id,
        )

    async def _decided(
        self, conn: asyncpg.Connection, turn_id: int, status: Status, by: str, why: str | None
    ) -> None:
        await conn.execute(
            f"UPDATE {TURNS} SET status = $1, reviewed_by = $2, reviewed_at = now(), why = $3"
            " WHERE id = $4",
            status,
            by,
            why,
            turn_id,
        )

    async def _log(
        self,
        conn: asyncpg.Connection,
        turn_id: int,
        example_id: int | None,
        action: str,
        who: str,
        detail: dict[str, Any],
    ) -> None:
        await conn.execute(
            f"INSERT INTO {LOG} (scope, turn_id, example_id, action, who, detail)"
            " VALUES ($1, $2, $3, $4, $5, $6::jsonb)",
            self.scope,
            turn_id,
            example_id,
            action,
            who,
            json.dumps(detail, ensure_ascii=False),
        )


def _tables_of(sql: str, catalog: Catalog) -> set[str]:
    """The catalog's tables the SQL names."""
    try:
        tree = sqlglot.parse_one(sql, read="postgres")
    except sqlglot.errors.ParseError:
        return set()
    return {t.name for t in tree.find_all(exp.Table) if t.name in catalog.tables}


def _plain(row: asyncpg.Record) -> dict[str, Any]:
    return {
        k: (v.isoformat() if isinstance(v, datetime) else list(v) if isinstance(v, list) else v)
        for k, v in row.items()
    }
