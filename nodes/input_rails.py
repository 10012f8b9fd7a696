"""input_rails: the deployment's input rails decide on the message before any model reads it.

Every rail of the guardrails YAML runs at once (size, prompt injection, out of scope, and
any external ones); the first in YAML order that blocks answers the user politely, and the
stage's `node` event says which rail it was. A clarification answer is checked too (it runs
again after `clarify`), as an answer to the assistant's question rather than a new subject.
"""

from __future__ import annotations

import logging
from typing import Any

from langgraph.runtime import Runtime

from orquestra.core.texts import TEXTS, language, say
from orquestra.ddl_catalog.wording import Voice, voice_of
from orquestra.graph.context import RunContext
from orquestra.graph.llm import Meter
from orquestra.graph.rails import model_access, rail_check
from orquestra.graph.resources import Resources
from orquestra.graph.stage import stage
from orquestra.graph.state import AgentState
from orquestra.guards.rails import RailResult
from orquestra.nodes.short_circuit import latest_user_message

log = logging.getLogger("orquestra.audit")


def blocked_text(result: RailResult, code: str, lang: str, tenant: str, voice: Voice) -> str:
    """The polite answer for a message the rail `result` blocked, in the deployment's words."""
    if result.outcome in ("error", "timeout"):
        key = "UNCHECKED"
    else:
        key = result.code.upper() if f"refusal.{result.code.upper()}" in TEXTS else "OTHER"
    lang = language(lang)
    examples = voice.quoted_examples(lang, count=1)
    return say(
        f"refusal.{key}",
        lang,
        reason=result.reason,
        label=voice.tenant(lang),
        tenant=tenant,
        topics=voice.topics(lang),
        examples=say("for_example", lang, examples=examples) if examples else "",
        code=code,
    )


def _summary(update: dict[str, Any]) -> str:
    blocked = update.get("blocked_by")
    return f"blocked by {blocked['rail']} ({blocked['code']})" if blocked else "passed"


def _details(update: dict[str, Any]) -> dict[str, Any]:
    blocked = update.get("blocked_by")
    return {"blocked_by": blocked["rail"], "code": blocked["code"]} if blocked else {}


@stage("input_rails", summary=_summary, details=_details)
async def input_rails(
    state: AgentState, runtime: Runtime[RunContext], resources: Resources
) -> dict[str, Any]:
    context = runtime.context
    rails = resources.guardrails
    named: dict[str, Any] = {}
    if not state.get("clarifications"):  # a clarification answers about the same question
        others = resources.tenant_names.named_others(latest_user_message(state), context.tenant)
        if others:
            named = {"other_tenants_named": others}
            # For audit: asking about other tenants by name is how one would probe for them.
            log.warning(
                "message names other tenants",
                extra={"tenant": context.tenant, "user": context.user, "names": others},
            )
    if not rails.input:
        return named
    clarifying = bool(state.get("clarifications"))
    meter = Meter.of(state, context, context.today_date(resources.settings))
    check = rail_check(
        state,
        context,
        latest_user_message(state),
        stage="input",
        history=state.get("turn_message", "") if clarifying else state.get("last_question", ""),
        clarifying=clarifying,
        model=model_access(meter, resources, context),
    )
    decision = await rails.check_input(check)
    if decision.allowed or decision.blocked_by is None:
        return {**meter.update(), **named}
    result = decision.blocked_by
    code = rails.rail_code(result.code)
    voice = voice_of(resources)
    return {
        **meter.update(),
        "answer": blocked_text(result, code, check.lang, context.tenant, voice),
        "blocked_by": {"rail": result.code, "code": code, "reason": result.reason},
        "route": None,
    }
