"""The graph's typed state: what flows between stages in one turn and across a thread.

Only `messages` accumulates (the conversation). Every per-turn field is reset by the first
stage of a turn, so a thread's second question never sees the first one's attempts.
"""

from __future__ import annotations

import types
from typing import (
    Annotated,
    Any,
    Literal,
    TypedDict,
    TypeVar,
    Union,
    get_args,
    get_origin,
    get_type_hints,
)

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages

from orquestra.sandbox.analysis import Analysis

Route = Literal["TRACKING", "ANALYTICS", "KNOWLEDGE", "CHAT"]


class SqlAttempt(TypedDict, total=False):
    """One SQL tried in this turn and what came of it."""

    sql: str
    """The SQL as the writer or fixer produced it."""
    guarded_sql: str
    """What actually ran, after the guard."""
    outcome: Literal["rows", "zero_rows", "rejected", "error"]
    error: str
    """Guard code or PostgreSQL error, when it failed."""
    row_count: int


class QueryResultState(TypedDict, total=False):
    """Rows of the last successful query."""

    columns: list[str]
    rows: list[list[Any]]
    row_count: int
    """Rows returned (or the exact total when it was cheap to count)."""
    truncated: bool


class InputState(TypedDict):
    """What a caller sends: the new user message."""

    messages: Annotated[list[AnyMessage], add_messages]
    """The conversation; a turn appends the user's message and the answer."""


class OutputState(TypedDict, total=False):
    """What a caller gets back at the end of a turn."""

    answer: str
    """The final answer text."""
    route: Route | None
    """TRACKING, ANALYTICS, KNOWLEDGE or CHAT (None for greetings)."""
    sql: str | None
    """The last guarded SQL that ran."""
    result: QueryResultState | None
    """Rows of the last successful query."""
    sources: dict[str, list[str]]
    """Catalog systems, tables and glossary terms the SQL writer saw."""
    attempts: list[SqlAttempt]
    """Every SQL tried in this turn."""
    stop_reason: str | None
    """Which cap or failure ended the turn early, if any."""
    blocked_by: dict[str, str] | None
    """The input rail that stopped the message: `{rail, code, reason}` (code as published)."""


