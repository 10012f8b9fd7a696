"""streamer: the final answer, streamed token by token, and the turn's bookkeeping.

A data answer is written by the answer role from a preview of the result (never hundreds of
rows); a turn that stopped early gets the deterministic honest answer; static replies, the
librarian's answer and clarified assumptions are streamed as they are. Every answer passes
the output rails on its way out (`graph.rails.AnswerStream`). A data answer the judges sent
back is rewritten with their feedback, after telling the client to drop the draft. The
answer is then appended to the conversation, and the complete question remembered for
follow-ups.
"""

from __future__ import annotations

import json
from datetime import date, datetime
from typing import Any, cast

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from orquestra.core.texts import say
from orquestra.ddl_catalog.wording import voice_of
from orquestra.graph.context import RunContext
from orquestra.graph.hints import ModelHints, ShownRows
from orquestra.graph.llm import Meter, chat
from orquestra.graph.model_errors import ModelError
from orquestra.graph.models import model_for, spec_for
from orquestra.graph.rails import AnswerStream, rail_check
from orquestra.graph.resources import Resources
from orquestra.graph.stage import stage
from orquestra.graph.state import AgentState, QueryResultState, present
from orquestra.nodes.display import column_periods, local, period_label
from orquestra.nodes.honest import model_failed, stop_answer
from orquestra.nodes.prompts import prompt, sections
from orquestra.nodes.units import row_limit, truncated_periods
from orquestra.sandbox.analysis import Analysis, Trend, share_scope

PREVIEW_ROWS = 20
"""Said when the question names another tenant: the guard answered with the asker's rows."""


def not_yours(state: AgentState) -> str:
    """The note for a message that named another tenant: "" unless `input_rails` noted one
    (one name at most, while the person has notes left)."""
    names = state.get("other_tenants_named") or []
    if not names:
        return ""
    return say("not_yours", state.get("lang", "pt"), name=f"“{names[0]}”")


def shown_rows(
    result: QueryResultState, zone: str = "UTC", sql: str | None = None, lang: str = "pt"
) -> ShownRows:
    """The first rows as JSON values, with the totals: times local, and a column of periods
    (a `date_trunc`, or firsts of a month) written as its periods read ("06/2026",
    "2º tri 2026"), as the table and the chart write them."""
    rows = [[local(v, zone) for v in row] for row in result.get("rows", [])[:PREVIEW_ROWS]]
    periods = _periods(result, zone, sql)
    named = [periods.get(column) for column in result["columns"]]
    shown = [
        [_shown(value, period, lang) for value, period in zip(row, named, strict=False)]
        for row in rows
    ]
    # As JSON reads them back: a decimal or a date as its text, a column named twice once.
    records = tuple(
        json.loads(json.dumps(dict(zip(result["columns"], row, strict=False)), default=str))
        for row in shown
    )
    return ShownRows(records, result.get("row_count"), bool(result.get("truncated")))


def preview(
    result: QueryResultState, zone: str = "UTC", sql: str | None = None, lang: str = "pt"
) -> str:
    """The result's first rows as the prompt shows them (`preview_text` of `shown_rows`)."""
    return preview_text(shown_rows(result, zone, sql, lang))


def preview_text(shown: ShownRows) -> str:
    """The totals, then one JSON line a row."""
    lines = [json.dumps(row, ensure_ascii=False) for row in shown.rows]
    counted = f"{len(shown.rows)} of {shown.row_count} rows"
    more = " (truncated: more rows exist)" if shown.truncated else ""
    return f"{counted}{more}\n" + "\n".join(lines)


def _periods(result: QueryResultState, zone: str, sql: str | None) -> dict[str, str]:
    """Time column → the period its values were cut to, read from the local times of all
    the rows (as the presenter reads them), not only those previewed."""
    rows = [[local(v, zone) for v in row] for row in result.get("rows", [])]
    return column_periods(result["columns"], rows, truncated_periods(sql))


