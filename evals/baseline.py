"""LangChain's standard SQL agent, run on an evaluation's cases beside Orquestra (`--baseline`).

The agent is the one LangChain documents for v1 ("Build a SQL agent"): `SQLDatabase` and
`SQLDatabaseToolkit` from langchain-community, `langchain.agents.create_agent` with the
tutorial's system prompt (dialect and `top_k` filled in as it does). It connects exactly as
Orquestra's executor does (`run_as_tenant`): the least-privilege agent role, and for every
transaction read-only, `SET LOCAL app.tenant_id`, `statement_timeout` and `TimeZone`; every
statement is prepared server-side, so one tool call runs one statement. Row-level security
is therefore on: the baseline sees only the case's tenant's rows, as Orquestra does.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import warnings
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import LLMResult
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import GraphRecursionError
from sqlalchemy import Engine, MetaData, create_engine, event, text

from orquestra.core.database import admin_url, agent_url
from orquestra.core.errors import OrquestraError
from orquestra.core.settings import Settings
from orquestra.ddl_catalog.model import Catalog
from orquestra.evals.baseline_metrics import BaselineResult, score_baseline
from orquestra.evals.dataset import Case, bind_tenants
from orquestra.graph.context import RunContext
from orquestra.graph.local_model import approx_tokens
from orquestra.graph.models import model_for
from orquestra.graph.resources import Resources
from orquestra.guards.tenant_key import deployment_key
from orquestra.guards.tenant_query import TENANT_PATTERN, TIMEZONE_PATTERN, QueryError

log = logging.getLogger("orquestra.eval.baseline")

BASELINES = ("langchain-sql-agent",)
TOP_K = 5
"""The tutorial's `top_k`."""
MAX_MODEL_TURNS = 15
"""A runaway agent stops here: the `max_iterations` default of LangChain's older
`create_sql_agent`; each turn is a model step and a tool step of the graph."""
IN_PROCESS_SPECS = ("offline", "scripted:")

SYSTEM_PROMPT = """
You are an agent designed to interact with a SQL database.
Given an input question, create a syntactically correct {dialect} query to run,
then look at the results of the query and return the answer. Unless the user
specifies a specific number of examples they wish to obtain, always limit your
query to at most {top_k} results.

You can order the results by a relevant column to return the most interesting
examples in the database. Never query for all the columns from a specific table,
only ask for the relevant columns given the question.

You MUST double check your query before executing it. If you get an error while
executing a query, rewrite the query and try again.

DO NOT make any DML statements (INSERT, UPDATE, DELETE, DROP etc.) to the
database.

To start you should ALWAYS look at the tables in the database to see what you
can query. Do NOT skip this step.

Then you should query the schema of the most relevant tables.
"""
"""Word for word the system prompt of LangChain's v1 SQL-agent tutorial."""


class BaselineUnavailable(OrquestraError):
    """The baseline cannot run with this configuration (it needs a hosted tool-calling model)."""

    code = "BASELINE_NEEDS_MODEL"


def baseline_model(name: str, spec: str, settings: Settings) -> BaseChatModel:
    """The chat model the baseline runs with: the evaluation's own `spec`, which must be a
    provider's model, since the in-process models call no tools."""
    if name not in BASELINES:
        raise BaselineUnavailable("BASELINE_UNKNOWN", f"unknown baseline {name!r}: {BASELINES}")
    if spec.startswith(IN_PROCESS_SPECS):
        raise BaselineUnavailable(
            f"the {name} baseline needs a tool-calling model, and the evaluation's model is"
            f" {spec!r}, which calls no tools (`offline` is the default without an API key)."
            " Set OPENAI_API_KEY, or give --model provider:model with that provider's key"
            " (e.g. --model openai:gpt-4.1-mini)."
        )
    try:
        return model_for("sql_writer", RunContext(models={"sql_writer": spec}), settings)
    except Exception as exc:  # e.g. the provider's client refusing a missing key
        raise BaselineUnavailable(f"the {name} baseline cannot use {spec!r}: {exc}") from None


def sqlalchemy_url(url: str) -> str:
    """The same PostgreSQL URL for SQLAlchemy's psycopg 3 driver."""
    scheme, _, rest = url.partition("://")
    return f"postgresql+psycopg://{rest}" if scheme in ("postgres", "postgresql") else url


