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


def contains_phrase(text_words: list[str], phrase: str) -> bool:
    """Whether the folded words of `phrase` occur contiguously in `text_words`.

    A trailing plural `s` is tolerated on either side ("nota" matches "notas").
    """
    target = [w.rstrip("s") for w in words(phrase)]
    if not target:
        return False
    stems = [w.rstrip("s") for w in text_words]
    size = len(target)
    return any(stems[i : i + size] == target for i in range(len(stems) - size + 1))
