"""sql_writer: the tracking or analytics specialist writes the SQL.

It sees only the selected sources' schema text, a few retrieved question→SQL examples and,
on a retry, the SQL already tried this turn with an instruction to read the question another
way. Structured output: `{thought_process, sql, missing_info, confidence}`.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from graph.context import RunContext
from graph.llm import Meter, chat
from graph.models import model_for
from graph.resources import open_resources
from graph.stage import stage
from nodes.prompts import prompt, sections
from nodes.wording import voice_of

CODE_MODE = (
    "Also write `analysis_code`: pandas code over the DataFrame `df` (the query's rows, your "
    "column names) that sets `result` to a small dict of the figures that matter (totals, "
    "growth, top items). Only pandas, numpy, math, statistics and datetime; no files, no I/O."
)
RETRY_INSTRUCTION = (
    "The SQL above ran but returned no rows. Read the question another way: a looser filter "
    "(e.g. ILIKE instead of =, fewer conditions), another date column, another join or table. "
    "Do not repeat a query already tried."
)


class SqlDraft(BaseModel):
    """The SQL writer's structured output."""

    thought_process: str = Field(description="Short reasoning: tables, joins, filters.")
    sql: str = Field(description="One PostgreSQL SELECT, or empty when it cannot be answered.")
    missing_info: str | None = None
    confidence: float = Field(0.5, ge=0, le=1)
    analysis_code: str | None = Field(
        None, description="Code mode only: pandas code over `df` that sets `result` to a dict."
    )


def tried(state: dict[str, Any]) -> str:
    lines = []
    for number, attempt in enumerate(state.get("attempts") or [], start=1):
        outcome = attempt.get("outcome")
        detail = f" ({attempt['error']})" if attempt.get("error") else ""
        lines.append(f"{number}. {attempt.get('sql')}\n   → {outcome}{detail}")
    return "\n".join(lines)


def _summary(update: dict[str, Any]) -> str:
    return "no SQL: " + (update.get("last_error") or "") if not update.get("draft_sql") else "SQL"


@stage("sql_writer", summary=_summary)
async def sql_writer(state: dict[str, Any], runtime: Runtime[RunContext]) -> dict[str, Any]:
    context = runtime.context
    resources = await open_resources()
    kind = "tracking" if state.get("route") == "TRACKING" else "analytics"
    examples = await resources.nearest_examples(state["question"], kind)
    shown = "\n\n".join(f"Q: {e.question}\nSQL: {e.sql.strip()}" for e in examples)
    system = prompt(
        f"sql_{kind}",
        schema=state["schema_text"],
        examples=shown or "(none)",
        today=context.today_date().isoformat(),
        **voice_of(resources).prompt_values(state.get("lang")),
    )
    if context.analysis_code_mode:
        system += "\n\n" + CODE_MODE
    previous = tried(state)
    user = sections(
        question=state["question"],
        already_tried=previous,
        instruction=RETRY_INSTRUCTION if previous else "",
    )
    meter = Meter.of(state, context.max_model_calls)
    model = model_for("sql_writer", context, resources.settings)
    draft = await meter.structured(model, "sql_writer", SqlDraft, chat(system, user))
    sql = draft.sql.strip().rstrip(";").strip()
    return {
        **meter.update(),
        "draft_sql": sql or None,
        "sql_attempt": state.get("sql_attempt", 0) + 1,
        "analysis_code": draft.analysis_code if context.analysis_code_mode else None,
        "fix_attempts": 0,
        "last_error": None
        if sql
        else (draft.missing_info or "the question does not map to the data"),
    }
