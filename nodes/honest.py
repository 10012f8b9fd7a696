"""Deterministic answers for turns that stop early: what was tried and why it stopped.

No model writes these, so no number can be invented: they list the SQL attempts and the
reason, in the user's language.
"""

from __future__ import annotations

from typing import Any

TEXTS = {
    "MAX_SQL_ATTEMPTS": {
        "pt": "Não encontrei dados para essa pergunta. Tentei {n} consulta(s) e nenhuma "
        "retornou linhas:",
        "en": "I found no data for this question. I tried {n} quer(ies) and none returned rows:",
    },
    "MAX_FIX_ATTEMPTS": {
        "pt": "Não consegui montar uma consulta válida para essa pergunta depois de {n} "
        "tentativa(s). O que tentei:",
        "en": "I could not build a valid query for this question after {n} attempt(s). "
        "What I tried:",
    },
    "MODEL_BUDGET": {
        "pt": "Interrompi esta resposta porque ela atingiu o limite de chamadas ao modelo "
        "por pergunta. Tente reformular a pergunta de forma mais direta.",
        "en": "I stopped this answer because it reached the limit of model calls per "
        "question. Try asking more directly.",
    },
    "MODEL_OUTPUT_INVALID": {
        "pt": "O modelo de linguagem respondeu num formato inválido e não consegui continuar. "
        "Tente novamente em instantes.",
        "en": "The language model answered in an invalid format and I could not go on. "
        "Please try again shortly.",
    },
    "NO_SQL": {
        "pt": "Não consegui relacionar sua pergunta aos dados disponíveis ({reason}). Posso "
        "responder sobre: {topics}.",
        "en": "I could not map your question to the available data ({reason}). I can answer "
        "about: {topics}.",
    },
}
LAST_ERROR = {"pt": "Último erro", "en": "Last error"}
MODEL_FAILED = {
    "pt": "Encontrei {rows} linha(s), que estão na tabela, mas não consegui redigir a resposta: "
    "{message} [{code}]",
    "en": "I found {rows} row(s), shown in the table, but could not write the answer: "
    "{message} [{code}]",
}


def model_failed(state: dict[str, Any], code: str, message: str) -> str:
    """The answer when the rows came back but the model that words them failed (`code`)."""
    rows = (state.get("result") or {}).get("row_count", 0)
    text = MODEL_FAILED.get(state.get("lang", "pt"), MODEL_FAILED["en"])
    return text.format(rows=rows, message=message, code=code)


def stop_answer(state: dict[str, Any], reason: str, topics: str = "") -> str:
    """The honest answer for a turn that ended because of `reason`."""
    lang = state.get("lang", "pt")
    attempts = state.get("attempts") or []
    text = TEXTS[reason][lang].format(
        n=len(attempts), reason=state.get("last_error") or "", topics=topics
    )
    if reason in ("MAX_SQL_ATTEMPTS", "MAX_FIX_ATTEMPTS"):
        for number, attempt in enumerate(attempts, start=1):
            text += f"\n{number}. {attempt.get('sql')}"
        if reason == "MAX_FIX_ATTEMPTS" and state.get("last_error"):
            text += f"\n{LAST_ERROR[lang]}: {state['last_error']}"
    return text
