"""What a guardrail or a judge receives and returns: the contract natives and plugins share.

A rail (input or output) implements `evaluate(check: RailCheck) -> RailResult`, a judge
`evaluate(case: JudgeCase) -> JudgeResult`; either may be `async def` or a plain function
(plain ones run in a worker thread so they never block the event loop). An output rail may
also implement `applies(check) -> bool`: when no output rail applies to a run, answer
tokens stream unbuffered (PII applies only to tenants that ask for masking). Both receive the
framework's model through `model` and must not build a client of their own: calls through
`ModelAccess` count against the turn's budget and reach the configured tracing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar

from pydantic import BaseModel

T = TypeVar("T", bound=BaseModel)
Outcome = Literal["pass", "block", "modified", "fail", "refuse", "error", "timeout"]


@dataclass
class ModelAccess:
    """The framework's model for guardrails and judges (the `judge` role of the run)."""

    structured: Callable[[type[BaseModel], str, str], Awaitable[BaseModel]]
    """`await structured(Schema, system, user)`: a validated instance, budgeted and metered."""
    text: Callable[[str, str], Awaitable[str]]
    """`await text(system, user)`: a plain completion, budgeted and metered."""
    chat_model: Any = None
    """The LangChain chat model itself, for synchronous plugins (not budgeted)."""


@dataclass(frozen=True)
class RailCheck:
    """One text a rail decides on: the user's message (input) or part of an answer (output)."""

    text: str
    stage: Literal["input", "output"]
    tenant: str
    lang: str = "pt"
    history: str = ""
    """The thread's previous complete question, when there is one (follow-ups)."""
    clarifying: bool = False
    """The text answers a clarifying question the assistant asked."""
    mask_personal_data: bool = False
    """The tenant's settings ask for personal data to be masked in answers."""
    model: ModelAccess | None = None


@dataclass(frozen=True)
class RailResult:
    """A rail's decision; `text` replaces the checked text when an output rail rewrites it."""

    allowed: bool
    reason: str = ""
    text: str | None = None
    score: float | None = None
    code: str = ""
    """Filled in by the engine from the YAML entry."""
    outcome: Outcome = "pass"
    """Filled in by the engine: pass, block, modified, error or timeout."""
    ms: float = 0.0


@dataclass(frozen=True)
class JudgeCase:
    """An answer to judge, with everything it stands on."""

    question: str
    answer: str
    phase: Literal["knowledge", "answer"]
    """The librarian's concept answer, or the final data answer."""
    lang: str = "pt"
    columns: list[str] = field(default_factory=list)
    rows: list[list[Any]] = field(default_factory=list)
    row_count: int | None = None
    analysis: Mapping[str, Any] | None = None
    evidence: str = ""
    """Text the answer may quote: glossary terms and documents (knowledge), the SQL (data)."""
    today: str = ""
    timezone: str = ""
    """The run's time zone: the answer shows times there, the rows may hold UTC."""
    model: ModelAccess | None = None


@dataclass(frozen=True)
class JudgeResult:
    """A judge's verdict; `feedback` says what to fix when it did not pass."""

    passed: bool
    score: float | None = None
    feedback: str = ""
    name: str = ""
    """Filled in by the engine from the YAML entry."""
    outcome: Outcome = "pass"
    ms: float = 0.0


class Rail(Protocol):
    def evaluate(self, check: RailCheck) -> RailResult | Awaitable[RailResult]: ...


class Judge(Protocol):
    def evaluate(self, case: JudgeCase) -> JudgeResult | Awaitable[JudgeResult]: ...
