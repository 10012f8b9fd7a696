"""Native judges: groundedness (deterministic) and relevance (the framework's judge model).

Their verdicts feed the refine loop: a failed judge's `feedback` goes back to the writer of
the answer, at most `max_refine_rounds` times per turn.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from orquestra.guards.rails.config import Entry
from orquestra.guards.rails.contracts import JudgeCase, JudgeResult
from orquestra.guards.rails.native_input import Toolkit
from orquestra.guards.rails.numbers import Evidence, ungrounded

RELEVANCE_PROMPT = Path(__file__).with_name("relevance.md")
SHOWN_MISSING = 6


class Groundedness:
    """Every number and date in the answer appears in the result, the analysis or the sources.

    The score is the share of the answer's numbers found in the evidence (1.0 with none);
    it passes at `threshold` (default 1.0: every number). Numbers in the question and the
    run's "today" count as evidence, since an answer may repeat them.
    """

    def __init__(self, entry: Entry, toolkit: Toolkit) -> None:
        del toolkit
        self.threshold = float(entry.setting("threshold", 1.0))

    async def evaluate(self, case: JudgeCase) -> JudgeResult:
        evidence = Evidence(
            [case.rows, case.analysis, case.row_count, len(case.rows)],
            [case.evidence],
            case.timezone,
            asked=[case.question, case.today],
        )
        missing, checked = ungrounded(case.answer, evidence)
        score = 1.0 if not checked else round(1 - len(missing) / checked, 4)
        if score >= self.threshold:
            return JudgeResult(passed=True, score=score)
        shown = "; ".join(missing[:SHOWN_MISSING])
        source = "the glossary or the documents" if case.phase == "knowledge" else "the result"
        return JudgeResult(
            passed=False,
            score=score,
            feedback=f"These numbers are not in {source}: {shown}. Quote only numbers that "
            "appear there (or in the analysis), or leave them out.",
        )


class Relevance(BaseModel):
    """What the judge model returns."""

    addresses_question: bool
    score: float | None = None
    """Optional confidence in [0, 1] that the answer addresses the question."""
    feedback: str = ""


def relevance_prompt(toolkit: Toolkit) -> str:
    """The judge's instructions, naming the deployment's assistant and business."""
    profile = toolkit.profile
    words = {
        "assistant": profile.assistant_name if profile else "Orquestra",
        "business": " ".join(profile.text("business", None).split()) if profile else "",
    }
    text = RELEVANCE_PROMPT.read_text(encoding="utf-8")
    for key, value in words.items():
        text = text.replace("{{" + key + "}}", value)
    return text


class RelevanceJudge:
    """The answer addresses the question asked (the judge model decides).

    Passes when the model says so and, if it gives a score, the score reaches `threshold`
    (default 0.5).
    """

    def __init__(self, entry: Entry, toolkit: Toolkit) -> None:
        self.threshold = float(entry.setting("threshold", 0.5))
        self.system = relevance_prompt(toolkit)

    async def evaluate(self, case: JudgeCase) -> JudgeResult:
        if case.model is None:
            raise RuntimeError("the relevance judge needs the framework's model")
        kind = "concept explanation" if case.phase == "knowledge" else "data answer"
        user = f"## Question\n{case.question}\n\n## Answer\n{case.answer}\n\n## Kind\n{kind}"
        verdict = await case.model.structured(Relevance, self.system, user)
        assert isinstance(verdict, Relevance)
        score = verdict.score if verdict.score is not None else float(verdict.addresses_question)
        passed = verdict.addresses_question and score >= self.threshold
        feedback = "" if passed else (verdict.feedback or "answer the question that was asked")
        return JudgeResult(passed=passed, score=score, feedback=feedback)
