"""input_rails: the deployment's input rails decide on the message before any model reads it.

Every rail of the guardrails YAML runs at once (size, prompt injection, out of scope, and
any external ones); the first in YAML order that blocks answers the user politely, and the
stage's `node` event says which rail it was. A clarification answer is checked too (it runs
again after `clarify`), as an answer to the assistant's question rather than a new subject.

It also decides whether the answer may note another tenant's name (`other_tenant_named`):
one name at most, while the person has notes left, every such message audited.
"""

from __future__ import annotations

import logging
from typing import Any

from langgraph.runtime import Runtime

from orquestra.core.database import is_unavailable
from orquestra.core.texts import TEXTS, language, say
from orquestra.ddl_catalog.wording import Voice, voice_of
from orquestra.graph.context import RunContext
from orquestra.graph.llm import Meter
from orquestra.graph.rails import model_access, rail_check
from orquestra.graph.resources import Resources
from orquestra.graph.stage import stage
from orquestra.graph.state import AgentState
from orquestra.guards.rails import RailResult
from orquestra.guards.tenant_key import NO_TENANT
from orquestra.nodes.short_circuit import latest_user_message

log = logging.getLogger("orquestra.audit")


def blocked_text(result: RailResult, code: str, lang: str, tenant: str, voice: Voice) -> str:
    """The polite answer for a message the rail `result` blocked, in the deployment's words."""
    if result.outcome in ("error", "timeout"):
        key = "UNCHECKED"
    else:
        key = result.code.upper() if f"refusal.{result.code.upper()}" in TEXTS else "OTHER"
    if key == "PINJ" and tenant == NO_TENANT:  # no tenant to name: one organisation's data
        key = "PINJ_ONE"
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


async def other_tenant_named(message: str, context: RunContext, resources: Resources) -> str | None:
    """The other tenant's name (as written) the answer may say was not used: the first one
    `message` names, if the person has notes left (`Settings.tenant_name_note`); else None.

    Every message is counted the same way, named or not (`NoteAllowance.take`), so the
    stage's time does not tell. A message that names another tenant is audited, noted or
    not: naming other tenants is how one would probe for them."""
    names = await resources.tenants.for_asker(context.tenant)  # a tenant added since start too
    if not names:
        return None
    other = names.first_other(message, context.tenant)
    allowance, noted, outcome = resources.note_allowance, False, "the note is off"
    if allowance is not None:
        try:
            noted = await allowance.take(context.tenant, context.user, named=other is not None)
            outcome = "noted" if noted else "not noted: past the per-user limit"
        except Exception as error:  # a courtesy, never a failed turn: no count, no note
            if not is_unavailable(error):
                raise
            outcome = "not noted: the count is unavailable"
    if other is not None:
        log.warning(
            "message names another tenant",
            extra={
                "tenant": context.tenant,
                "user": context.user,
                "named": other,
                "noted": noted,
                "outcome": outcome,
            },
        )
    return other if noted else None


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
        other = await other_tenant_named(latest_user_message(state), context, resources)
        named = {"other_tenants_named": [other]} if other else {}
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
