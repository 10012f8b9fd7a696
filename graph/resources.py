"""Live handles the stages use: database pools, catalog, guard policy, embeddings, stores.

Whoever runs the graph opens them (`Resources.open(settings)`) and hands them to the graph's
builder (`agent.wiring.build_graph(resources)`), which gives them to every stage: the server's
lifespan, `orquestra ask`, the evaluation harness and the benchmarks do so, and close them
when they are done. LangGraph Server (`langgraph dev`, Studio, the Platform) builds the graph
at import: its graph holds an `OnFirstRun`, which the custom app's lifespan opens at start-up
(`agent.studio`); a run finds them open, and opens them itself only where that start-up did
not run on its event loop. Nothing opens at import, and no module keeps them in a global.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import asyncpg

from orquestra.core.database import (
    Connection,
    admin_url,
    agent_url,
    connect_agent,
    ensure_state_database,
    state_scope,
)
from orquestra.core.deployment import Deployment, Profile
from orquestra.core.settings import Settings
from orquestra.ddl_catalog import Catalog, load_catalog
from orquestra.ddl_catalog.knowledge import Chunk, Example, load_chunks, load_examples
from orquestra.ddl_catalog.selection import SourceIndex
from orquestra.graph import tracing
from orquestra.graph.embeddings import build_embeddings
from orquestra.graph.models import prepare_models
from orquestra.graph.reviewed_examples import ReviewedExample, ReviewedExamples
from orquestra.graph.sources import source_index
from orquestra.graph.tenant_directory import TenantDirectory, open_directory
from orquestra.graph.tenant_note import NoteAllowance
from orquestra.graph.vector_cache import VectorCache
from orquestra.guards import GuardPolicy
from orquestra.guards.rails import Guardrails, Toolkit
from orquestra.guards.tenant_key import deployment_key
from orquestra.guards.tenant_names import TenantNames
from orquestra.sandbox.pool import AnalysisPool


@dataclass
class Resources:
    """Everything a run needs that is not in the state or the run context."""

    settings: Settings
    catalog: Catalog
    policy: GuardPolicy
    agent_pool: asyncpg.Pool
    """Connections as the least-privilege agent role: tenant queries only."""
    admin_pool: asyncpg.Pool
    """Connections as the owner of the data: reads it needs whole (tenant names), never
    tenant queries."""
    vectors: VectorCache
    sources: SourceIndex
    guardrails: Guardrails = field(default_factory=Guardrails)
    """Input rails, output rails and judges declared in the guardrails YAML."""
    analysis_pool: AnalysisPool | None = None
    """Warm, confined worker processes for the analyzer."""
    examples: list[Example] = field(default_factory=list)
    chunks: list[Chunk] = field(default_factory=list)
    tenants: TenantDirectory = field(default_factory=lambda: TenantDirectory.fixed(TenantNames({})))
    """Every tenant's name, when the catalog names the tenants' own table; read again while
    serving (`for_asker`), so a tenant added later is recognised by name."""
    deployment: Deployment | None = None
    """The deployment served (profile, folders); `None` only in hand-built test resources."""
    state_pool: asyncpg.Pool | None = None
    """Connections to Orquestra's own state database (threads, embedding cache), which is not
    the data database unless `ORQUESTRA_STATE_URL` says so; None: the same pool as admin's."""
    note_allowance: NoteAllowance | None = None
    """Each person's remaining "another tenant named" notes (state database); None when the
    note is off (or in hand-built test resources): no answer then says a name is a tenant's."""
    reviewed: ReviewedExamples = field(
        default_factory=lambda: ReviewedExamples(pool=None, scope="", timeout_s=1.0)
    )
    """The examples reviewers approved (state database), read again when one changes."""

    @property
    def tenant_names(self) -> TenantNames:
        """The tenants' names as last read (a turn reads them through `tenants.for_asker`)."""
        return self.tenants.names

    @property
    def state(self) -> asyncpg.Pool:
        return self.state_pool or self.admin_pool

    @property
    def profile(self) -> Profile:
        """The deployment's profile: every business word shown to a person comes from it."""
        deployment = self.deployment or self.settings.active_deployment
        return deployment.profile

    @classmethod
    async def open(cls, settings: Settings, *, guardrails: Guardrails | None = None) -> Resources:
        """Open everything the stages need for `settings`' deployment; `close()` when done.
        `guardrails` already loaded from the settings' file (the command line checks the file
        before serving) are used as they are rather than read again."""
        return await _build(settings, guardrails)

    async def close(self) -> None:
        await asyncio.to_thread(tracing.flush)  # traces still buffered go out before exit
        if self.analysis_pool is not None:
            await self.analysis_pool.close()
        pools = {id(p): p for p in (self.agent_pool, self.admin_pool, self.state)}
        await asyncio.gather(*(p.close() for p in pools.values()))

    async def nearest_examples(
        self, question: str, kind: str, *, asker: str, k: int = 3
    ) -> list[Example]:
        pool = [e for e in self.examples if e.kind == kind] or self.examples
        query = await self.vectors.query(question, asker=asker)
        found = await self.vectors.nearest([e.question for e in pool], query, k)
        return [pool[i] for i in found]

    async def nearest_reviewed(
        self, question: str, *, tenant: str, asker: str, k: int = 3
    ) -> list[tuple[ReviewedExample, float]]:
        """The approved examples `tenant` may see nearest to `question`, with their
        similarity (cosine, of the question to each example's template question)."""
        seen = await self.reviewed.seen_by(tenant)
        if not seen:
            return []
        query = await self.vectors.query(question, asker=asker)
        scores = await self.vectors.passages([e.template_question for e in seen]) @ query
        ranked = sorted(zip(seen, scores.tolist(), strict=True), key=lambda pair: -pair[1])
        return ranked[:k]

    async def nearest_chunks(self, question: str, *, asker: str, k: int = 3) -> list[Chunk]:
        query = await self.vectors.query(question, asker=asker)
        found = await self.vectors.nearest([c.embedded() for c in self.chunks], query, k)
        return [self.chunks[i] for i in found]


