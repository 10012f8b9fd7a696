"""Reading the prompts a stage sends: the system text and the user message's `## Title`
sections (the date and the language come as hints: `local_model.ModelHints`)."""

from __future__ import annotations

import re

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage


def system_text(messages: list[BaseMessage]) -> str:
    return "\n".join(str(m.content) for m in messages if isinstance(m, SystemMessage))


def user_sections(messages: list[BaseMessage]) -> dict[str, str]:
    """The `## Title` sections of the first user message, by lower-case title."""
    text = next((str(m.content) for m in messages if isinstance(m, HumanMessage)), "")
    sections: dict[str, str] = {}
    for block in re.split(r"(?m)^## ", text):
        if block.strip():
            title, _, body = block.partition("\n")
            sections[title.strip().lower()] = body.strip()
    if not sections and text:
        sections["message"] = text.strip()
    return sections
