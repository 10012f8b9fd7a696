"""Running rails and judges: concurrently, in YAML order, fail-closed, with telemetry.

`Guardrails.load()` builds each enabled entry once (natives by code, externals by import);
`check_input`, `check_output` and `judge` run every entry of a stage at the same time
(`asyncio.gather`; plain-function plugins through `asyncio.to_thread`) under a timeout.
Results keep the YAML order. A rail that raises or times out blocks, a judge that does
fails: nothing passes unchecked. Each outcome is counted in Prometheus and logged under its
published code (the telemetry mapping), never renaming the rail itself.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from prometheus_client import Counter, Histogram

from orquestra.guards.rails.config import (
    DEFAULT_GUARDRAILS,
    Entry,
    GuardrailsError,
    import_class,
    read_guardrails,
    read_mapping,
)
from orquestra.guards.rails.contracts import (
    JudgeCase,
    JudgeResult,
    Outcome,
    RailCheck,
    RailResult,
)
from orquestra.guards.rails.judges import Groundedness, RelevanceJudge
from orquestra.guards.rails.native_input import MessageSize, OutOfScope, PromptInjection, Toolkit
from orquestra.guards.rails.native_output import PersonalData
from orquestra.guards.rails.shape import AnswerShape

log = logging.getLogger("orquestra.guardrails")
Result = TypeVar("Result", RailResult, JudgeResult)

NATIVE: dict[str, dict[str, Callable[[Entry, Toolkit], Any]]] = {
    "input": {"PINJ": PromptInjection, "OOS": OutOfScope, "SIZE": MessageSize},
    "output": {"PII": PersonalData},
    "judges": {"GROUNDEDNESS": Groundedness, "RELEVANCE": RelevanceJudge, "SHAPE": AnswerShape},
}
OUTCOMES = Counter(
    "orquestra_guardrail_outcomes_total",
    "Guardrail and judge outcomes",
    ["stage", "rail", "code", "outcome"],
)
SECONDS = Histogram(
    "orquestra_guardrail_seconds",
    "Time to run all the rails or judges of a stage",
    ["stage"],
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5),
)


@dataclass(frozen=True)
class Loaded:
    """An enabled entry with its implementation and its resolved timeout."""

    entry: Entry
    impl: Any
    timeout_s: float
    semantic: str
    """`GRL.<CODE>` for rails, `JDG.<NAME>` for judges."""
    phases: frozenset[str] = frozenset(("knowledge", "answer"))
    """Judges: the answers they check."""


@dataclass(frozen=True)
class Decision:
    """A stage's outcome: allowed or not, the (possibly rewritten) text, every result."""

    allowed: bool
    text: str
    results: list[RailResult]
    blocked_by: RailResult | None = None


@dataclass
class Guardrails:
    """The deployment's rails and judges, ready to run."""

    input: list[Loaded] = field(default_factory=list)
    output: list[Loaded] = field(default_factory=list)
    judges: list[Loaded] = field(default_factory=list)
    mapping: dict[str, str] = field(default_factory=dict)

    @classmethod
    def load(
        cls, toolkit: Toolkit, path: Path | None = None, mapping_path: Path | None = None
    ) -> Guardrails:
        """Build every enabled entry of the file (the packaged defaults when `path` is None)."""
        spec = read_guardrails(path)
        try:
            built = {
                stage: [_build(stage, e, toolkit, spec.timeout_s) for e in entries if e.enabled]
                for stage, entries in (
                    ("input", spec.input),
                    ("output", spec.output),
                    ("judges", spec.judges),
                )
            }
        except GuardrailsError as error:
            raise GuardrailsError(f"{path or DEFAULT_GUARDRAILS}: {error}") from None
        return cls(built["input"], built["output"], built["judges"], read_mapping(mapping_path))

    def published(self, semantic: str) -> str:
        """The code operators see for a semantic code."""
        return self.mapping.get(semantic, semantic)

    def rail_code(self, rail_id: str) -> str:
        """The published code of a rail (`PINJ` → `GRL.PINJ` → the mapping's code)."""
        return self.published(f"GRL.{rail_id.upper()}")

    def output_applies(self, check: RailCheck) -> bool:
        """Whether any output rail may act on this run's answers (else tokens flow unbuffered)."""
        return any(
            getattr(rail.impl, "applies", lambda _check: True)(check) for rail in self.output
        )

    async def check_input(self, check: RailCheck) -> Decision:
        return await self._rails("input", self.input, check)

    async def check_output(self, check: RailCheck) -> Decision:
        """The output rails on a piece of answer; the text as the rewriting rails leave it."""
        decision = await self._rails("output", self.output, check)
        rewrites = [r for r in decision.results if r.outcome == "modified"]
        if not decision.allowed or not rewrites:
            return decision
        if len(rewrites) == 1:
            return replace(decision, text=str(rewrites[0].text))
        # Several rails rewrote the same text independently: compose them in YAML order,
        # each on the previous one's output (and still fail-closed).
        text = check.text
        for rail in self.output:
            if any(r.code == rail.entry.id for r in rewrites):
                result, failure = await _evaluate(rail, replace(check, text=text), RailResult)
                if result is None or not result.allowed:
                    reason = failure if result is None else result.reason
                    blocked = RailResult(False, reason, code=rail.entry.id)
                    return replace(decision, allowed=False, text=check.text, blocked_by=blocked)
                text = result.text if result.text is not None else text
        return replace(decision, text=text)

    def judges_for(self, phase: str) -> list[Loaded]:
        """The judges that check this kind of answer (`knowledge` or `answer`)."""
        return [judge for judge in self.judges if phase in judge.phases]

    async def judge(self, case: JudgeCase) -> list[JudgeResult]:
        """Every judge of the case's phase, at once; verdicts in YAML order."""
        started = time.perf_counter()
        judges = self.judges_for(case.phase)
        results = await asyncio.gather(*(self._judge(j, case) for j in judges))
        SECONDS.labels(stage="judges").observe(time.perf_counter() - started)
        return list(results)

    async def _rails(self, stage: str, rails: list[Loaded], check: RailCheck) -> Decision:
        started = time.perf_counter()
        results = list(await asyncio.gather(*(self._rail(stage, r, check) for r in rails)))
        SECONDS.labels(stage=stage).observe(time.perf_counter() - started)
        blocked = next((r for r in results if not r.allowed), None)
        return Decision(blocked is None, check.text, results, blocked)

    async def _rail(self, stage: str, rail: Loaded, check: RailCheck) -> RailResult:
        started = time.perf_counter()
        result, failure = await _evaluate(rail, check, RailResult)
        outcome: Outcome
        if result is None:  # fail closed: a rail that cannot decide blocks
            result, outcome = RailResult(False, failure), _failure_outcome(failure)
        elif not result.allowed:
            outcome = "block"
        elif result.text is not None and result.text != check.text:
            outcome = "modified"
        else:
            outcome = "pass"
        ms = round((time.perf_counter() - started) * 1000, 2)
        result = replace(result, code=rail.entry.id, outcome=outcome, ms=ms)
        self._record(stage, rail, outcome, ms, result.reason)
        return result

    async def _judge(self, judge: Loaded, case: JudgeCase) -> JudgeResult:
        started = time.perf_counter()
        result, failure = await _evaluate(judge, case, JudgeResult)
        outcome: Outcome
        if result is None:  # fail closed: an answer no judge could check is not passed
            result, outcome = JudgeResult(False), _failure_outcome(failure)
        else:
            outcome = "pass" if result.passed else "refuse" if judge.entry.refuses else "fail"
        ms = round((time.perf_counter() - started) * 1000, 2)
        result = replace(result, name=judge.entry.id, outcome=outcome, ms=ms)
        self._record("judges", judge, outcome, ms, result.feedback)
        return result

    def _record(self, stage: str, item: Loaded, outcome: str, ms: float, reason: str) -> None:
        published = self.published(item.semantic)
        OUTCOMES.labels(stage=stage, rail=item.entry.id, code=published, outcome=outcome).inc()
        log.info(
            "guardrail",
            extra={
                "stage": stage,
                "rail": item.entry.id,
                "code": published,
                "outcome": outcome,
                "ms": ms,
                "reason": reason,
            },
        )


