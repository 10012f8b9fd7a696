"""The catalog's text helpers that the rail and the offline model share."""

from __future__ import annotations

import pytest

from orquestra.ddl_catalog.text import abbreviated_by

LONG = ["quantidade", "valor", "department", "vendedor", "faturamento"]


@pytest.mark.parametrize(
    ("short", "expected"),
    [
        ("qtd", ["quantidade"]),
        ("vlr", ["valor"]),
        ("dept", ["department"]),
        ("vnd", ["vendedor"]),
        ("fat", ["faturamento"]),
        ("vr", ["valor", "vendedor"]),  # every word it could shorten, in the list's order
        ("tdq", []),  # the first letter first
        ("qdt", []),  # the letters in order
        ("xyz", []),
    ],
)
def test_a_short_word_abbreviates_the_words_holding_its_letters_in_order(
    short: str, expected: list[str]
) -> None:
    assert abbreviated_by(short, LONG) == expected
