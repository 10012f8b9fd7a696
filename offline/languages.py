"""Which language a question is in: the shared detector (its function and everyday words)
with the catalog's one-language synonyms.
"""

from __future__ import annotations

from orquestra.ddl_catalog.language import detect_language, language_words
from orquestra.ddl_catalog.model import Catalog


def language_of(text: str, catalog: Catalog, default: str = "pt") -> str:
    """ "pt" or "en" for `text`; ties keep `default` (Portuguese, the shared detector's)."""
    return detect_language(text, default, vocabulary=language_words(catalog))
