"""The stages fill the facts an in-process model answers from (`ModelHints`), and a hosted
model's call carries none.

Stages run alone on fakes holding only what they read; the model is a recorder that keeps
the hints each call hands it.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from orquestra.core.settings import Settings
from orquestra.ddl_catalog import DEMO_CATALOG_DIR, load_catalog
from orquestra.graph.context import RunContext
from orquestra.graph.hints import HINTS_KEY, ModelHints
from orquestra.graph.llm import Meter, chat
from orquestra.graph.local_model import LocalChatModel
from orquestra.graph.resources import Resources
from orquestra.graph.state import AgentState
from orquestra.graph.tenant_directory import TenantDirectory
from orquestra.guards.tenant_names import TenantNames
from orquestra.nodes import fixer as fixer_stage
from orquestra.nodes import sql_writer as writer_stage

CATALOG = load_catalog(DEMO_CATALOG_DIR)
RUN = RunContext(tenant="101", today="2026-06-30")


class Recorder(LocalChatModel):
    """An in-process model answering `answer` and keeping every call's hints."""

    answer: dict[str, Any]
    seen: list[ModelHints] = Field(default_factory=list)

    async def respond(
        self, messages: list[BaseMessage], schema: type[BaseModel] | None, hints: ModelHints
    ) -> dict[str, Any]:
        self.seen.append(hints)
        return self.answer


def resources() -> Resources:
    settings = Settings()

    async def nearest_examples(question: str, *_: object, **__: object) -> list[object]:
        return []

    fake = SimpleNamespace(
        settings=settings,
        catalog=CATALOG,
        examples=[],
        profile=settings.active_deployment.profile,
        tenants=TenantDirectory.fixed(TenantNames({"101": "Aurora Alimentos S.A."})),
        nearest_examples=nearest_examples,
        nearest_reviewed=nearest_examples,  # none reviewed
    )
    return cast(Resources, fake)


def runtime() -> Runtime[RunContext]:
    return Runtime(context=RUN, stream_writer=lambda _event: None)


def serving(monkeypatch: pytest.MonkeyPatch, stage: Any, answer: dict[str, Any]) -> Recorder:
    model = Recorder(role="test", answer=answer)
    monkeypatch.setattr(stage, "model_for", lambda role, context, settings: model)
    return model


async def test_the_fixer_hands_over_the_failing_sql_the_error_and_the_findings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = serving(monkeypatch, fixer_stage, {"sql": "SELECT 1", "explanation": ""})
    problem = {"kind": "unknown_column", "name": "data_emisao", "suggestions": ["data_emissao"]}
    state = {
        "messages": [],
        "question": "notas emitidas em maio",
        "draft_sql": "SELECT data_emisao FROM notas_fiscais",
        "last_error": 'column "data_emisao" does not exist',
        "sql_problems": [problem],
        "schema_text": "(schema)",
        "lang": "pt",
    }
    await fixer_stage.fixer(cast(AgentState, state), runtime(), resources())
    [hints] = model.seen
    assert hints.failing_sql == "SELECT data_emisao FROM notas_fiscais"
    assert hints.error == 'column "data_emisao" does not exist'
    assert hints.sql_problems == (problem,)
    assert hints.question == "notas emitidas em maio"
    assert (hints.today.isoformat() if hints.today else None, hints.lang) == ("2026-06-30", "pt")


async def test_the_writer_hands_over_the_sql_tried_and_the_askers_own_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    answer = {"thought_process": "", "sql": "SELECT 2", "missing_info": None, "confidence": 1}
    model = serving(monkeypatch, writer_stage, answer)
    tried = [
        {"sql": "SELECT count(*) FROM pedidos", "outcome": "zero_rows", "row_count": 0},
        {"sql": "SELECT count(*) FROM notas_fiscais", "outcome": "error", "error": "X: y"},
    ]
    state = {
        "messages": [],
        "question": "faturamento da Aurora Alimentos",
        "route": "ANALYTICS",
        "schema_text": "(schema)",
        "attempts": tried,
    }
    await writer_stage.sql_writer(cast(AgentState, state), runtime(), resources())
    [hints] = model.seen
    assert hints.tried_sql == ("SELECT count(*) FROM pedidos", "SELECT count(*) FROM notas_fiscais")
    assert hints.own_company_names == ("Aurora Alimentos",)
    assert hints.question == "faturamento da Aurora Alimentos"


class _Empty(BaseModel):
    """A schema with nothing to fill."""


class _Budgets:
    """Only the budgets `Meter.of` reads."""

    class caps:
        max_model_calls_per_turn = 8

    class limits:
        model_retries = 0
        model_wait_s = 0.0


class Hosted(BaseChatModel):
    """Stands for a hosted model: not in-process; keeps the metadata each call carries."""

    metadata_seen: list[dict[str, Any]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "hosted-stand-in"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **_: Any
    ) -> ChatResult:
        self.metadata_seen.append(dict(getattr(run_manager, "metadata", None) or {}))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content="ok"))])


async def test_a_hosted_models_call_carries_no_hints() -> None:
    meter = Meter.of({"lang": "en"}, _Budgets(), RUN.today_date(Settings()))
    hosted, local = Hosted(), Recorder(role="chat", answer={})
    await meter.text(hosted, "chat", chat("system", "user"), hints=ModelHints(question="q"))
    assert hosted.metadata_seen and all(HINTS_KEY not in m for m in hosted.metadata_seen)
    await meter.structured(local, "chat", _Empty, chat("system", "user"), ModelHints(question="q"))
    assert local.seen[-1].question == "q" and local.seen[-1].lang == "en"
