"""Which language a message is in (Portuguese or English), from function words.

The lists below hold only words of the languages themselves; the business's own words
(tables and columns as people name them) come from the catalog's synonyms per language
(`language_words`), so a deployment's vocabulary helps without the code knowing it.
"""

from __future__ import annotations

from collections.abc import Mapping

from orquestra.ddl_catalog.model import Catalog, ColumnMeta, TableMeta, per_catalog
from orquestra.ddl_catalog.text import words

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
    # the everyday words people ask with, which a short question may hold nothing else of
    "voce",
    "voces",
    "você",
    "vocês",
    "nós",
    "gente",
    "foi",
    "foram",
    "tem",
    "temos",
    "tivemos",
    "teve",
    "quando",
    "quem",
    "porque",
    "ainda",
    "já",
    "cadê",
    "cade",
    "tá",
    "pra",
    "pro",
    "serve",
    "são",
    "sao",
    "mais",
    "menos",
    "um",
    "uma",
    "ao",
    "pelo",
    "pela",
    "pelos",
    "pelas",
    "seu",
    "sua",
    "nosso",
    "nossa",
    "isso",
    "ficou",
    "ficaram",
    "saiu",
    "chegou",
    "chegaram",
    "vieram",
    "entre",
    "até",
    "ate",
    "passado",
    "passada",
    "atual",
    "agora",
    "hoje",
    "conta",
    "significa",
    "diferença",
    "diferenca",
    "chamam",
    "definem",
    "explica",
    "explique",
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
    "hello",
    "hi",
    "thanks",
    "and",
    # the everyday words people ask with ("do", "a" and "as" are in both lists, so they
    # count for neither: "what counts as a return?" is English)
    "do",
    "a",
    "as",
    "does",
    "did",
    "you",
    "we",
    "our",
    "us",
    "they",
    "their",
    "it",
    "its",
    "have",
    "has",
    "had",
    "been",
    "be",
    "yet",
    "right",
    "now",
    "when",
    "who",
    "why",
    "was",
    "were",
    "any",
    "all",
    "give",
    "tell",
    "explain",
    "define",
    "mean",
    "means",
    "counts",
    "count",
    "still",
    "not",
    "get",
    "got",
    "should",
    "would",
    "can",
    "could",
    "will",
    "there",
    "than",
    "that",
    "these",
    "those",
    "from",
    "to",
    "at",
    "per",
    "each",
    "every",
    "difference",
    "between",
    "considered",
    "late",
}


@per_catalog
def language_words(catalog: Catalog) -> dict[str, frozenset[str]]:
    """Single words of the catalog's synonyms that belong to one language only, per language.

    Built once per catalog object.
    """
    found: dict[str, set[str]] = {"pt": set(), "en": set()}
    for table in catalog.tables.values():
        metas: list[TableMeta | ColumnMeta] = [table.meta, *(c.meta for c in table.columns)]
        for meta in metas:
            for lang in found:
                for phrase in getattr(meta.synonyms, lang):
                    found[lang].update(w for w in words(phrase) if len(w) > 2)
    both = found["pt"] & found["en"]
    return {lang: frozenset(found[lang] - both) for lang in found}


def detect_language(
    text: str, default: str = "pt", vocabulary: Mapping[str, frozenset[str]] | None = None
) -> str:
    """`pt` or `en`; ties keep `default`. `vocabulary` adds a deployment's words per language."""
    tokens = words(text)
    extra = vocabulary or {}
    pt = sum(t in PORTUGUESE or t in extra.get("pt", ()) for t in tokens)
    en = sum(t in ENGLISH or t in extra.get("en", ()) for t in tokens)
    if en > pt:
        return "en"
    if pt > en:
        return "pt"
    return default
