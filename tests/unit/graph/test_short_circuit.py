"""Greetings, thanks and empty messages are recognised without a model; questions are not."""

from __future__ import annotations

import pytest

from orquestra.ddl_catalog.language import detect_language
from orquestra.nodes.short_circuit import classify


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ("oi", "greeting"),
        ("Olá!", "greeting"),
        ("bom dia", "greeting"),
        ("Hello", "greeting"),
        ("boa tarde, tudo bem?", "greeting"),
        ("obrigado!", "thanks"),
        ("valeu", "thanks"),
        ("thank you", "thanks"),
        ("", "empty"),
        ("  ?! ", "empty"),
        ("oi, qual o status da nota 40908?", None),
        ("bom dia, faturamento de maio", None),
        ("status da nota 40908", None),
    ],
)
def test_classify(message: str, kind: str | None) -> None:
    assert classify(message) == kind


@pytest.mark.parametrize(
    ("message", "lang"),
    [
        ("qual o faturamento do mês?", "pt"),
        ("what is the revenue by month?", "en"),
        ("status da nota 40908", "pt"),
        ("top 5 customers by overdue amount", "en"),
    ],
)
def test_language(message: str, lang: str) -> None:
    assert detect_language(message) == lang
