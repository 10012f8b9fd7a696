"""short_circuit: greetings, thanks and empty input get a static reply, with no model call.

It is also where a turn starts, so it resets every per-turn field of the state.
"""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from ddl_catalog.text import fold
from graph.context import RunContext
from graph.stage import stage
from nodes.language import detect_language

GREETING = re.compile(
    r"^(oi+|ola|ol[aá]|e ai|opa|bom dia|boa tarde|boa noite|hello|hi|hey|good (morning|afternoon|"
    r"evening)|tudo bem|tudo bom)[\s!.,?]*(tudo bem|tudo bom|how are you)?[\s!.,?]*$"
)
THANKS = re.compile(
    r"^(obrigad[oa]|valeu|brigad[oa]|thanks|thank you|thx|tchau|bye|ate mais)"
    r"[\s!.,]*(muito|a lot|so much)?[\s!.,]*$"
)
REPLIES = {
    ("greeting", "pt"): "Olá! Posso consultar notas fiscais, pedidos, cargas, rastreamento e "
    'títulos dos seus dados, ou explicar um termo do negócio. Por exemplo: "status da nota '
    '40908" ou "faturamento por mês em 2026".',
    ("greeting", "en"): "Hello! I can look up your invoices, orders, shipments, tracking and "
    'receivables, or explain a business term. For example: "status of invoice 40908" or '
    '"revenue by month in 2026".',
    ("thanks", "pt"): "Por nada! Se precisar de mais alguma consulta, é só perguntar.",
    ("thanks", "en"): "You're welcome! Ask me anything else about your data.",
    ("empty", "pt"): "Não recebi nenhuma pergunta. O que você gostaria de saber?",
    ("empty", "en"): "I did not get a question. What would you like to know?",
}

TURN_RESET: dict[str, Any] = {
    "question": "",
    "other_tenants_named": [],
    "clarifications": [],
    "wants_knowledge": False,
    "assumption": None,
    "clarify_question": None,
    "clarify_rounds": 0,
    "schema_text": "",
    "sources": {},
    "draft_sql": None,
    "guarded_sql": None,
    "guard_params": [],
    "sql_attempt": 0,
    "fix_attempts": 0,
    "last_error": None,
    "attempts": [],
    "result": None,
    "sql": None,
    "knowledge": None,
    "analysis": None,
    "analysis_error": None,
    "analysis_code": None,
    "cards": [],
    "chart": None,
    "refine_rounds": 0,
    "judge_feedback": None,
    "judge_pending": False,
    "judgements": [],
    "knowledge_sources": "",
    "blocked_by": None,
    "answer_streamed": False,
    "model_calls": 0,
    "prompt_tokens": 0,
    "completion_tokens": 0,
    "caps_hit": [],
    "stop_reason": None,
    "answer": "",
    "route": None,
}
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


def latest_user_message(state: dict[str, Any]) -> str:
    for message in reversed(state.get("messages", [])):
        if isinstance(message, HumanMessage):
            return str(message.content)
    return ""


@stage("short_circuit", summary=lambda u: "static reply" if u.get("answer") else "continue")
async def short_circuit(state: dict[str, Any], runtime: Runtime[RunContext]) -> dict[str, Any]:
    message = latest_user_message(state)
    lang = detect_language(message, default=state.get("lang", "pt"))
    kind = classify(message)
    update = {**TURN_RESET, "lang": lang, "turn_message": message}
    if kind is not None:
        update["answer"] = REPLIES[(kind, lang)]
        update["route"] = "CHAT"
    return update
