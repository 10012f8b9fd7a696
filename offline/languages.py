"""Which language a question is in: the shared detector (its function and everyday words)
with the catalog's one-language synonyms.
"""

from __future__ import annotations

from orquestra.ddl_catalog.language import detect_language, language_words
from orquestra.ddl_catalog.model import Catalog


def language_of(text: str, catalog: Catalog) -> str:
    """ "pt" or "en" for `text`, ties kept Portuguese (the shared detector's default)."""
    return detect_language(text, vocabulary=language_words(catalog))