def shown_analysis(
    analysis: Analysis, result: QueryResultState, zone: str, sql: str | None, lang: str
) -> Analysis:
    """`analysis` with its trend's periods written as the rows write them ("2026",
    "06/2026", "2º tri 2026"), in the deployment's time zone: never the UTC instant
    ("2026-01-01T03:00:00+00:00") a `date_trunc` of a local time comes back as."""
    trend, lines = analysis.get("trend"), analysis.get("lines") or []
    if not trend and not lines:
        return analysis
    periods = _periods(result, zone, sql)

    def point(found: Any, period: str | None) -> Any:
        if not isinstance(found, dict) or "period" not in found:
            return found
        value = local(found["period"], zone)
        return {**found, "period": _shown(value, period, lang)}

    def shown(series: Trend) -> Trend:
        period = periods.get(series.get("time", ""))
        out = {key: point(value, period) for key, value in series.items()}
        if isinstance(series.get("comparison"), dict):
            out["comparison"] = {k: point(v, period) for k, v in series["comparison"].items()}
        return cast(Trend, out)

    if trend:
        analysis = cast(Analysis, {**analysis, "trend": shown(trend)})
    if lines:
        analysis = cast(Analysis, {**analysis, "lines": [shown(line) for line in lines]})
    return analysis


def _shown(value: Any, period: str | None, lang: str) -> Any:
    if period and isinstance(value, date):
        return period_label(value, period, lang)
    return value.isoformat(sep=" ") if isinstance(value, datetime) else value


async def _data_answer(
    state: AgentState, runtime: Runtime[RunContext], resources: Resources, stream: AnswerStream
) -> dict[str, Any]:
    meter = Meter.of(state, runtime.context, runtime.context.today_date(resources.settings))
    model = model_for("answer", runtime.context, resources.settings)
    feedback = state.get("judge_feedback")
    zone = runtime.context.limits.timezone
    analysis = _analysis_shown(state, zone) if state.get("analysis") else None
    rows = shown_rows(
        present(state.get("result"), "result"),
        zone,
        state.get("draft_sql") or state.get("sql"),
        state.get("lang", "pt"),
    )
    user = sections(
        question=state["question"],
        assumption=state.get("assumption"),
        answered_from_a_reviewed_example=_reviewed_note(state),
        concept_explanation=state.get("knowledge"),
        analysis=json.dumps(analysis, ensure_ascii=False) if state.get("analysis") else "",
        result=preview_text(rows),
        units=units_text(state),
        labels=labels_text(state),
        previous_answer=state.get("answer") if feedback else "",
        reviewer_feedback=feedback,
    )
    hints = ModelHints(
        question=state["question"],
        rows=rows,
        units=column_units(state),
        labels=column_labels(state),
        analysis=json.loads(json.dumps(analysis)) if analysis is not None else None,
        concept_explanation=state.get("knowledge") or "",
        assumption=state.get("assumption") or "",
        reviewed_example=state.get("reviewed_example"),
    )
    system = prompt("answer", **voice_of(resources).prompt_values(state.get("lang")))
    try:
        await meter.text(model, "answer", chat(system, user), on_text=stream.push, hints=hints)
    except ModelError as failure:
        # The rows are here and the table shows them; only the wording failed. Say so,
        # with the named failure, rather than lose the result.
        stream.reset()
        lang = state.get("lang", "pt")
        return {**meter.update(), "stop_reason": failure.code, "last_error": failure.for_user(lang)}
    return meter.update()


def scoped_analysis(state: AgentState) -> Analysis | None:
    """The analysis, its top list's shares marked as of the rows listed when the query kept
    only its first N (`LIMIT`): "22% of the 5 listed", never "of the total"."""
    analysis, result = state.get("analysis"), state.get("result")
    limit = row_limit(state.get("draft_sql") or state.get("sql"))
    if analysis is None or result is None or limit is None:
        return analysis
    return share_scope(analysis, len(result["rows"]))


def _analysis_shown(state: AgentState, zone: str) -> Analysis | None:
    analysis = scoped_analysis(state)
    if analysis is None:
        return None
    result = present(state.get("result"), "result")
    sql = state.get("draft_sql") or state.get("sql")
    return shown_analysis(analysis, result, zone, sql, state.get("lang", "pt"))


