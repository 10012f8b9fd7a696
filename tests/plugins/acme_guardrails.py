"""External rails and judges for the tests: the shape a deployment's own package takes.

Imported only when a guardrails YAML declares them with `type: external`.
"""

from __future__ import annotations

import asyncio
import os
import threading
from typing import ClassVar

from pydantic import BaseModel

from orquestra.guards.rails import JudgeCase, JudgeResult, RailCheck, RailResult

LOADED = True
"""Set at import, so a test can see whether this module was imported at all."""


class ForbiddenWord:
    """ACME_WORD: blocks messages with the configured word (a plain, synchronous plugin)."""

    def __init__(self, word: str = "concorrente") -> None:
        self.word = word
        self.threads: list[str] = []

    def evaluate(self, check: RailCheck) -> RailResult:
        self.threads.append(threading.current_thread().name)
        if self.word in check.text.lower():
            return RailResult(allowed=False, reason=f"mentions {self.word}")
        return RailResult(allowed=True)


class Meeting:
    """Waits at a shared barrier: it only passes if `parties` rails run at the same time."""

    barriers: ClassVar[dict[str, asyncio.Barrier]] = {}

    def __init__(self, group: str, parties: int, delay: float = 0.0) -> None:
        self.group, self.parties, self.delay = group, parties, delay

    async def evaluate(self, check: RailCheck) -> RailResult:
        barrier = Meeting.barriers.setdefault(self.group, asyncio.Barrier(self.parties))
        await barrier.wait()
        await asyncio.sleep(self.delay)
        return RailResult(allowed=True, reason=f"met after {self.delay}")


class ThreadMeeting:
    """A synchronous rail meeting others at a thread barrier (so each runs in its own thread)."""

    barriers: ClassVar[dict[str, threading.Barrier]] = {}

    def __init__(self, group: str, parties: int) -> None:
        self.group, self.parties = group, parties

    def evaluate(self, check: RailCheck) -> RailResult:
        barrier = ThreadMeeting.barriers.setdefault(self.group, threading.Barrier(self.parties))
        barrier.wait(timeout=5)  # raises BrokenBarrierError if run one after another
        return RailResult(allowed=True)


class Exploding:
    """A rail that fails: the decision must be fail-closed."""

    async def evaluate(self, check: RailCheck) -> RailResult:
        raise RuntimeError("the policy service is down")


class Sleepy:
    """A rail that takes longer than its timeout."""

    def __init__(self, seconds: float = 5.0) -> None:
        self.seconds = seconds

    async def evaluate(self, check: RailCheck) -> RailResult:
        await asyncio.sleep(self.seconds)
        return RailResult(allowed=True)


class Redact:
    """Rewrites a word in answers (an output rail that modifies text)."""

    def __init__(self, word: str, replacement: str) -> None:
        self.word, self.replacement = word, replacement

    async def evaluate(self, check: RailCheck) -> RailResult:
        return RailResult(allowed=True, text=check.text.replace(self.word, self.replacement))


class Tone(BaseModel):
    polite: bool
    score: float


class ToneJudge:
    """ACME_TONE: asks the framework's model whether the answer is polite (never its own client)."""

    def __init__(self, threshold: float = 0.6) -> None:
        self.threshold = threshold

    async def evaluate(self, case: JudgeCase) -> JudgeResult:
        assert case.model is not None
        verdict = await case.model.structured(Tone, "Is this answer polite?", case.answer)
        assert isinstance(verdict, Tone)
        passed = verdict.polite and verdict.score >= self.threshold
        return JudgeResult(passed=passed, score=verdict.score, feedback="" if passed else "be kind")


class BrokenJudge:
    """A synchronous judge that fails."""

    def evaluate(self, case: JudgeCase) -> JudgeResult:
        raise ValueError("cannot judge")


class WrongShape:
    """Returns a dict instead of a RailResult: a broken plugin, which must not pass."""

    async def evaluate(self, check: RailCheck) -> dict:
        return {"allowed": True}


class LoadCounter:
    """Allows everything, and appends a line to `record` each time it is built: how many
    times a process loaded the guardrails file."""

    def __init__(self, record: str) -> None:
        with open(record, "a", encoding="utf-8") as out:
            out.write(f"{os.getpid()}\n")

    def evaluate(self, check: RailCheck) -> RailResult:
        return RailResult(allowed=True)
