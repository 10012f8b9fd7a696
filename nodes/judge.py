"""judge and answer_judge: the deployment's judges check an answer; failures drive a refinement.

`judge` checks the librarian's concept answer before it is streamed; `answer_judge` checks
the final data answer after it was streamed (so the first token is not delayed by the
judges). Every judge of the guardrails YAML runs at once (groundedness, relevance, external
ones). When one fails with feedback, the writer tries again with it (the librarian, or the
streamer, which first tells the client to drop the draft), at most `max_refine_rounds`
times per turn. Past the cap, or when a judge could not decide, the best answer goes out
with an honest note that it could not be fully verified, and the cap is recorded.
"""

from __future__ import annotations

from dataclasses import asdict, replace
from typing import Any, Literal

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from orquestra.core.texts import say
from orquestra.graph.context import RunContext
from orquestra.graph.hints import ModelHints
from orquestra.graph.llm import Meter
from orquestra.graph.metrics import CAP_HITS
from orquestra.graph.rails import model_access
from orquestra.graph.resources import Resources
from orquestra.graph.stage import stage
from orquestra.graph.state import AgentState
from orquestra.guards.rails import JudgeCase, JudgeResult


def judge_case(state: AgentState, phase: Literal["knowledge", "answer"], **extra: Any) -> JudgeCase:
    """What the judges see for this phase of the turn."""
    if phase == "knowledge":
        return JudgeCase(
            question=state.get("question", ""),
            answer=state.get("knowledge") or "",
            phase=phase,
            lang=state.get("lang", "pt"),
            evidence=state.get("knowledge_sources") or "",
            **extra,
        )
    result = state.get("result") or {}
    evidence = "\n".join(
        part
        for part in (state.get("sql") or "", state.get("knowledge") or "", state.get("assumption"))
        if part
    )
    return JudgeCase(
        question=state.get("question", ""),
        answer=state.get("answer") or "",
        phase=phase,
        lang=state.get("lang", "pt"),
        columns=list(result.get("columns") or []),
        rows=list(result.get("rows") or []),
        row_count=result.get("row_count"),
        analysis=state.get("analysis"),
        evidence=evidence,
        **extra,
    )


async def run_judges(
    state: AgentState,
    runtime: Runtime[RunContext],
    resources: Resources,
    phase: Literal["knowledge", "answer"],
) -> dict[str, Any]:
    """The judges' verdict as a state update: approved, refine with feedback, or noted."""
    context = runtime.context
    done: dict[str, Any] = {"judge_feedback": None, "judge_pending": False}
    if not resources.guardrails.judges_for(phase):
        return done
    meter = Meter.of(state, context, context.today_date(resources.settings))
    case = judge_case(state, phase, today=context.today, timezone=context.limits.timezone)
    judged = ModelHints(question=case.question, answer=case.answer, answer_kind=phase)
    case = replace(case, model=model_access(meter, resources, context, judged))
    if state.get("refine_rounds", 0) and case.answer.strip() == (state.get("sent_back") or ""):
        return {**done, **_unchanged(state)}  # the same answer again: no new verdict to ask for
    results = await resources.guardrails.judge(case)
    update = {**done, **meter.update(), "judgements": [_verdict(r) for r in results]}
    failed = [r for r in results if not r.passed]
    if not failed:
        return update
    if refused := [r for r in failed if r.outcome == "refuse"]:
        return {**update, **_refused(state, refused)}
    fixable = [r for r in failed if r.outcome == "fail" and r.feedback]
    rounds = state.get("refine_rounds", 0)
    if fixable and rounds < context.caps.max_refine_rounds:
        feedback = " ".join(r.feedback for r in fixable)
        return {
            **update,
            "judge_feedback": feedback,
            "refine_rounds": rounds + 1,
            "sent_back": case.answer.strip(),
        }
    caps = list(state.get("caps_hit") or [])
    if fixable:
        CAP_HITS.labels(cap="MAX_REFINE_ROUNDS").inc()
        caps.append("MAX_REFINE_ROUNDS")
    kind = "fail" if fixable else "error"
    names = ", ".join(r.name for r in failed)
    note = say(f"unverified.{kind}", state.get("lang", "pt"), names=names)
    return {**update, "caps_hit": caps, "verification_note": note}


def _refused(state: AgentState, refused: list[JudgeResult]) -> dict[str, Any]:
    """A result that does not answer the question as asked is withheld: the turn stops
    honestly (`ANSWER_REFUSED`), and its rows, cards and chart are not shown as the answer."""
    lang = state.get("lang", "pt")
    why = "; ".join(dict.fromkeys(r.feedback for r in refused if r.feedback))
    return {
        "stop_reason": "ANSWER_REFUSED",
        "last_error": why or say("stop.refused_unsaid", lang),
        "result": None,
        "cards": None,
        "chart": None,
        "display": None,
        "analysis": None,
    }


def _unchanged(state: AgentState) -> dict[str, Any]:
    """The refinement ends on a rewrite identical to the answer sent back: it goes out with
    the note of the judges that failed it, as at the cap, without asking them again."""
    failed = [v["name"] for v in state.get("judgements") or [] if not v.get("passed")]
    note = say("unverified.fail", state.get("lang", "pt"), names=", ".join(failed))
    return {"verification_note": note}


def _verdict(result: JudgeResult) -> dict[str, Any]:
    verdict = asdict(result)
    return {k: verdict[k] for k in ("name", "passed", "score", "outcome", "feedback", "ms")}


def _summary(update: dict[str, Any]) -> str:
    if update.get("stop_reason") == "ANSWER_REFUSED":
        return "refused"
    if update.get("judge_feedback"):
        return "refine"
    if update.get("verification_note"):
        return "unverified"
    return "approved"


def _details(update: dict[str, Any]) -> dict[str, Any]:
    verdicts = update.get("judgements") or []
    return {"judges": {v["name"]: v["outcome"] for v in verdicts}} if verdicts else {}


@stage("judge", summary=_summary, details=_details)
async def judge(
    state: AgentState, runtime: Runtime[RunContext], resources: Resources
) -> dict[str, Any]:
    update = await run_judges(state, runtime, resources, "knowledge")
    note = update.pop("verification_note", None)
    if note:
        update["knowledge"] = f"{state.get('knowledge') or ''}\n\n{note}".strip()
    return update


@stage("answer_judge", summary=_summary, details=_details)
async def answer_judge(
    state: AgentState, runtime: Runtime[RunContext], resources: Resources
) -> dict[str, Any]:
    update = await run_judges(state, runtime, resources, "answer")
    note = update.pop("verification_note", None)
    if note:
        addition = f"\n\n{note}"
        runtime.stream_writer({"event": "token", "text": addition})
        answer = f"{state.get('answer') or ''}{addition}"
        last = state["messages"][-1] if state.get("messages") else None
        update["answer"] = answer
        update["messages"] = [AIMessage(content=answer, id=getattr(last, "id", None))]
    return update
