"""Fixtures for running the real graph with scripted models, on each deployment's database.

The graph's live resources are opened once per event loop (graph/resources.py); the harness
makes sure those of its deployment are the open ones, reopening them when the previous test
ran on the other deployment (pytest groups a session parameter's tests, so this is rare).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from langgraph.checkpoint.memory import InMemorySaver

from orquestra.agent.wiring import build_graph
from orquestra.core.settings import Caps
from orquestra.graph.context import ROLES, RunContext
from orquestra.graph.event_types import Event
from orquestra.graph.events import run_turn
from orquestra.graph.resources import Resources
from orquestra.offline.scripted import Script, reset_scripts, script
from tests.deployment_cases import DeploymentUnderTest
from tests.graph_resources import OpenResources
from tests.integration.graph.scripts import APPROVED, SCRIPTED, Scripted


@dataclass
class Turn:
    """The events of one turn (the typed models `run_turn` yields), with shortcuts that read
    their data as it goes out on the wire: a dict of the fields that were sent."""

    events: list[Event] = field(default_factory=list)

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e.payload() for e in self.events if e.event == kind]

    @property
    def result(self) -> dict[str, Any]:
        found = self.of("result")
        assert found, f"no result event; events: {[e.event for e in self.events]}"
        return found[0]

    @property
    def text(self) -> str:
        return "".join(t["text"] for t in self.of("token"))

    def nodes(self) -> list[str]:
        return [n["node"] for n in self.of("node") if n["status"] == "end"]


class Harness:
    """A compiled graph with an in-memory checkpointer and a scripted model for every role."""

    def __init__(
        self, tmp_path: Path, deployment: DeploymentUnderTest, resources: Resources
    ) -> None:
        self.tmp_path = tmp_path
        self.deployment = deployment
        self.resources = resources
        self.graph = build_graph(resources).compile(checkpointer=InMemorySaver())
        self.base = RunContext.from_settings(deployment.settings, tenant=deployment.tenant)
        self.script_path: Path | None = None

    @property
    def sql(self) -> Scripted:
        """The deployment's scripted SQL and the words of its questions."""
        return SCRIPTED[self.deployment.name]

    def use(self, roles: dict[str, list[Any]], repeat: tuple[str, ...] = ()) -> Script:
        """Script every role; the relevance judge approves unless the test scripts it."""
        if "judge" not in roles:
            roles, repeat = {**roles, "judge": [APPROVED]}, (*repeat, "judge")
        reset_scripts()
        self.script_path = self.tmp_path / "script.yaml"
        self.script_path.write_text(
            yaml.safe_dump({"roles": roles, "repeat": list(repeat)}, allow_unicode=True)
        )
        return script(self.script_path)

    async def ask(self, message: str, thread: str = "t1", **overrides: Any) -> Turn:
        models = {role: f"scripted:{self.script_path}" for role in ROLES}
        caps = {k: overrides.pop(k) for k in list(overrides) if k in Caps.model_fields}
        context = replace(
            self.base, models=models, caps=self.base.caps.model_copy(update=caps), **overrides
        )
        turn = Turn()
        async for event in run_turn(self.graph, message, thread_id=thread, context=context):
            turn.events.append(event)
        return turn

    async def state(self, thread: str = "t1") -> dict[str, Any]:
        snapshot = await self.graph.aget_state({"configurable": {"thread_id": thread}})
        return snapshot.values


@pytest.fixture
async def harness(
    tmp_path: Path, deployment: DeploymentUnderTest, open_resources: OpenResources
) -> Harness:
    return Harness(tmp_path, deployment, await open_resources.of(deployment.settings))


@pytest.fixture
def offline(harness: Harness) -> Harness:
    """The harness with the embedded offline model in every role (what a user without a key
    meets), not a script."""
    harness.base = replace(harness.base, models={role: "offline" for role in ROLES})
    harness.script_path = None
    return harness


async def ask_offline(harness: Harness, message: str, thread: str = "t1") -> Turn:
    """One turn with the harness's own context (the offline model, once `offline` set it)."""
    turn = Turn()
    async for event in run_turn(harness.graph, message, thread_id=thread, context=harness.base):
        turn.events.append(event)
    return turn
