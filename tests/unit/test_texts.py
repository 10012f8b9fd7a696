"""Every fixed text a person reads is in one table, in both languages, with the same blanks."""

from __future__ import annotations

import doctest
from string import Formatter

import pytest

from orquestra.core import texts
from orquestra.core.texts import LANGUAGES, TEXTS, say


def blanks(text: str) -> set[str]:
    """The values a text is filled with: its fields, and the counts its nouns agree with
    (`{n|linha|linhas}` is a blank of `n`)."""
    return {field.split("|")[0] for _, field, _, _ in Formatter().parse(text) if field}


@pytest.mark.parametrize("key", sorted(TEXTS))
def test_each_text_exists_in_every_language_with_the_same_blanks(key: str) -> None:
    assert set(TEXTS[key]) == set(LANGUAGES)
    assert blanks(TEXTS[key]["pt"]) == blanks(TEXTS[key]["en"])


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_count_agrees_with_its_noun(lang: str) -> None:
    one, many = say("stop.MAX_SQL_ATTEMPTS", lang, n=1), say("stop.MAX_SQL_ATTEMPTS", lang, n=3)
    assert "1 consulta " in one or "1 query " in one
    assert "3 consultas " in many or "3 queries " in many
    assert "(s)" not in "".join(text for texts_of in TEXTS.values() for text in texts_of.values())


def test_an_unknown_language_reads_english() -> None:
    assert say("reply.empty", "fr") == TEXTS["reply.empty"]["en"]
    assert say("reply.empty", None) == TEXTS["reply.empty"]["en"]


def test_the_docstring_examples_hold() -> None:
    assert doctest.testmod(texts).failed == 0
