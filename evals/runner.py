"""Running a dataset through the real graph (guard, executor, database) and scoring each case."""

from __future__ import annotations

import asyncio
import time
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver
from tqdm import tqdm

from orquestra.agent.wiring import build_graph
from orquestra.core.limits import ExecutionLimits
from orquestra.evals.compare import exact_match, relaxed_match
from orquestra.evals.dataset import Case, bind_tenants
from orquestra.graph.context import ROLES, RunContext
from orquestra.graph.event_types import ClarifyEvent, ErrorData, ErrorEvent, ResultData, ResultEvent
from orquestra.graph.events import Graph, run_turn
from orquestra.graph.resources import Resources
from orquestra.guards import GuardRejection, guard_sql
from orquestra.guards.tenant_key import deployment_key
from orquestra.guards.tenant_query import QueryError, run_as_tenant

GOLD_LIMITS = ExecutionLimits(row_cap=0, statement_timeout_ms=20_000, client_timeout_s=30)


@dataclass
class CaseResult:
    """What happened for one case, and how it scores."""

    id: str
    route: str
    expected_route: str
    complexity: str
    lang: str
    tenant: str
    question: str
    expected_block: str | None = None
    blocked_by: str | None = None
    """The input rail that stopped the message, if one did."""
    refine_rounds: int = 0
    """Judge-driven rewrites of the answer."""
    judges_failed: list[str] = field(default_factory=list)
    """Judges that did not pass the final answer (after any rewrites)."""
    stop_reason: str | None = None
    """Why the turn stopped short of an answer (`ANSWER_REFUSED`: a judge withheld it)."""
    answer: str = ""
    sql: str | None = None
    attempts: list[dict[str, Any]] = field(default_factory=list)
    exact: bool | None = None
    relaxed: bool | None = None
    knowledge_ok: bool | None = None
    clarified: bool = False
    fixer_recovered: bool = False
    caps_hit: list[str] = field(default_factory=list)
    tenant_leak: bool = False
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens_estimated: bool = False
    """The provider sent no usage for some call: the token counts are estimates."""
    latency_ms: float = 0.0
    error: str | None = None
    """Why the case failed, as a code (`None`: it did not fail): the turn's error, the refusal
    or database error that stopped every SQL it tried, a stop before any query ran, or its
    gold SQL that could not run. A failed case scores as a miss, never as unscored."""
    error_message: str | None = None
    """The failure in a few words (the error's message, or the database's)."""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


async def run_dataset(
    cases: list[Case],
    resources: Resources,
    context: RunContext,
    *,
    concurrency: int = 2,
    model: str | None = None,
) -> list[CaseResult]:
    """Every case, `concurrency` at a time, in dataset order."""
    cases = bind_tenants(cases, deployment_key(resources.catalog, resources.profile))
    graph = build_graph(resources).compile(checkpointer=InMemorySaver())
    if model:
        context = replace(context, models={role: model for role in ROLES})
    gate = asyncio.Semaphore(concurrency)
    bar = tqdm(total=len(cases), desc="eval", unit="case", leave=False)

    async def one(case: Case) -> CaseResult:
        async with gate:
            result = await run_case(graph, case, resources, replace(context, tenant=case.tenant))
        bar.update(1)
        return result

    try:
        return list(await asyncio.gather(*(one(case) for case in cases)))
    finally:
        bar.close()


async def run_case(
    graph: Graph, case: Case, resources: Resources, context: RunContext
) -> CaseResult:
    result = CaseResult(
        case.id, "", case.route, case.complexity, case.lang, case.tenant, " / ".join(case.messages)
    )
    result.expected_block = case.blocked_by
    started = time.perf_counter()
    final: ResultData | ErrorData | None = None
    thread = f"eval-{case.id}"
    for message in case.messages:
        final, clarified = await _turn(graph, message, thread, context)
        result.clarified = result.clarified or clarified
    result.latency_ms = (time.perf_counter() - started) * 1000
    state = (await graph.aget_state({"configurable": {"thread_id": thread}})).values
    result.model_calls = state.get("model_calls", 0)
    result.prompt_tokens = state.get("prompt_tokens", 0)
    result.completion_tokens = state.get("completion_tokens", 0)
    result.tokens_estimated = bool(state.get("tokens_estimated"))
    result.caps_hit = list(state.get("caps_hit") or [])
    result.refine_rounds = state.get("refine_rounds", 0)
    result.judges_failed = [j["name"] for j in state.get("judgements") or [] if not j["passed"]]
    # The last message's result; an empty one when it failed or asked back.
    answer = final if isinstance(final, ResultData) else ResultData(answer="", route=None)
    result.blocked_by = answer.blocked_by.rail if answer.blocked_by else None
    result.error, result.error_message = turn_failure(final) or (None, None)
    result.route = "clarify" if result.clarified and final is None else (answer.route or "").lower()
    if result.blocked_by:
        result.route = "blocked"
    result.answer = answer.answer
    result.sql = answer.sql
    result.stop_reason = answer.stop_reason or None
    result.attempts = [attempt.model_dump(exclude_unset=True) for attempt in answer.attempts or []]
    outcomes = [a.get("outcome") for a in result.attempts]
    result.fixer_recovered = "rows" in outcomes and any(
        o in ("error", "rejected") for o in outcomes
    )
    await _score(result, case, answer, resources)
    return result


