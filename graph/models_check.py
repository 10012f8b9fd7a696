"""`orquestra models check`: what each role's model can do, found by asking it once.

Per role: the provider, the structured-output method that works (for `auto`, the strictest the
provider accepts — found here once, as a first real call would), whether it streams, whether
its stream reports usage, and how long each probe took. A failure is printed with its code
(`MODEL_AUTH`, `MODEL_RATE_LIMITED`, …), which is what a user needs to see right after
setting a key.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field, replace

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, Field

from orquestra.core.settings import Settings
from orquestra.graph.context import ROLES, RunContext
from orquestra.graph.llm import Meter, chat
from orquestra.graph.local_model import LocalChatModel
from orquestra.graph.model_errors import ModelError
from orquestra.graph.models import model_for, spec_for
from orquestra.graph.structured import chosen, configured

PROBE_SYSTEM = "You check that a connection works. Answer briefly."


class Probe(BaseModel):
    """The smallest structured answer: it proves the schema round trip."""

    ok: bool = Field(description="Always true.")
    word: str = Field(description="The word 'ready'.")


@dataclass
class RoleCheck:
    role: str
    spec: str
    provider: str
    configured: str
    """The configured structured-output method (`auto` unless set)."""
    structured: str | None = None
    """The method that worked, or None."""
    streams: bool = False
    usage: bool = False
    """The streamed answer reported token usage (otherwise Orquestra estimates it)."""
    structured_ms: float | None = None
    stream_ms: float | None = None
    error: str | None = None
    """`CODE: detail` of the first failure."""
    shared_with: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


async def check_models(settings: Settings) -> list[RoleCheck]:
    """Probe each distinct model once and report it for every role that uses it."""
    context = RunContext.from_settings(settings)
    done: dict[int, RoleCheck] = {}
    checks: list[RoleCheck] = []
    for role in ROLES:
        spec = spec_for(role, context, settings)
        try:
            model = model_for(role, context, settings)
        except ModelError as failure:
            checks.append(_unbuilt(role, spec, failure))
            continue
        if id(model) in done:
            first = done[id(model)]
            first.shared_with.append(role)
            checks.append(replace(first, role=role, shared_with=[]))
            continue
        check = await _probe(role, spec, model)
        done[id(model)] = check
        checks.append(check)
    return checks


def _unbuilt(role: str, spec: str, failure: ModelError) -> RoleCheck:
    return RoleCheck(role, spec, _provider(spec), "-", error=f"{failure.code}: {failure.detail}")


async def _probe(role: str, spec: str, model: BaseChatModel) -> RoleCheck:
    check = RoleCheck(role, spec, _provider(spec), configured(model)[1])
    if isinstance(model, LocalChatModel):
        # The offline and scripted models run in this process and answer their role's own
        # prompts only: there is no provider to probe. Their token counts are approximations.
        check.structured, check.streams = "in-process", True
        return check
    meter = Meter(calls=0, prompt_tokens=0, completion_tokens=0, budget=8, retries=0)
    started = time.perf_counter()
    try:
        await meter.structured(model, role, Probe, chat(PROBE_SYSTEM, "Say ready."))
        check.structured = chosen(model) or check.configured
    except ModelError as failure:
        check.error = f"{failure.code}: {failure.detail}"
        return check
    except Exception as error:  # invalid output, for instance: still a fact to report
        check.error = f"{getattr(error, 'code', type(error).__name__)}: {error}"
        return check
    finally:
        check.structured_ms = round((time.perf_counter() - started) * 1000, 1)
    started = time.perf_counter()
    meter.estimated = False
    try:
        text = await meter.text(model, role, chat(PROBE_SYSTEM, "Say ready."))
        check.streams = bool(text.strip())
        check.usage = not meter.estimated
    except ModelError as failure:
        check.error = f"{failure.code}: {failure.detail}"
    check.stream_ms = round((time.perf_counter() - started) * 1000, 1)
    return check


def _provider(spec: str) -> str:
    return spec.split(":", 1)[0] if ":" in spec else spec


def table(checks: list[RoleCheck]) -> str:
    """The report as aligned text, one line per role."""
    lines = [
        f"{'role':<11} {'model':<28} {'structured':<24} {'stream':<7} {'usage':<9} "
        f"{'ms (structured/stream)':<22} error"
    ]
    for c in checks:
        structured = c.structured or "-"
        if c.configured == "auto" and c.structured:
            structured += " (auto)"
        timing = f"{c.structured_ms or '-'} / {c.stream_ms or '-'}"
        usage = "yes" if c.usage else ("estimated" if c.streams else "-")
        if c.structured == "in-process":
            usage = "approx."
        lines.append(
            f"{c.role:<11} {c.spec[:28]:<28} {structured:<24} {'yes' if c.streams else '-':<7} "
            f"{usage:<9} {timing:<22} {c.error or ''}"
        )
    return "\n".join(lines)