class AgentState(InputState, OutputState, total=False):
    """Everything the stages share."""

    turn_message: str
    """The user's message that started this turn."""
    other_tenants_named: list[str]
    """Another tenant's name the message mentions, as written, that the answer notes: one at
    most, and only while the person has notes left (`nodes.input_rails`)."""
    clarifications: list[str]
    """Clarifying questions asked in this turn, with the user's answers."""
    question: str
    """The complete, self-contained question (follow-ups resolved)."""
    last_question: str
    """The previous turn's complete question, for resolving follow-ups."""
    lang: Literal["pt", "en"]
    """Language the answer is written in."""
    wants_knowledge: bool
    """The message also asks what a concept means (both paths, one answer)."""
    assumption: str | None
    """What the augmenter assumed when it stopped asking."""
    clarify_question: str | None
    """The clarifying question waiting for an answer."""
    clarify_rounds: int
    """Clarifying questions asked in this turn."""
    schema_text: str
    """DDL, descriptions and glossary terms of the selected sources."""
    reviewed_example: int | None
    """The reviewed example whose SQL the writer reused this turn (the answer says so)."""
    found_values: list[dict[str, Any]]
    """The names the question writes, found in the asker's own rows this turn
    (`ddl_catalog.data_values.FoundValue.as_dict`): for the SQL writer, never kept."""
    names_searched: list[str]
    """The names the question writes that were looked up in the asker's rows, found or not
    (none when the lookup could not run)."""
    draft_sql: str | None
    """SQL waiting for the guard."""
    guarded_sql: str | None
    """SQL the guard produced, waiting for the executor."""
    sql_dialect: str | None
    """The dialect the draft was written in, when it was normalised to PostgreSQL."""
    sql_corrections: list[dict[str, str]]
    """Enumerated values whose case the catalog check corrected in the draft."""
    sql_problems: list[dict[str, Any]]
    """What the catalog check found wrong with the draft (names, nearest valid names), for
    the fixer."""
    guard_params: list[str]
    """Bound parameters of the guarded SQL."""
    sql_attempt: int
    """SQL attempts written in this turn (the first plus zero-row retries)."""
    fix_attempts: int
    """Fixer repairs in the current SQL attempt."""
    last_error: str | None
    """Guard rejection or database error the fixer must address."""
    analysis: Analysis | None
    """The analyzer's findings: totals, trend, top-N with shares, outliers, notes."""
    analysis_error: str | None
    """Why the analysis failed, when it did (the answer then uses the rows' preview)."""
    analysis_code: str | None
    """pandas code the SQL model wrote for the analysis (code mode only)."""
    cards: list[dict[str, Any]]
    """Key figures: label, value, unit, delta versus the previous period."""
    display: dict[str, Any] | None
    """How a client writes the result: column labels, kinds, units and periods; card labels
    and periods; the turn's locale, currency and time zone (`nodes.display`)."""
    model: str | None
    """The model that wrote the answer (`offline`, or the configured `provider:model`)."""
    chart: dict[str, Any] | None
    """A Vega-Lite v5 specification chosen from the data's shape, validated."""
    knowledge: str | None
    """The librarian's answer, for concept questions and mixed messages."""
    knowledge_sources: str
    """Glossary terms and document passages the librarian answered from (judges' evidence)."""
    refine_rounds: int
    """Judge-driven refinements in this turn (concept and data answers)."""
    judge_feedback: str | None
    """What the judges asked the writer to fix, while a refinement is due."""
    sent_back: str | None
    """The answer the judges last sent back: a rewrite that returns it unchanged ends the
    refinement (the writer cannot do better, and asking again costs calls, not quality)."""
    judge_pending: bool
    """A data answer was streamed and awaits the judges."""
    judgements: list[dict[str, Any]]
    """The last verdicts: name, passed, score, outcome, feedback, ms per judge."""
    answer_streamed: bool
    """The answer's tokens already reached the client (the chat stage streams its own)."""
    model_calls: int
    """Model calls made in this turn."""
    prompt_tokens: int
    """Prompt tokens spent in this turn."""
    completion_tokens: int
    """Completion tokens spent in this turn."""
    tokens_estimated: bool
    """Some call's tokens were estimated (the provider streamed no usage)."""
    model_wait_s: float
    """Seconds this turn waited on rate limits and outages before retrying."""
    caps_hit: list[str]
    """Caps reached in this turn (for metrics and the answer)."""


THREAD_FIELDS = frozenset({"messages", "last_question", "lang", "turn_message"})
"""What is not reset when a turn starts: the conversation and what the turn's first stage
sets itself. Every other field of `AgentState` belongs to one turn."""


def turn_reset() -> dict[str, Any]:
    """Every per-turn field at its empty value, read from `AgentState`'s types (None where
    the type allows it, else an empty list, dict, string, zero or False) — never a hand-kept
    copy of the field list."""
    hints = get_type_hints(AgentState, include_extras=False)
    return {name: _empty(hint) for name, hint in hints.items() if name not in THREAD_FIELDS}


def _empty(hint: Any) -> Any:
    if get_origin(hint) in (Union, types.UnionType) and type(None) in get_args(hint):
        return None
    origin = get_origin(hint) or hint
    empties: dict[Any, Any] = {list: [], dict: {}, str: "", int: 0, float: 0.0, bool: False}
    if origin not in empties:
        raise TypeError(f"no empty value for a per-turn field of type {hint!r}")
    return empties[origin]


T = TypeVar("T")


def present(value: T | None, field: str) -> T:
    """`value` of a state field the graph's routing guarantees is set when a stage runs (the
    guard runs only on drafted SQL, the analyzer only on rows); unset is a wiring bug."""
    if value is None:
        raise RuntimeError(f"state field {field!r} is not set: the graph's routing is broken")
    return value
