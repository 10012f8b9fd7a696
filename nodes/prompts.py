"""Prompt files beside the stages: `nodes/<name>.md`, with `{{placeholders}}`.

The templates name no business: the deployment's words (assistant, business, tenant label,
topics, example questions, currency) fill their placeholders (see `nodes.wording`);
`placeholders(name)` lists what a template needs, so a test can check none is left unfilled.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from orquestra.core.settings import Settings
from orquestra.graph.resources import warm_up

HERE = Path(__file__).parent
PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")


@cache
def _template(name: str) -> str:
    return (HERE / f"{name}.md").read_text(encoding="utf-8")


@cache
def placeholders(name: str) -> frozenset[str]:
    """The `{{keys}}` the prompt `name` needs."""
    return frozenset(PLACEHOLDER.findall(_template(name)))


@warm_up
def preload_prompts(settings: Settings) -> None:
    """Read every prompt file now (at start-up) rather than inside a run."""
    for path in HERE.glob("*.md"):
        placeholders(path.stem)


def prompt(name: str, **values: object) -> str:
    """The prompt `name` with each `{{key}}` replaced by `values[key]`."""
    text = _template(name)
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", str(value))
    return text


def sections(**parts: object) -> str:
    """A user message made of `## Title` sections (empty parts are left out). No model of
    ours reads them back: a stage hands an in-process model the same facts as data
    (`graph.hints.ModelHints`), so a section may be renamed freely."""
    blocks = []
    for title, body in parts.items():
        text = str(body).strip() if body is not None else ""
        if text:
            blocks.append(f"## {title.replace('_', ' ').capitalize()}\n{text}")
    return "\n\n".join(blocks)
