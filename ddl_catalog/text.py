"""Text normalisation shared by catalog matching: lower case, no accents, word tokens."""

from __future__ import annotations

import re
import unicodedata

WORD = re.compile(r"[a-z0-9_]+")


def fold(text: str) -> str:
    """Lower case without accents: "Títulos Vencidos" → "titulos vencidos"."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def words(text: str) -> list[str]:
    return WORD.findall(fold(text))


def stem(token: str) -> str:
    """Plural-insensitive form: "notas" → "nota", "devoluções" → "devolucao"."""
    if len(token) > 4 and token.endswith("oes"):
        return token[:-3] + "ao"
    if len(token) > 3 and token.endswith("s"):
        return token[:-1]
    return token


def phrase_key(phrase: str) -> tuple[str, ...]:
    """How phrases are compared: folded, stemmed words ("Títulos_Vencidos" → titulo, vencido)."""
    return tuple(stem(w) for w in words(phrase.replace("_", " ")))
