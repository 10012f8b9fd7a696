"""sql_writer: the tracking or analytics specialist writes the SQL.

It sees only the selected sources' schema text, a few retrieved question→SQL examples and,
on a retry, the SQL already tried this turn with an instruction to read the question another
way. Structured output: `{thought_process, sql, missing_info, confidence}`.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from orquestra.ddl_catalog.data_values import FoundValue
from orquestra.ddl_catalog.render import render_schema
from orquestra.ddl_catalog.text import literal
from orquestra.ddl_catalog.wording import voice_of
from orquestra.graph.context import RunContext
from orquestra.graph.hints import ModelHints
from orquestra.graph.llm import Meter, chat
from orquestra.graph.local_model import LocalChatModel
from orquestra.graph.meaning import catalog_languages, read_by_meaning
from orquestra.graph.model_errors import ModelContext
from orquestra.graph.models import model_for
from orquestra.graph.resources import Resources
from orquestra.graph.reviewed_examples import ReviewedExample, asks_the_same_data, masked
from orquestra.graph.stage import stage
from orquestra.graph.state import AgentState
from orquestra.nodes.prompts import prompt, sections

CODE_MODE = (
    "Also write `analysis_code`: pandas code over the DataFrame `df` (the query's rows, your "
    "column names) that sets `result` to a small dict of the figures that matter (totals, "
    "growth, top items). Only pandas, numpy, math, statistics and datetime; no files, no I/O."
)
REVIEWED_SHOWN = 2
"""Reviewed examples shown before the deployment's own: a person checked each."""
RETRY_INSTRUCTION = (
    "The SQL above ran but returned no rows. Read the question another way: a looser filter "
    "(e.g. ILIKE instead of =, fewer conditions), another date column, another join or table. "
    "Do not repeat a query already tried."
)
OWN_COMPANY_NOTE = (
    "{names}: the name of the asker's own company, whose data this is (the data holds only"
    " its rows already). Do not filter any column by it."
)


FOUND_NOTE = (
    "Each name below was found in the data as shown: filter by that column and that value,"
    " as written."
)


def found_lines(found: tuple[FoundValue, ...]) -> str:
    """The values the question names, found in the data, one line each (the SQL writer's
    `Values in the data` section).

    >>> print(found_lines((FoundValue("Tofu", (3,), "products", "product_name", "Tofu", "exact"),)))
    "Tofu": products.product_name = 'Tofu'
    """
    lines = []
    for value in found:
        where = " AND ".join(
            f"{value.table}.{column} = {literal(held)}" for column, held in value.parts
        )
        if not value.certain:
            held = ", ".join(literal(v) for v in (value.value, *value.others))
            where = f"part of several {value.table}.{value.column} values ({held}…): ask which"
        lines.append(f'"{value.said}": {where}')
    return "\n".join(lines)


NOT_FOUND_NOTE = "Looked for in the data and found in no name: {names}. No row has it."


def values_section(found: tuple[FoundValue, ...], searched: tuple[str, ...]) -> str:
    """The `Values in the data` section: where each name was found, and the names looked
    for that no row holds (empty when nothing was looked for)."""
    missing = [s for s in searched if not any(f.said == s for f in found)]
    parts = [f"{FOUND_NOTE}\n{found_lines(found)}" if found else ""]
    if missing:
        parts.append(NOT_FOUND_NOTE.format(names=", ".join(f'"{m}"' for m in missing)))
    return "\n".join(p for p in parts if p)


class SqlDraft(BaseModel):
    """The SQL writer's structured output."""

    thought_process: str = Field(description="Short reasoning: tables, joins, filters.")
    sql: str = Field(description="One PostgreSQL SELECT, or empty when it cannot be answered.")
    missing_info: str | None = None
    confidence: float = Field(0.5, ge=0, le=1)
    analysis_code: str | None = Field(
        None, description="Code mode only: pandas code over `df` that sets `result` to a dict."
    )
    reviewed_example: int | None = Field(
        None, description="The number of the reviewed example whose SQL this reuses, if any."
    )


def reviewed_text(example: ReviewedExample) -> str:
    """A reviewed example as the prompt shows it. Another tenant's has its names as slots:
    `{first_name}` stands for the value of that column the question gives."""
    slots = ", ".join("{" + s.name + "}" for s in example.slots if not example.own)
    note = f" (reviewed; {slots}: the question's own values)" if slots else " (reviewed)"
    return (
        f"Q{note} [reviewed example {example.id}]: {example.question}\nSQL: {example.sql.strip()}"
    )


def tried(state: AgentState) -> str:
    lines = []
    for number, attempt in enumerate(state.get("attempts") or [], start=1):
        outcome = attempt.get("outcome")
        detail = f" ({attempt['error']})" if attempt.get("error") else ""
        lines.append(f"{number}. {attempt.get('sql')}\n   → {outcome}{detail}")
    return "\n".join(lines)


