"""Text refused at the edge: characters PostgreSQL cannot store or no person types."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from orquestra.ddl_catalog.text import without_unsafe
from orquestra.server.schemas import ChatRequest, UnsafeText, safe_text


@pytest.mark.parametrize(
    "text", ["a\x00b", "\ud800", "x\udfffy", "bell\x07", "esc\x1b[0m", "del\x7f", "\uffff"]
)
def test_unsafe_text_is_refused(text: str) -> None:
    with pytest.raises(UnsafeText):
        safe_text(text)
    with pytest.raises(ValidationError) as caught:
        ChatRequest(message=text)
    assert isinstance(caught.value.errors()[0]["ctx"]["error"], UnsafeText)


@pytest.mark.parametrize(
    "text", ["status da nota 40908", "linha 1\nlinha 2\ttab\r", "emoji 😀 e acentos ção", ""]
)
def test_what_people_type_passes(text: str) -> None:
    assert ChatRequest(message=text).message == text


def test_thread_ids_are_checked_too() -> None:
    with pytest.raises(ValidationError):
        ChatRequest(message="oi", thread_id="abc\x00")


def test_model_output_is_cleaned_not_refused() -> None:
    assert without_unsafe("O valor\x00 é \ud800X.\n") == "O valor é X.\n"
