"""Words that carry meaning and that no reading used: the question is then not answered.

A reading that leaves a content word of the question unused answers something else ("2025
revenue by team country" read without "revenue" counts teams per country): a confident
wrong answer, the worst outcome. So the words the catalog does not know are sorted
into those said around what is asked — the languages' own words (every concept of the
language data), pronouns and adverbs (`filler_words`), verbs that link the things named
("placed", "vendem": `linking_verbs` with the morphology's endings, `irregular_verb_forms`),
any word ending as a verb's form does — and the rest, content left unread, which stops the
answer (`parser._unread` makes them `Unread.unmapped`, and the model says what it did not
understand).

A participle said as a kind of the rows (in English before their noun: "cancelled flights")
is content too: dropped, it would answer for all the rows.

>>> said_around("handled"), said_around("their"), said_around("vendem"), said_around("revenue")
(True, True, True, False)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache

from orquestra.ddl_catalog.model import Catalog
from orquestra.ddl_catalog.text import words
from orquestra.offline.intent import Intent
from orquestra.offline.lang import LANGUAGES, word_set
from orquestra.offline.lang.morphology import (
    MORPHOLOGIES,
    adjectives_after_noun,
    forms_of,
    looks_like_a_verb,
)
from orquestra.offline.question import Match

FILLER = word_set("filler_words") | word_set("irregular_verb_forms")
"""Pronouns, adverbs, courtesies and verb forms no ending makes."""


@cache
def _languages_words() -> frozenset[str]:
    """Every word of the languages' concepts, also inside their phrases ("share", "after")."""
    return frozenset(
        word
        for language in LANGUAGES.values()
        for concept in language.concepts
        for phrase in language.words(concept)
        for word in phrase.split()
    )


@cache
def _linking_forms() -> frozenset[str]:
    """Every form of the languages' linking verbs ("placed", "vendem", "custa")."""
    return frozenset(form for verb in word_set("linking_verbs") for form in forms_of(verb))


def the_languages_own(word: str) -> bool:
    """`word` (folded) is a word of the languages themselves: of their concepts, a filler or
    a linking verb's form ("ones", "valeu"), whatever catalog phrase it resembles."""
    return word in _languages_words() or word in FILLER or word in _linking_forms()


def said_around(word: str) -> bool:
    """`word` (folded, unknown to the catalog) is said around what is asked: a word of the
    languages' data, a filler, a linking verb's form, or any word ending as a verb's does."""
    return the_languages_own(word) or looks_like_a_verb(word)


_BEFORE_ROWS = tuple(
    dict.fromkeys(
        end
        for code, forms in MORPHOLOGIES.items()
        if code in LANGUAGES and not adjectives_after_noun(code)
        for end in forms.participle_endings
    )
)
"""Participle endings of the languages whose adjectives stand before their noun ("cancelled
flights"): there, such a word right before the rows says a kind of them."""


EXPLAINED = re.compile(r"(\w+(?:\W+\w+)?)\s*\(([^()]*)\)")
"""Words followed by a parenthesis that says what they mean ("an interstate CFOP (the ones
starting with 6)")."""


def _explained(question: str) -> set[str]:
    """The words a parenthesis right after them explains (the two before it): the
    parenthesis is read instead, its own words left unread or not as any others.

    >>> sorted(_explained("flights cancelled (no departure time) in May"))
    ['cancelled', 'flights']
    """
    return {w for found in EXPLAINED.finditer(question) for w in words(found.group(1))}


def described_words(intent: Intent, catalog: Catalog) -> set[str]:
    """The words of the catalog's descriptions of the tables the reading uses (theirs, their
    columns' and their values'): "comunicado ao médico solicitante" says what a column
    read holds, so its words are the catalog's own for it."""
    said = set()
    for name in read_tables(intent):
        table = catalog.tables.get(name)
        if table is None:
            continue
        texts = [table.meta.description, table.meta.description_en]
        for column in table.columns:
            texts += [column.meta.description, column.meta.description_en]
            texts += list(column.meta.values.values())
        said |= {w for text in texts for w in words(text)}
    return said


def read_tables(intent: Intent) -> list[str]:
    """Every table the reading uses: named, filtered, measured, grouped or compared."""
    where = intent.where
    rule = intent.measures.metric.metric if intent.measures.metric else None
    found = [
        *intent.subject.tables,
        *([intent.subject.entity[0]] if intent.subject.entity else []),
        *(t for t, _c in intent.subject.columns),
        *(t for t, _c in [*where.filters, *where.excluded, *where.unset]),
        *(t for t, *_rest in [*where.comparisons, *where.conditions]),
        *(g.table for g in intent.groups if g.table),
        *([intent.measures.measure[0]] if intent.measures.measure else []),
        *([rule.table] if rule else []),
    ]
    return list(dict.fromkeys(found))


def content_unread(
    intent: Intent, tokens: Sequence[str], matches: Sequence[Match], catalog: Catalog
) -> list[str]:
    """The unknown words of the question that carry meaning: not said around what is asked
    (nor explained by a parenthesis or by the descriptions of what is read), or a participle
    said as a kind of the rows named right after it."""
    unknown = set(intent.unread.unknown) - _explained(intent.question)
    unknown -= described_words(intent, catalog) if unknown else set()
    before_rows = {
        start - 1 for start, _end, meanings in matches if any(m.kind == "table" for m in meanings)
    }
    found = [
        token
        for index, token in enumerate(tokens)
        if token in unknown
        and (not said_around(token) or (index in before_rows and token.endswith(_BEFORE_ROWS)))
    ]
    return list(dict.fromkeys(found))