def _system(
    state: AgentState,
    runtime: Runtime[RunContext],
    resources: Resources,
    schema: str,
    examples: str,
) -> str:
    kind = "tracking" if state.get("route") == "TRACKING" else "analytics"
    system = prompt(
        f"sql_{kind}",
        schema=schema,
        examples=examples,
        today=runtime.context.today_date(resources.settings).isoformat(),
        **voice_of(resources).prompt_values(state.get("lang")),
    )
    return system + ("\n\n" + CODE_MODE if runtime.context.analysis_code_mode else "")


def _core_schema(state: AgentState, runtime: Runtime[RunContext], resources: Resources) -> str:
    """The schema of the best-ranked half of the chosen tables (at least two), with the
    glossary terms involved: the smaller prompt tried after `MODEL_CONTEXT`."""
    chosen = (state.get("sources") or {}).get("tables") or []
    core = chosen[: max(2, (len(chosen) + 1) // 2)]
    named = set((state.get("sources") or {}).get("terms") or [])
    terms = [t for t in resources.catalog.glossary if t.term in named]
    return render_schema(
        resources.catalog, core, terms, runtime.context.today_date(resources.settings).isoformat()
    )


async def _read_as(state: AgentState, resources: Resources) -> tuple[tuple[str, str], ...]:
    """The question's words read as catalog phrases by meaning, for an in-process model (a
    hosted one reads the question itself), when it is asked in a language the catalog does
    not speak."""
    lang = state.get("lang")
    if lang is None or lang in catalog_languages(resources.catalog):
        return ()  # asked in the catalog's own language: nothing to read by meaning
    return await read_by_meaning(resources.sources, resources.vectors, state["question"])


def _summary(update: dict[str, Any]) -> str:
    return "no SQL: " + (update.get("last_error") or "") if not update.get("draft_sql") else "SQL"


@stage("sql_writer", summary=_summary)
async def sql_writer(
    state: AgentState, runtime: Runtime[RunContext], resources: Resources
) -> dict[str, Any]:
    context = runtime.context
    kind = "tracking" if state.get("route") == "TRACKING" else "analytics"
    examples = await resources.nearest_examples(state["question"], kind, asker=context.asker)
    found = tuple(FoundValue.of(v) for v in state.get("found_values") or [])
    asked = masked(state["question"], found)
    reviewed = await resources.nearest_reviewed(asked, tenant=context.tenant, asker=context.asker)
    said = resources.sources.named(asked) if reviewed else frozenset()
    same_data = [  # one that names other data asks something else, however near in meaning
        (example, score)
        for example, score in reviewed
        if asks_the_same_data(resources.sources, said, example)
    ]
    shown = "\n\n".join(
        [reviewed_text(e) for e, _ in reviewed[:REVIEWED_SHOWN]]
        + [f"Q: {e.question}\nSQL: {e.sql.strip()}" for e in examples]
    )
    previous = tried(state)
    # The asker's own company, named, is whose data this is (the guard keeps its rows), never
    # a value to look for in a row's name. Another tenant's name is left as any name is: the
    # SQL must not tell a tenant's name from another word (`guards.tenant_names`).
    names = await resources.tenants.for_asker(context.tenant)  # a tenant added since start too
    own = names.own_names(state["question"], context.tenant)
    searched = tuple(state.get("names_searched") or [])
    user = sections(
        question=state["question"],
        own_company_named=OWN_COMPANY_NOTE.format(names=", ".join(own)) if own else "",
        values_in_the_data=values_section(found, searched),
        already_tried=previous,
        instruction=RETRY_INSTRUCTION if previous else "",
    )
    meter = Meter.of(state, context, context.today_date(resources.settings))
    model = model_for("sql_writer", context, resources.settings)
    hints = ModelHints(
        question=state["question"],
        own_company_names=tuple(own),
        found_values=found,
        names_searched=searched,
        read_as=await _read_as(state, resources) if isinstance(model, LocalChatModel) else (),
        tried_sql=tuple(a["sql"] for a in state.get("attempts") or [] if a.get("sql")),
        reviewed=tuple(same_data),
    )
    try:
        system = _system(state, runtime, resources, state["schema_text"], shown or "(none)")
        draft = await meter.structured(model, "sql_writer", SqlDraft, chat(system, user), hints)
    except ModelContext:
        # Too long for this model: once more with the core tables only and no examples.
        core = _core_schema(state, runtime, resources)
        system = _system(state, runtime, resources, core, "(none)")
        draft = await meter.structured(model, "sql_writer", SqlDraft, chat(system, user), hints)
    sql = draft.sql.strip().rstrip(";").strip()
    return {
        **meter.update(),
        "draft_sql": sql or None,
        "sql_attempt": state.get("sql_attempt", 0) + 1,
        "analysis_code": draft.analysis_code if context.analysis_code_mode else None,
        "fix_attempts": 0,
        # an example it was shown (a model may name any number)
        "reviewed_example": draft.reviewed_example
        if sql and draft.reviewed_example in {e.id for e, _ in reviewed}
        else None,
        "last_error": None
        if sql
        else (draft.missing_info or "the question does not map to the data"),
    }
