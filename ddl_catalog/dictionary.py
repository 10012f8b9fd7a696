"""The languages' dictionary (`dictionary.yaml`): words of Portuguese and English that name
the same thing ("funcionário", "employee", "staff"), for reading a question's word the
catalog does not know as a phrase the catalog does.

A word is read so only when the dictionary is clear about it: its concepts lead to one
catalog phrase (`readings`). The embeddings' reading by meaning (`selection`) comes after,
for the words the dictionary does not hold.

>>> from orquestra.ddl_catalog.selection_words import Hit, Vocabulary
>>> vocabulary = Vocabulary()
>>> vocabulary.add("employees", Hit("employees", "named", "employees"))
>>> readings(vocabulary)[vocabulary.key("funcionários")]
'employees'
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import yaml

from orquestra.ddl_catalog.selection_words import Phrase, Vocabulary
from orquestra.ddl_catalog.text import fold

DICTIONARY = Path(__file__).with_name("dictionary.yaml")


@cache
def concepts() -> tuple[tuple[str, ...], ...]:
    """Every concept's words, both languages, as the file writes them."""
    data = yaml.safe_load(DICTIONARY.read_text(encoding="utf-8")) or {}
    return tuple(
        tuple(dict.fromkeys(fold(w) for lang in ("pt", "en") for w in entry.get(lang) or ()))
        for entry in data.get("concepts") or ()
    )


def readings(vocabulary: Vocabulary) -> dict[Phrase, str]:
    """Each dictionary phrase that is no catalog phrase → the catalog phrase its concepts
    name: the first of a concept's words the catalog holds as a phrase (a table's name or
    synonym, a column's). A phrase whose concepts lead to two catalog phrases (Portuguese
    "gênero", gender and genre, where the catalog has both) is left out."""
    found: dict[Phrase, set[str]] = {}
    for words in concepts():
        held = [_spelled(vocabulary, w) for w in words if _names_something(vocabulary, w)]
        if not held:
            continue
        for word in words:
            key = vocabulary.key(word)
            if key and not vocabulary.phrases.get(key):
                found.setdefault(key, set()).add(held[0])
    return {key: next(iter(phrases)) for key, phrases in found.items() if len(phrases) == 1}


def _spelled(vocabulary: Vocabulary, word: str) -> str:
    """`word` as the catalog spells the phrase ("categories" for "category")."""
    return vocabulary.spelled.get(vocabulary.key(word), word)


def _names_something(vocabulary: Vocabulary, word: str) -> bool:
    """The catalog holds `word` as a phrase of its own: a table or a column, not only one of
    the values a column lists."""
    return any(hit.kind != "value" for hit in vocabulary.phrases.get(vocabulary.key(word), ()))
