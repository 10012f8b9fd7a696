"""`orquestra ask`: one turn in the terminal — live stage progress, then the streamed answer.

`--json` prints one JSON event per line, the same events as the SSE stream. Conversations
persist in PostgreSQL: `--thread ID` continues one (and answers a pending clarifying
question).
"""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

from orquestra.agent.wiring import build_graph
from orquestra.core.database import state_url
from orquestra.core.settings import Settings
from orquestra.graph.checkpoints import postgres_checkpointer
from orquestra.graph.context import RunContext
from orquestra.graph.event_types import (
    ClarifyEvent,
    ErrorEvent,
    Event,
    NodeEvent,
    ResultData,
    ResultEvent,
    SqlEvent,
    TokenEvent,
)
from orquestra.graph.events import run_turn
from orquestra.graph.resources import Resources
from orquestra.guards.tenant_key import NO_TENANT
from orquestra.nodes.display import local, period_label

PREVIEW_ROWS = 10


def save_chart(spec: dict[str, Any], target: Path) -> None:
    """The Vega-Lite chart as SVG or PNG, rendered without a browser (vl-convert)."""
    import vl_convert

    spec = {**spec, "width": 640}  # "container" needs a page; a file needs a size
    if target.suffix.lower() == ".png":
        target.write_bytes(vl_convert.vegalite_to_png(spec, scale=2))
    else:
        target.write_text(vl_convert.vegalite_to_svg(spec), encoding="utf-8")


def run_ask_command(
    question: str,
    tenant: str,
    *,
    thread: str | None,
    as_json: bool,
    settings: Settings,
    chart: Path | None = None,
) -> int:
    thread = thread or str(uuid.uuid4())
    return asyncio.run(_ask(question, tenant, thread, as_json, settings, chart))


async def _ask(
    question: str, tenant: str, thread: str, as_json: bool, settings: Settings, chart: Path | None
) -> int:
    resources = await Resources.open(settings)
    failed = False
    try:
        async with postgres_checkpointer(
            state_url(settings), settings.limits.database_timeout_s
        ) as saver:
            graph = build_graph(resources).compile(checkpointer=saver)
            context = RunContext.from_settings(settings, tenant=tenant)
            async for event in run_turn(graph, question, thread_id=thread, context=context):
                failed |= isinstance(event, ErrorEvent)
                if chart and isinstance(event, ResultEvent) and event.data.chart:
                    save_chart(event.data.chart, chart)
                    print(f"chart: {chart}", file=sys.stderr)
                if as_json:  # the data as the model holds it: the SSE stream's exact JSON
                    print(json.dumps(event.wire(), ensure_ascii=False, default=str), flush=True)
                else:
                    show(event, thread, tenant)
    finally:
        await resources.close()
    return 2 if failed else 0


def show(event: Event, thread: str, tenant: str = NO_TENANT) -> None:
    """Human-readable rendering: progress on stderr, the answer on stdout."""
    if isinstance(event, NodeEvent) and event.data.status == "end":
        node = event.data
        summary = f" — {node.summary}" if node.summary else ""
        print(f"  · {node.node:<15}{node.ms:>8.0f} ms{summary}", file=sys.stderr)
    elif isinstance(event, SqlEvent):
        print(f"  SQL (attempt {event.data.attempt}): {event.data.sql}", file=sys.stderr)
    elif isinstance(event, TokenEvent):
        if event.data.reset:  # the draft was sent back by the judges: a revision follows
            print("\n  (revised answer)", file=sys.stderr)
        print(event.data.text, end="", flush=True)
    elif isinstance(event, ClarifyEvent):
        print(f"\n? {event.data.question}")
        as_tenant = "" if tenant == NO_TENANT else f"--tenant {tenant} "
        print(f'  (answer with: orquestra ask {as_tenant}--thread {thread} "…")', file=sys.stderr)
    elif isinstance(event, ResultEvent):
        print()
        _table(event.data)
        print(f"\nthread: {thread}", file=sys.stderr)
    elif isinstance(event, ErrorEvent):
        print(f"\nerror [{event.data.code}]: {event.data.message}", file=sys.stderr)


def _table(result: ResultData) -> None:
    rows = result.rows or []
    one = len(rows) == 1 and (len(rows[0]) == 1 or len(result.cards or []) == len(rows[0]))
    if not rows or one:
        return  # the answer says it, and a second copy would only repeat it
    columns = result.columns or []
    cells = [
        [_cell(v, shown)[:30] for v, shown in zip(row, _shown_columns(result), strict=False)]
        for row in rows[:PREVIEW_ROWS]
    ]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(columns)]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)))
    for row in cells:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)))
    if (result.row_count if result.row_count is not None else len(rows)) > len(cells):
        print(f"… {result.row_count} rows in all")


def _shown_columns(result: ResultData) -> list[tuple[str | None, str, str]]:
    """Per column, how the presenter says to write it: its period (None for other columns),
    the turn's time zone and language."""
    display = result.display or {}
    zone, lang = display.get("timezone") or "UTC", display.get("lang") or "pt"
    periods = {c.get("name"): c.get("period") for c in display.get("columns") or []}
    return [(periods.get(name), zone, lang) for name in result.columns or []]


def _cell(value: Any, shown: tuple[str | None, str, str]) -> str:
    """A value as the web chat's table writes it: a period as its period ("2026", "06/2026"),
    a time in the deployment's time zone, never the UTC instant."""
    period, zone, lang = shown
    if value is None:
        return ""
    moment = local(value, zone)
    if period:
        return period_label(moment, period, lang)
    if isinstance(moment, datetime):
        return moment.strftime("%b %d, %Y %H:%M" if lang == "en" else "%d/%m/%Y %H:%M")
    return str(moment)
