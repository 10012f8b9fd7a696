"""Prompt files beside the stages: `nodes/<name>.md`, with `{{placeholders}}`."""

from __future__ import annotations

from functools import cache
from pathlib import Path

HERE = Path(__file__).parent


@cache
def _template(name: str) -> str:
    return (HERE / f"{name}.md").read_text(encoding="utf-8")


def preload_prompts() -> None:
    """Read every prompt file now (at start-up) rather than inside a run."""
    for path in HERE.glob("*.md"):
        _template(path.stem)


def prompt(name: str, **values: object) -> str:
    """The prompt `name` with each `{{key}}` replaced by `values[key]`."""
    text = _template(name)
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", str(value))
    return text


def sections(**parts: object) -> str:
    """A user message made of `## Title` sections (empty parts are left out)."""
    blocks = []
    for title, body in parts.items():
        text = str(body).strip() if body is not None else ""
        if text:
            blocks.append(f"## {title.replace('_', ' ').capitalize()}\n{text}")
    return "\n\n".join(blocks)
