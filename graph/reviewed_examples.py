"""Reviewed examples: question→SQL pairs a reviewer approved, read by every turn at once.

`orquestra review approve` (and the review page) writes them to the state database
(`server.review`); every replica reads them here. A turn asks for the table's generation
first (one indexed `max`), and reads the examples again only when it moved, so an approval
or a reversion takes effect on the next turn of every process, without a restart.

Who sees what (design §5): the tenant whose turn an example came from sees it as approved;
another tenant sees it only as its template (`guards.example_literals`: the first tenant's
literals replaced by slots), and only when that template is `shareable`. In a deployment
without tenants every person sees it as approved.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import asyncpg

from orquestra.core.database import database_work
from orquestra.ddl_catalog.data_values import FoundValue
from orquestra.ddl_catalog.selection import SourceIndex
from orquestra.graph.checkpoints import SCHEMA
from orquestra.guards.example_literals import Slot

TABLE = f"{SCHEMA}.reviewed_examples"
IDENTIFIER = re.compile(r"[a-z_][a-z0-9_]*")
VERSION = f"{SCHEMA}.reviewed_examples_version"


@dataclass(frozen=True)
class ReviewedExample:
    """One approved example, as one asker may see it."""

    id: int
    question: str
    sql: str
    kind: str
    """`tracking` or `analytics` (the route it was approved for)."""
    complexity: str
    """`simple`, or `complex`: it should have been asked back."""
    tables: tuple[str, ...]
    template_question: str
    template_sql: str
    slots: tuple[Slot, ...]
    """The template's slots; their values only for the example's own tenant."""
    own: bool
    """Approved from this asker's tenant's turn (or a deployment without tenants)."""


@dataclass(frozen=True)
class _Row:
    """An approval as its own tenant sees it, with whose it is and whether others may."""

    example: ReviewedExample
    tenant: str
    shareable: bool

    def seen_by(self, tenant: str) -> ReviewedExample | None:
        if tenant == self.tenant:
            return self.example
        if not self.shareable:
            return None
        e = self.example
        return replace(
            e,
            question=e.template_question,
            sql=e.template_sql,
            slots=tuple(replace(s, value="") for s in e.slots),
            own=False,
        )


def masked(question: str, found: Sequence[FoundValue]) -> str:
    """`question` with each name found in the data written as its column's slot, as the
    examples' template questions are (`{first_name} {last_name}`): what an example is
    compared with, so that another name does not make the same question look another."""
    for value in sorted(found, key=lambda f: -len(f.said)):
        slots = " ".join("{" + column + "}" for column, _ in value.parts)
        question = question.replace(value.said, slots)
    return question


def asks_the_same_data(
    index: SourceIndex, said: frozenset[tuple[str, str, str]], example: ReviewedExample
) -> bool:
    """Whether a question that names `said` of the catalog (`SourceIndex.named` of it, its
    found names as slots) may be the example's: the same tables named and the same listed
    values ("Metal" is not "Rock"); a table or a column it names that the example's question
    does not is allowed only when the example's SQL reads it ("the city of {name}" is not
    "the email of {name}"). A question that leaves out a table the example names ("the 5
    customers who spent most" beside "the 5 artists who earned most from my customers") asks
    something else, however near in meaning."""
    theirs = index.named(example.template_question)
    if {n for n in said if n[1] == "value"} != {n for n in theirs if n[1] == "value"}:
        return False
    tables = {t for t, kind, _ in said if kind == "named"}
    named = {t for t, kind, _ in theirs if kind == "named"}
    read = set(IDENTIFIER.findall(example.template_sql.lower()))
    columns = {label for _, kind, label in said if kind == "column"}
    unread = {c for c in columns if c.rpartition(".")[2] not in read}
    return (
        not (tables - named - set(example.tables))
        and named <= tables
        and unread <= {label for _, kind, label in theirs if kind == "column"}
    )


async def create_table(conn: asyncpg.Connection) -> None:
    """The examples' table, if missing; run under the setup lock by whoever writes them
    (`server.review`). Readers only read: a table not made yet holds no example."""
    await conn.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
    await conn.execute(f"CREATE SEQUENCE IF NOT EXISTS {VERSION}")
    await conn.execute(
        f"CREATE TABLE IF NOT EXISTS {TABLE} (id bigserial PRIMARY KEY,"
        " scope text NOT NULL, turn_id bigint NOT NULL, tenant text NOT NULL,"
        " question text NOT NULL, sql text NOT NULL, route text NOT NULL,"
        " complexity text NOT NULL, lang text NOT NULL, tables text[] NOT NULL,"
        " template_question text NOT NULL, template_sql text NOT NULL,"
        " slots jsonb NOT NULL, shareable boolean NOT NULL,"
        " approved_by text NOT NULL, approved_at timestamptz NOT NULL DEFAULT now(),"
        " reverted_by text, reverted_at timestamptz,"
        f" version bigint NOT NULL DEFAULT nextval('{VERSION}'))"
    )
    await conn.execute(
        f"CREATE INDEX IF NOT EXISTS reviewed_examples_scope_idx ON {TABLE} (scope, version)"
    )


def slots_json(slots: tuple[Slot, ...] | list[Slot]) -> str:
    return json.dumps([s.__dict__ for s in slots])


def _slots(raw: Any) -> tuple[Slot, ...]:
    items = json.loads(raw) if isinstance(raw, str) else raw
    return tuple(Slot(**item) for item in items)


@dataclass
class ReviewedExamples:
    """The approved examples of one scope, read again when their generation moves."""

    pool: asyncpg.Pool | None
    scope: str
    timeout_s: float
    generation: int = -1
    rows: list[_Row] = field(default_factory=list)

    async def seen_by(self, tenant: str) -> list[ReviewedExample]:
        """The examples `tenant` may see, as it may see them; read again if any changed."""
        await self._refresh()
        return [seen for row in self.rows if (seen := row.seen_by(tenant)) is not None]

    async def _refresh(self) -> None:
        if self.pool is None:
            return
        async with database_work(self.timeout_s, "reading the reviewed examples"):
            try:
                generation = await self.pool.fetchval(
                    f"SELECT coalesce(max(version), 0) FROM {TABLE} WHERE scope = $1",
                    self.scope,
                )
            except asyncpg.UndefinedTableError:
                return  # nothing was ever approved here (the server makes the table)
            if generation == self.generation:
                return
            records = await self.pool.fetch(
                f"SELECT id, tenant, question, sql, route, complexity, tables,"
                f" template_question, template_sql, slots, shareable FROM {TABLE}"
                " WHERE scope = $1 AND reverted_at IS NULL ORDER BY id",
                self.scope,
            )
        self.rows = [
            _Row(
                ReviewedExample(
                    id=r["id"],
                    question=r["question"],
                    sql=r["sql"],
                    kind=r["route"],
                    complexity=r["complexity"],
                    tables=tuple(r["tables"]),
                    template_question=r["template_question"],
                    template_sql=r["template_sql"],
                    slots=_slots(r["slots"]),
                    own=True,
                ),
                tenant=r["tenant"],
                shareable=r["shareable"],
            )
            for r in records
        ]
        self.generation = generation
