"""Reading the prompts a stage sends: `## Title` sections, today's date, the language."""

from __future__ import annotations

import re
from datetime import date

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


def today_in(messages: list[BaseMessage], fallback: date) -> date:
    text = "\n".join(str(m.content) for m in messages)
    found = re.search(r"(?:Today is|## Today\n)\s*(\d{4}-\d{2}-\d{2})", text)
    return date.fromisoformat(found.group(1)) if found else fallback


def language_in(system: str) -> str:
    """`pt` or `en` from "in Portuguese/English" in a system prompt."""
    return "en" if re.search(r"\bEnglish\b", system) else "pt"
