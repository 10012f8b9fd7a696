"""Which language a question is in: the shared detector's function words and the catalog's
one-language synonyms, plus the everyday words people ask with ("você", "cadê", "does",
"yet"), which the offline model reads anyway and a short question may hold nothing else of.
"""

from __future__ import annotations

from orquestra.ddl_catalog.language import detect_language, language_words
from orquestra.ddl_catalog.model import Catalog

EVERYDAY = {
    "pt": {
        *("voce", "voces", "você", "vocês", "nós", "gente", "foi", "foram", "tem"),
        *("temos", "tivemos", "teve", "quando", "quem", "porque", "ainda", "já", "cadê"),
        *("cade", "tá", "pra", "pro", "serve", "são", "sao", "mais", "menos", "um", "uma"),
        *("ao", "pelo", "pela", "pelos", "pelas", "seu", "sua", "nosso", "nossa", "isso"),
        *("ficou", "ficaram", "saiu", "chegou", "chegaram", "vieram", "entre", "até", "ate"),
        *("passado", "passada", "atual", "agora", "hoje", "conta", "significa", "diferença"),
        *("diferenca", "chamam", "definem", "explica", "explique", "quantos", "quantas"),
    },
    "en": {
        *("do", "does", "did", "you", "we", "our", "us", "they", "their", "it", "its"),
        *("have", "has", "had", "been", "be", "yet", "right", "now", "when", "who", "why"),
        *("was", "were", "any", "all", "give", "tell", "explain", "define", "mean", "means"),
        *("counts", "count", "still", "not", "get", "got", "should", "would", "can", "could"),
        *("will", "there", "than", "that", "these", "those", "from", "to", "at", "per"),
        *("each", "every", "much", "money", "difference", "between", "considered", "late"),
    },
}


_vocabularies: dict[int, tuple[Catalog, dict[str, frozenset[str]]]] = {}


def language_of(text: str, catalog: Catalog) -> str:
    """ "pt" or "en" for `text`, ties kept Portuguese (the shared detector's default)."""
    cached = _vocabularies.get(id(catalog))
    if cached is None or cached[0] is not catalog:
        found = language_words(catalog)
        merged = {lang: frozenset(found[lang] | EVERYDAY[lang]) for lang in found}
        cached = _vocabularies[id(catalog)] = (catalog, merged)
    return detect_language(text, vocabulary=cached[1])