def tenant_engine(settings: Settings, tenant: str, schema: str) -> Engine:
    """An engine as the agent role whose every transaction is the tenant's, read-only and
    bounded in time, mirroring `run_as_tenant` (layer 3)."""
    limits = settings.limits.execution()
    if not TENANT_PATTERN.match(tenant):
        raise QueryError("TENANT_INVALID", "the tenant identifier is not valid")
    if not TIMEZONE_PATTERN.match(limits.timezone):
        raise QueryError("QUERY_ERROR", f"time zone {limits.timezone!r} is not valid")
    engine = create_engine(
        sqlalchemy_url(agent_url(settings)),
        # Server-side prepared statements: stacked statements (`SET …; SELECT …`) fail.
        connect_args={"prepare_threshold": 0},
        execution_options={"postgresql_readonly": True},
    )
    # The values are checked above, as run_as_tenant checks them (SET takes no parameters).
    statements = [
        f"SET LOCAL app.tenant_id = '{tenant}'",
        f"SET LOCAL statement_timeout = {int(limits.statement_timeout_ms)}",
        f"SET LOCAL TimeZone = '{limits.timezone}'",
    ]
    if schema != "public":
        statements.append('SET LOCAL search_path = "' + schema.replace('"', '""') + '"')

    @event.listens_for(engine, "begin")
    def _as_tenant(conn: Any) -> None:
        for statement in statements:
            conn.exec_driver_sql(statement)

    return engine


def catalog_structure(settings: Settings, catalog: Catalog) -> tuple[list[str], str, MetaData]:
    """The catalog's tables, their schema, and their structure (columns, keys) read once by
    the owner: SQLAlchemy's reflection calls `current_setting`, which layer 3 may revoke from
    the agent role. Only the structure is read this way; every row comes through the agent."""
    schemas = {table.db_schema for table in catalog.tables.values()}
    if len(schemas) != 1:
        raise BaselineUnavailable(
            "BASELINE_SCHEMAS", f"SQLDatabase reads one schema; the catalog spans {schemas}"
        )
    schema = schemas.pop()
    tables = sorted(catalog.tables)
    owner = create_engine(sqlalchemy_url(admin_url(settings)))
    try:
        structure = MetaData()
        structure.reflect(bind=owner, only=tables, schema=None if schema == "public" else schema)
    finally:
        owner.dispose()
    return tables, schema, structure


@dataclass
class Baseline:
    """The pieces every case shares: the model, the catalog's structure, an engine a tenant."""

    name: str
    model: BaseChatModel
    tables: list[str]
    schema: str
    structure: MetaData
    settings: Settings
    engines: dict[str, Engine] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    """Agents are built on worker threads: one engine a tenant, whichever builds it first."""

    @classmethod
    def open(
        cls, name: str, model: BaseChatModel, settings: Settings, catalog: Catalog
    ) -> Baseline:
        tables, schema, structure = catalog_structure(settings, catalog)
        return cls(name, model, tables, schema, structure, settings)

    def engine(self, tenant: str) -> Engine:
        with self.lock:
            if tenant not in self.engines:
                self.engines[tenant] = tenant_engine(self.settings, tenant, self.schema)
            return self.engines[tenant]

    def agent(self, tenant: str) -> Any:
        """The tutorial's agent over the tenant's connection, restricted to the catalog."""
        from langchain.agents import create_agent

        with warnings.catch_warnings():  # its sunset notice: the toolkit is what is compared
            warnings.simplefilter("ignore", DeprecationWarning)
            from langchain_community.agent_toolkits import SQLDatabaseToolkit
            from langchain_community.utilities import SQLDatabase

        database = SQLDatabase(
            self.engine(tenant),
            include_tables=self.tables,
            metadata=self.structure,
            lazy_table_reflection=True,
        )
        toolkit = SQLDatabaseToolkit(db=database, llm=self.model)
        prompt = SYSTEM_PROMPT.format(dialect=database.dialect, top_k=TOP_K)
        return create_agent(
            self.model, toolkit.get_tools(), system_prompt=prompt, checkpointer=InMemorySaver()
        )

    def rows(self, tenant: str, sql: str) -> tuple[list[str], list[list[Any]]]:
        """The typed rows of one of the agent's statements, run again on its connection."""
        with self.engine(tenant).begin() as conn:
            result = conn.execute(text(sql))
            if not result.returns_rows:  # e.g. a SET it ran: no rows to score
                return [], []
            return list(result.keys()), [[_as_utc(value) for value in row] for row in result]

    def close(self) -> None:
        for engine in self.engines.values():
            engine.dispose()