def answer_model(runtime: Runtime[RunContext], resources: Resources) -> str:
    """The answer role's model as the client shows it (a scripted model's file left out)."""
    spec = spec_for("answer", runtime.context, resources.settings)
    return spec.split(":", 1)[0] if spec.startswith("scripted:") else spec


def _reviewed_note(state: AgentState) -> str:
    """What the answer says of a reviewed example the SQL came from, in its language."""
    example = state.get("reviewed_example")
    return "" if example is None else say("answer.reviewed_example", state.get("lang"))


def column_units(state: AgentState) -> dict[str, str]:
    """Column → unit, for each result column the catalog gives a unit (money, kg, ratio…):
    the presenter's reading (`display`), as the table and cards write them."""
    columns = (state.get("display") or {}).get("columns") or []
    return {c["name"]: c["unit"] for c in columns if c.get("unit")}


def column_labels(state: AgentState) -> dict[str, str]:
    """Column → label, for each result column whose label in the turn's language (the
    deployment's words, the question's first; a period as the table heads it) differs from
    its name: the presenter's (`display`), so the answer calls a column what the table does."""
    columns = (state.get("display") or {}).get("columns") or []
    return {c["name"]: c["label"] for c in columns if c["label"] != c["name"]}


def units_text(state: AgentState) -> str:
    """`column_units` as the prompt's `column: unit` lines."""
    columns = (state.get("display") or {}).get("columns") or []
    return "\n".join(f"{c['name']}: {c['unit']}" for c in columns if c.get("unit"))


def labels_text(state: AgentState) -> str:
    """`column_labels` as the prompt's `column: label` lines."""
    columns = (state.get("display") or {}).get("columns") or []
    return "\n".join(f"{c['name']}: {c['label']}" for c in columns if c["label"] != c["name"])


@stage("streamer", summary=lambda u: f"{len(u.get('answer') or '')} chars")
async def streamer(
    state: AgentState, runtime: Runtime[RunContext], resources: Resources
) -> dict[str, Any]:
    update: dict[str, Any] = {}
    stream = AnswerStream(runtime, resources.guardrails, rail_check(state, runtime.context))
    reason = state.get("stop_reason")
    refining = bool(state.get("judge_feedback")) and state.get("result") is not None
    refused = reason == "ANSWER_REFUSED" and bool(state.get("answer_streamed"))
    if refining or refused:
        stream.reset()  # the judges sent the streamed draft back: the client drops it
    if reason:
        answer = stop_answer(state, reason)
    elif state.get("answer") and not refining:
        answer = state["answer"]
    elif state.get("route") == "KNOWLEDGE" or (
        state.get("knowledge") and not state.get("draft_sql") and not state.get("result")
    ):
        answer = state.get("knowledge") or ""
    elif (result := state.get("result")) is not None and result["rows"]:
        update = await _data_answer(state, runtime, resources, stream)
        if update.get("stop_reason"):
            answer = model_failed(state, update["stop_reason"], update["last_error"])
        else:
            if note := not_yours(state):
                await stream.push(note)
            answer = await stream.close()
            # A withheld answer has nothing left to judge; a delivered one awaits the judges.
            judged = bool(resources.guardrails.judges_for("answer")) and stream.blocked is None
            update.update(answer_streamed=True, judge_pending=judged)
    elif any(a.get("outcome") == "zero_rows" for a in state.get("attempts") or []):
        answer = stop_answer(state, "MAX_SQL_ATTEMPTS")  # every reading tried came back empty
    else:
        answer = stop_answer(state, "NO_SQL", voice_of(resources).topics(state.get("lang")))
    if refused or not (update.get("answer_streamed") or state.get("answer_streamed")):
        answer = await stream.say(answer + not_yours(state))
        update["answer_streamed"] = False
    last = state["messages"][-1] if state.get("messages") else None
    replaces = getattr(last, "id", None) if refining or refused else None
    return {
        **update,
        "model": answer_model(runtime, resources),
        "answer": answer.strip(),
        "messages": [AIMessage(content=answer.strip(), id=replaces)],
        "last_question": state.get("question") or state.get("last_question", ""),
    }
