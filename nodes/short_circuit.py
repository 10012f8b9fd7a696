"""short_circuit: greetings, thanks and empty input get a static reply, with no model call.

It is also where a turn starts, so it resets every per-turn field of the state.
"""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from orquestra.core.texts import language, say
from orquestra.ddl_catalog.language import detect_language, language_words
from orquestra.ddl_catalog.text import fold
from orquestra.ddl_catalog.wording import Voice, voice_of
from orquestra.graph.context import RunContext
from orquestra.graph.resources import Resources
from orquestra.graph.stage import stage
from orquestra.graph.state import AgentState, turn_reset

GREETING = re.compile(
    r"^(oi+|ola|ol[aá]|e ai|opa|bom dia|boa tarde|boa noite|hello|hi|hey|good (morning|afternoon|"
    r"evening)|tudo bem|tudo bom)[\s!.,?]*(tudo bem|tudo bom|how are you)?[\s!.,?]*$"
)
THANKS = re.compile(
    r"^(obrigad[oa]|valeu|brigad[oa]|thanks|thank you|thx|tchau|bye|ate mais)"
    r"[\s!.,]*(muito|a lot|so much)?[\s!.,]*$"
)
"""Replies with no business in them; the greeting is made from the deployment's words."""

TURN_RESET: dict[str, Any] = turn_reset()
"""Every per-turn field, as a new turn starts."""


def classify(message: str) -> str | None:
    """`greeting`, `thanks`, `empty`, or None for anything that needs the graph."""
    text = fold(message).strip()
    if not text or not re.search(r"\w", text):
        return "empty"
    if GREETING.match(text):
        return "greeting"
    if THANKS.match(text):
        return "thanks"
    return None


def greeting(voice: Voice, lang: str) -> str:
    """The greeting in `lang`: who the assistant is, its topics and example questions."""
    text = say("greeting", lang, assistant=voice.profile.assistant_name, topics=voice.topics(lang))
    examples = voice.quoted_examples(lang)
    return text + (say("for_example", lang, examples=examples) if examples else "")


def reply(kind: str, lang: str, voice: Voice) -> str:
    """The static reply of `kind` (greeting, thanks, empty) in `lang`."""
    lang = language(lang)
    return greeting(voice, lang) if kind == "greeting" else say(f"reply.{kind}", lang)


def latest_user_message(state: AgentState) -> str:
    for message in reversed(state.get("messages", [])):
        if isinstance(message, HumanMessage):
            return str(message.content)
    return ""


@stage("short_circuit", summary=lambda u: "static reply" if u.get("answer") else "continue")
async def short_circuit(
    state: AgentState, runtime: Runtime[RunContext], resources: Resources
) -> dict[str, Any]:
    voice = voice_of(resources)
    message = latest_user_message(state)
    default = state.get("lang") or voice.profile.default_language
    lang = detect_language(message, default=default, vocabulary=language_words(resources.catalog))
    kind = classify(message)
    update = {**TURN_RESET, "lang": lang, "turn_message": message}
    if kind is not None:
        update["answer"] = reply(kind, lang, voice)
        update["route"] = "CHAT"
    return update
