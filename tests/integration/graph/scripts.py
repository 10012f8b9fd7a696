"""Small builders for scripted responses, so each test reads as the conversation it plays."""

from __future__ import annotations

from typing import Any

REVENUE_2026 = (
    "SELECT date_trunc('month', data_emissao) AS mes, sum(valor_nota) AS faturamento "
    "FROM notas_fiscais WHERE status = 'AUTORIZADA' AND data_emissao >= '2026-01-01' "
    "GROUP BY 1 ORDER BY 1"
)
NOTA_STATUS = (
    "SELECT DISTINCT ON (serie, num_nota) serie, num_nota, status, last_updated "
    "FROM eventos_rastreamento WHERE num_nota = 40908 ORDER BY serie, num_nota, last_updated DESC"
)
NO_ROWS = "SELECT num_nota FROM notas_fiscais WHERE num_nota = 99999999"


def augmented(question: str, **extra: Any) -> dict[str, Any]:
    return {"question": question, "is_data_question": True, "missing": [], "lang": "pt", **extra}


VAGUE_QUESTION = "Você quer ver faturamento, pedidos ou entregas?"


def vague(question: str = "como está a produção?") -> dict[str, Any]:
    """The augmenter finding a data question too vague, and asking `VAGUE_QUESTION`."""
    return augmented(question, missing=["measure"], clarifying_question=VAGUE_QUESTION)


def routed(route: str, wants_knowledge: bool = False) -> dict[str, Any]:
    return {"route": route, "wants_knowledge": wants_knowledge, "reason": "test"}


def written(sql: str) -> dict[str, Any]:
    return {"thought_process": "scripted", "sql": sql, "missing_info": None, "confidence": 0.8}


def fixed(sql: str) -> dict[str, Any]:
    return {"sql": sql, "explanation": "scripted fix"}


CROSS_TENANT = (
    "SELECT cod_fornecedor, count(*) AS notas FROM notas_fiscais "
    "WHERE cod_fornecedor = 102 OR true GROUP BY 1"
)
"""SQL a fooled (or malicious) model writes to read another tenant's rows."""


def cross_tenant_turn(question: str) -> dict:
    """A turn whose SQL writer tries to read tenant 102's rows."""
    return {
        "augmenter": [augmented(question)],
        "router": [routed("ANALYTICS")],
        "sql_writer": [written(CROSS_TENANT)],
        "answer": ["Only your own data."],
    }


APPROVED = {"addresses_question": True, "feedback": ""}
"""The relevance judge's approval."""


def data_turn(question: str, sql: str, route: str = "ANALYTICS", answer: str = "Resposta.") -> dict:
    """The four calls of a simple data question: augmenter, router, SQL writer, answer."""
    return {
        "augmenter": [augmented(question)],
        "router": [routed(route)],
        "sql_writer": [written(sql)],
        "answer": [answer],
    }