_warm_ups: list[Callable[[Settings], None]] = []


def warm_up(fn: Callable[[Settings], None]) -> Callable[[Settings], None]:
    """Register blocking start-up work (reading files, importing what is imported on first
    use) that a higher layer needs done when the resources open, given their settings, off
    the event loop: the runtime never imports the stages themselves."""
    _warm_ups.append(fn)
    return fn


ResourceSource = Callable[[], Awaitable[Resources]]
"""Where the stages get the resources: the open ones, or an opener run on first use."""


class OnFirstRun:
    """The resources of `settings` (read when first needed), opened once per event loop by
    whoever asks first: LangGraph Server's start-up (`agent.studio`'s lifespan awaits it),
    else, as the fallback, the first run on a loop that start-up did not serve."""

    def __init__(self, settings: Callable[[], Settings] = Settings) -> None:
        self._settings = settings
        self._opened: Resources | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock: asyncio.Lock | None = None

    async def __call__(self) -> Resources:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # pools belong to one event loop: a new loop opens anew
            self._loop, self._lock, self._opened = loop, asyncio.Lock(), None
        assert self._lock is not None
        async with self._lock:
            if self._opened is None:
                settings = await asyncio.to_thread(self._settings)
                self._opened = await Resources.open(settings)
            return self._opened

    async def close(self) -> None:
        if self._opened is not None:
            opened, self._opened = self._opened, None
            await opened.close()


async def _build(settings: Settings, guardrails: Guardrails | None) -> Resources:
    """Everything `Resources.open` returns, opened in order: files first (an invalid one
    stops start-up before any pool opens), then the databases, models and workers."""
    # Usually resolved when the settings were read; a thread all the same (files).
    deployment = await asyncio.to_thread(lambda: settings.active_deployment)
    folder = settings.catalog_folder
    # Blocking work (files, starting the embedded server, loading the embedding model) runs
    # in a thread so the event loop keeps serving.
    catalog = await asyncio.to_thread(load_catalog, folder)
    deployment_key(catalog, deployment.profile)  # profile and catalog agree on tenancy
    # Before any pool opens: an invalid guardrails file stops start-up with a clear error.
    if guardrails is None:
        toolkit = Toolkit(catalog, settings.limits.max_message_chars, deployment.profile)
        guardrails = await asyncio.to_thread(
            Guardrails.load, toolkit, settings.guardrails_file, settings.observability_mapping_file
        )
    await asyncio.to_thread(tracing.configure, settings)
    urls = await asyncio.to_thread(lambda: (agent_url(settings), admin_url(settings)))
    # A clear error if unreachable, or if the agent's role was never created.
    await (await connect_agent(settings)).close()
    # Connecting is bounded like the server's own database work: a lost server is an error
    # within seconds, not a minute's wait.
    bound = settings.limits.database_timeout_s
    agent_pool = await asyncpg.create_pool(
        urls[0], min_size=1, max_size=10, timeout=bound, connection_class=Connection
    )
    admin_pool = await asyncpg.create_pool(urls[1], min_size=1, max_size=8, timeout=bound)
    state = await ensure_state_database(settings)
    state_pool = (
        admin_pool
        if state == urls[1]
        else await asyncpg.create_pool(state, min_size=1, max_size=8, timeout=bound)
    )
    embeddings = await asyncio.to_thread(build_embeddings, settings.embeddings)
    vectors = await VectorCache.open(embeddings, state_pool, settings.data_dir / "cache")
    examples, chunks = await asyncio.to_thread(lambda: (load_examples(folder), load_chunks(folder)))
    async with vectors.filling():  # replicas starting together embed each text once
        index = await source_index(catalog, vectors)
        await vectors.passages([e.question for e in examples])
        await vectors.passages([c.embedded() for c in chunks])
    for warm in _warm_ups:  # the stages' own files (prompts), read now rather than in a run
        await asyncio.to_thread(warm, settings)
    await asyncio.to_thread(prepare_models, settings)  # clients imported, catalogs read
    policy = GuardPolicy.from_catalog(catalog)
    pool = await AnalysisPool(settings.analysis_workers, settings.limits.analysis_timeout_s).start()
    resources = Resources(
        settings,
        catalog,
        policy,
        agent_pool,
        admin_pool,
        vectors,
        index,
        guardrails,
        pool,
        examples,
        chunks,
        await open_directory(
            catalog, admin_pool, refresh_s=settings.tenant_names_refresh_s, timeout_s=bound
        ),
        deployment,
        state_pool=state_pool,
        note_allowance=await _note_allowance(settings, state_pool, urls[1]),
        reviewed=ReviewedExamples(
            state_pool, state_scope(settings.active_deployment.name, urls[1]), bound
        ),
    )
    return resources


async def _note_allowance(
    settings: Settings, state_pool: asyncpg.Pool, admin: str
) -> NoteAllowance | None:
    """The notes' allowance in the state database, its table ready; None when the note is off.
    Counted per deployment and data database (`admin`'s), as `server.threads.thread_scope`."""
    if not settings.tenant_name_note.enabled:
        return None
    scope = state_scope(settings.active_deployment.name, admin)
    bound = settings.limits.database_timeout_s
    allowance = NoteAllowance(state_pool, settings.tenant_name_note, timeout_s=bound, scope=scope)
    await allowance.ensure_table()
    return allowance
