"""`orquestra catalog select`: which tables source selection chooses for each question, and why.

For a deployment's owner asking "why didn't it use table X?": each chosen table with what
chose it — the question's words that name it, its columns and values the question mentions,
glossary terms, how near its description is in meaning, the join path that brought a table
that only connects others — and the best-scored tables it did not choose. Only the catalog
and the embeddings are read (no database), unless `--data` asks to look the names the
questions write up in the data as a turn does (`graph.data_values`: through the guard, as
the agent's role, for `--tenant T` in a deployment with tenants). The embeddings are loaded
and the catalog's phrases embedded off the event loop, cached on disk under the data folder.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Iterator

import asyncpg

from orquestra.core.database import agent_url, connect_agent
from orquestra.core.settings import Settings
from orquestra.ddl_catalog import load_catalog
from orquestra.ddl_catalog.data_values import FoundValue
from orquestra.ddl_catalog.selection import Reason, Selection
from orquestra.graph.data_values import look_up
from orquestra.graph.embeddings import build_embeddings
from orquestra.graph.sources import choose_sources, source_index
from orquestra.graph.vector_cache import VectorCache
from orquestra.guards import GuardPolicy
from orquestra.server.terminal import fail

ASKER = "catalog-select"
RUNNERS_UP = 3
"""Tables not chosen shown per question: the best scored."""


def catalog_select(args: argparse.Namespace, settings: Settings) -> int:
    questions = [q.strip() for q in (args.questions or _stdin_lines()) if q.strip()]
    if not questions:
        return fail(
            "QUESTION_REQUIRED", "give the questions as arguments, or one per line on stdin"
        )
    tenant = None
    if args.data:
        from orquestra.server.cli_run import TenantOptionError, asked_tenant

        try:
            tenant = asked_tenant(settings, args.tenant)
        except TenantOptionError as refused:
            return fail(refused.code, refused.message)
    for line in asyncio.run(_select(questions, settings, as_json=args.json, tenant=tenant)):
        print(line, flush=True)
    return 0


def _stdin_lines() -> list[str]:
    return [] if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read().splitlines()


async def _select(
    questions: list[str], settings: Settings, *, as_json: bool, tenant: str | None = None
) -> list[str]:
    """Each question's selection; `tenant`: look its names up in the data as that tenant."""
    catalog = await asyncio.to_thread(load_catalog, settings.catalog_folder)
    embeddings = await asyncio.to_thread(build_embeddings, settings.embeddings)
    vectors = await VectorCache.open(embeddings, None, settings.data_dir / "cache")
    index = await source_index(catalog, vectors)
    pool = None
    if tenant is not None:
        await (await connect_agent(settings)).close()  # a clear error when it cannot connect
        pool = await asyncpg.create_pool(
            await asyncio.to_thread(agent_url, settings), min_size=1, max_size=1
        )
    policy = GuardPolicy.from_catalog(catalog)
    lines = []
    try:
        for question in questions:
            values: tuple[FoundValue, ...] = ()
            if pool is not None:
                looked = await look_up(
                    question,
                    index,
                    pool,
                    policy,
                    tenant=tenant or "",
                    limits=settings.limits.execution(),
                )
                values = looked.found
            selection = await choose_sources(index, vectors, question, asker=ASKER, values=values)
            if as_json:
                lines.append(json.dumps(as_record(question, selection), ensure_ascii=False))
            else:
                lines += [*described(question, selection), ""]
    finally:
        if pool is not None:
            await pool.close()
    return lines


def as_record(question: str, selection: Selection) -> dict[str, object]:
    """One question's selection as JSON: `question`, `tables`, `reasons` (per table), the
    glossary `terms` it brought and the best-scored tables `not_chosen`."""
    return {
        "question": question,
        "tables": list(selection.tables),
        "reasons": {name: reason.as_dict() for name, reason in selection.reasons.items()},
        "terms": [term.term for term in selection.terms],
        "not_chosen": [
            {"table": name, "score": round(selection.scores[name], 2), **reason.as_dict()}
            for name, reason in _runners_up(selection)
        ],
    }


def described(question: str, selection: Selection) -> Iterator[str]:
    """The selection as a person reads it: each table chosen and why, then the runners-up."""
    yield f"question: {question}"
    yield f"  tables: {', '.join(selection.tables)}"
    width = max(map(len, selection.tables), default=0)
    for name, reason in selection.reasons.items():
        yield f"  {name:<{width}}  {_why(reason)}"
    if selection.terms:
        yield f"  glossary terms: {', '.join(t.term for t in selection.terms)}"
    others = _runners_up(selection)
    if others:
        yield "  not chosen (best scored):"
        width = max(len(name) for name, _ in others)
        for name, reason in others:
            yield f"    {name:<{width}}  score {selection.scores[name]:+.2f}: {_details(reason)}"


def _runners_up(selection: Selection) -> list[tuple[str, Reason]]:
    names = [n for n in selection.scores if n not in selection.reasons][:RUNNERS_UP]
    return [
        (n, selection.evidence.get(n) or Reason("", similarity=selection.similarity[n]))
        for n in names
    ]


def _why(reason: Reason) -> str:
    details = _details(reason)
    return f"{reason.chosen_for}: {details}" if details else reason.chosen_for


def _details(reason: Reason) -> str:
    parts = []
    if reason.words:
        parts.append("words " + ", ".join(f'"{w}"' for w in reason.words))
    if reason.terms:
        parts.append("glossary " + ", ".join(reason.terms))
    if reason.values:
        parts.append("values " + ", ".join(reason.values))
    if reason.columns:
        parts.append("columns " + ", ".join(reason.columns))
    if reason.path:
        parts.append("joins " + " → ".join(reason.path))
    parts.append(f"similarity {reason.similarity:+.2f}")
    return "; ".join(parts)