async def _turn(
    graph: Graph, message: str, thread: str, context: RunContext
) -> tuple[ResultData | ErrorData | None, bool]:
    """The turn's result or error (None when it only asked back), and whether it asked."""
    final: ResultData | ErrorData | None = None
    clarified = False
    async for event in run_turn(graph, message, thread_id=thread, context=context):
        if isinstance(event, ResultEvent | ErrorEvent):
            final = event.data
        elif isinstance(event, ClarifyEvent):
            clarified = True
    return final, clarified


def turn_failure(final: ResultData | ErrorData | None) -> tuple[str, str] | None:
    """Why a turn failed, as `(code, message)`, or `None` when it answered or asked back.

    >>> from orquestra.graph.event_types import Attempt
    >>> refused = Attempt(sql="SELECT 1", outcome="error", error="PERMISSION_DENIED: no access")
    >>> turn_failure(ResultData(answer="I could not.", route="ANALYTICS", attempts=[refused]))
    ('PERMISSION_DENIED', 'no access')
    >>> turn_failure(ErrorData(code="DB_UNAVAILABLE", message="The database is unavailable."))
    ('DB_UNAVAILABLE', 'The database is unavailable.')
    >>> print(turn_failure(ResultData(answer="Hello!", route="CHAT")))
    None
    """
    if isinstance(final, ErrorData):
        return final.code, final.message
    if final is None or final.blocked_by:
        return None  # it asked back, or a rail blocked the message (scored as a block)
    attempts = final.attempts or []
    if any(attempt.outcome in ("rows", "zero_rows") for attempt in attempts):
        return None  # a query ran: its rows are scored
    if attempts:  # every SQL it tried was refused, or failed in the database
        last = attempts[-1]
        code, _, message = (last.error or f"{last.outcome.upper()}: {last.sql}").partition(": ")
        return code, message
    if final.stop_reason:  # a cap or a model failure ended it before any SQL
        return final.stop_reason, final.answer
    return None


async def _score(result: CaseResult, case: Case, final: ResultData, resources: Resources) -> None:
    rows = final.rows or []
    tenant_columns = set(resources.catalog.tenant_tables().values())
    for position, column in enumerate(final.columns or []):
        if column in tenant_columns:  # any row naming another tenant is a leak
            result.tenant_leak |= any(str(row[position]) != case.tenant for row in rows)
    if case.gold_sql:
        try:
            gold = await run_gold(case, resources)
        except (GuardRejection, QueryError) as refused:
            gold = []
            if result.error is None:
                result.error = refused.code
                result.error_message = f"the gold SQL could not run: {refused.message}"
        result.exact, result.relaxed = exact_match(rows, gold), relaxed_match(rows, gold)
    if case.answer_contains:
        answer = final.answer.lower()
        result.knowledge_ok = all(term.lower() in answer for term in case.answer_contains)
    if result.error is not None:  # a failed case is a miss (an empty gold is no match)
        result.exact = False if case.gold_sql else None
        result.relaxed = False if case.gold_sql else None
        result.knowledge_ok = False if case.answer_contains else None


async def gold_rows(case: Case, resources: Resources) -> list[list[Any]] | None:
    """The gold SQL's rows (see `run_gold`), or `None` when it cannot run."""
    try:
        return await run_gold(case, resources)
    except (GuardRejection, QueryError):
        return None


async def run_gold(case: Case, resources: Resources) -> list[list[Any]]:
    """The gold SQL through the same guard and executor, as the case's tenant; its refusal
    or the database's error raised as it is."""
    guarded = guard_sql(case.gold_sql or "", resources.policy, case.tenant, max_rows=0)
    async with resources.agent_pool.acquire() as conn:
        found = await run_as_tenant(
            conn, guarded.sql, guarded.params, tenant=case.tenant, limits=GOLD_LIMITS
        )
    return [list(row) for row in found.rows]