async def _evaluate(
    item: Loaded, argument: RailCheck | JudgeCase, expected: type[Result]
) -> tuple[Result | None, str]:
    """`(result, "")`, or `(None, "timeout: …" | "error: …")` when the plugin did not decide."""
    try:
        async with asyncio.timeout(item.timeout_s):
            result = await _call(item.impl.evaluate, argument)
    except TimeoutError:
        return None, f"timeout: no decision within {item.timeout_s}s"
    except Exception as error:
        log.warning("rail or judge failed", exc_info=error, extra={"rail": item.entry.id})
        return None, f"error: the rail failed: {type(error).__name__}"
    if not isinstance(result, expected):
        name = type(result).__name__
        log.warning("rail or judge returned %s", name, extra={"rail": item.entry.id})
        return None, f"error: evaluate() returned {name}, not {expected.__name__}"
    return result, ""


def _failure_outcome(failure: str) -> Outcome:
    """The outcome `_evaluate`'s failure begins with: `timeout` or `error`."""
    return "timeout" if failure.startswith("timeout:") else "error"


async def _call(evaluate: Callable[[Any], Any], argument: Any) -> Any:
    """Await an async `evaluate`; run a plain one in a worker thread."""
    if inspect.iscoroutinefunction(evaluate):
        return await evaluate(argument)
    result = await asyncio.to_thread(evaluate, argument)
    return await result if isinstance(result, Awaitable) else result


def _build(stage: str, entry: Entry, toolkit: Toolkit, default_timeout: float) -> Loaded:
    where = {"input": "input rail", "output": "output rail", "judges": "judge"}[stage]
    prefix = "JDG" if stage == "judges" else "GRL"
    if entry.phases == []:
        raise GuardrailsError(f"{where} {entry.id}: `phases` lists no phase (disable it instead)")
    if entry.type == "external":
        plugin = import_class(entry, where)
        try:
            impl = plugin(**entry.plugin_arguments())
        except Exception as error:  # a plugin's own constructor: report, do not crash
            raise GuardrailsError(f"{where} {entry.id}: {entry.class_path}: {error}") from None
    else:
        native = NATIVE[stage].get(entry.id.upper())
        if native is None:
            known = ", ".join(sorted(NATIVE[stage]))
            raise GuardrailsError(f"{where} {entry.id}: no native {where} by that name ({known})")
        try:
            impl = native(entry, toolkit)
        except (TypeError, ValueError) as error:
            raise GuardrailsError(f"{where} {entry.id}: {error}") from None
    if entry.phases is not None and stage != "judges":
        raise GuardrailsError(f"{where} {entry.id}: `phases` is for judges")
    timeout = float(entry.setting("timeout_s", default_timeout))
    phases = frozenset(entry.phases or ("knowledge", "answer"))
    return Loaded(entry, impl, timeout, f"{prefix}.{entry.id.upper()}", phases)
