"""Which language a message is in (Portuguese or English), from function words."""

from __future__ import annotations

from ddl_catalog.text import words

PORTUGUESE = {
    "o",
    "a",
    "os",
    "as",
    "de",
    "do",
    "da",
    "dos",
    "das",
    "que",
    "qual",
    "quais",
    "quanto",
    "quantos",
    "quantas",
    "como",
    "onde",
    "por",
    "para",
    "com",
    "em",
    "no",
    "na",
    "nos",
    "nas",
    "e",
    "é",
    "esta",
    "está",
    "meu",
    "minha",
    "mes",
    "mês",
    "ano",
    "status",
    "nota",
    "notas",
    "oi",
    "ola",
    "obrigado",
    "obrigada",
    "este",
    "esse",
    "essa",
    "ultimos",
    "últimos",
    "me",
}
ENGLISH = {
    "the",
    "of",
    "what",
    "which",
    "how",
    "many",
    "much",
    "where",
    "is",
    "are",
    "by",
    "for",
    "with",
    "in",
    "on",
    "my",
    "month",
    "year",
    "last",
    "this",
    "show",
    "me",
    "top",
    "invoice",
    "invoices",
    "shipment",
    "shipments",
    "order",
    "orders",
    "hello",
    "hi",
    "thanks",
    "and",
}


def detect_language(text: str, default: str = "pt") -> str:
    """`pt` or `en`; ties keep `default`."""
    tokens = words(text)
    pt = sum(t in PORTUGUESE for t in tokens)
    en = sum(t in ENGLISH for t in tokens)
    if en > pt:
        return "en"
    if pt > en:
        return "pt"
    return default