def _as_utc(value: Any) -> Any:
    """A timestamp with a time zone in UTC, as the harness's executor (asyncpg) returns it,
    so that the same instant compares equal whichever driver read it."""
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(UTC)
    return value


class UsageMeter(BaseCallbackHandler):
    """Model calls and tokens of one case, the query checker's calls included."""

    def __init__(self) -> None:
        self.calls = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.estimated = False
        self._prompts: dict[UUID, int] = {}

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        **kw: Any,
    ) -> None:
        self._prompts[run_id] = sum(approx_tokens(str(m.content)) for m in messages[0])

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kw: Any) -> None:
        self.calls += 1
        estimate = self._prompts.pop(run_id, 0)
        for generation in (g for batch in response.generations for g in batch):
            usage = getattr(getattr(generation, "message", None), "usage_metadata", None)
            if usage:
                self.prompt_tokens += usage.get("input_tokens", 0)
                self.completion_tokens += usage.get("output_tokens", 0)
            else:  # the provider sent no usage: estimated, as Orquestra's meter does
                self.estimated = True
                self.prompt_tokens += estimate
                self.completion_tokens += approx_tokens(generation.text or "")


async def run_baseline(
    baseline: Baseline, cases: list[Case], resources: Resources, *, concurrency: int = 2
) -> list[BaselineResult]:
    """Every case through the baseline, `concurrency` at a time, in dataset order."""
    cases = bind_tenants(cases, deployment_key(resources.catalog, resources.profile))
    gate = asyncio.Semaphore(concurrency)

    async def one(case: Case) -> BaselineResult:
        async with gate:
            return await run_baseline_case(baseline, case, resources)

    return list(await asyncio.gather(*(one(case) for case in cases)))


async def run_baseline_case(baseline: Baseline, case: Case, resources: Resources) -> BaselineResult:
    result = BaselineResult(case.id, case.tenant, " / ".join(case.messages))
    meter = UsageMeter()
    agent = await asyncio.to_thread(baseline.agent, case.tenant)  # SQLDatabase reads the schema
    config = {
        "configurable": {"thread_id": f"baseline-{case.id}"},
        "callbacks": [meter],
        # Super-steps alternate model, tools, model…: the last allowed one is the 15th model's.
        "recursion_limit": 2 * MAX_MODEL_TURNS - 1,
    }
    started = time.perf_counter()
    try:
        for message in case.messages:  # a conversation's turns, on one thread
            await agent.ainvoke({"messages": [HumanMessage(message)]}, config)
    except GraphRecursionError:
        result.error = "BASELINE_TURNS_EXHAUSTED"
    except Exception as exc:  # a provider's failure ends this case, not the evaluation
        log.warning("baseline case %s failed", case.id, exc_info=exc)
        result.error = f"BASELINE_FAILED: {type(exc).__name__}"
    result.latency_ms = (time.perf_counter() - started) * 1000
    # From the checkpoint: what it did up to a failure is scored too.
    messages: list[BaseMessage] = (await agent.aget_state(config)).values.get("messages", [])
    result.model_calls, result.tokens_estimated = meter.calls, meter.estimated
    result.prompt_tokens, result.completion_tokens = meter.prompt_tokens, meter.completion_tokens
    final = messages[-1] if messages else None
    result.answer = str(final.content) if isinstance(final, AIMessage) else ""
    result.queries = tool_queries(messages)
    await score_baseline(result, case, baseline, resources)
    return result


def tool_queries(messages: list[BaseMessage]) -> list[dict[str, Any]]:
    """Each `sql_db_query` the agent ran: its SQL and whether the database answered it."""
    answers = {m.tool_call_id: m for m in messages if isinstance(m, ToolMessage)}
    queries = []
    for message in messages:
        for call in getattr(message, "tool_calls", None) or []:
            if call["name"] != "sql_db_query":
                continue
            answer = answers.get(call["id"] or "")
            # SQLDatabase.run_no_throw answers an exception with text starting "Error:".
            ok = answer is not None and not str(answer.content).startswith("Error:")
            queries.append({"sql": call["args"].get("query", ""), "ok": ok})
    return queries
