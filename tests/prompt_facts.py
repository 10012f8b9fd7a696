"""What a hosted model reads in Orquestra's prompts, as the facts an in-process model is handed.

Over the wire there are no hints: the fake provider (`tests.fake_provider`) answers with the
offline model, which takes only `ModelHints`, so it reads them here from the prompt's words
— the stages' `## Title` sections, the librarian's glossary and documents, the date, the
language and the licence to ask — as a hosted model would read them. Only tests do this;
Orquestra's own offline model never reads a prompt.
"""

from __future__ import annotations

import json
import re
from datetime import date

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from orquestra.ddl_catalog.data_values import FoundValue
from orquestra.ddl_catalog.knowledge import Chunk
from orquestra.graph.hints import GlossaryLine, ModelHints, ShownRows

FOUND_LINE = re.compile(r"""^"(.+)": (\w+)\.(\w+) = '((?:[^']|'')*)'(.*)$""")
FOUND_PART = re.compile(r" AND \w+\.(\w+) = '((?:[^']|'')*)'")


def found_values_of(section: str) -> tuple[FoundValue, ...]:
    """The SQL writer's `Values in the data` lines, as the stage found them (a part of several
    values, which names no row, is left out as the offline writer leaves it)."""
    found = []
    for line in section.splitlines():
        matched = FOUND_LINE.match(line.strip())
        if matched:
            said, table, column, value, rest = matched.groups()
            parts = tuple((c, v.replace("''", "'")) for c, v in FOUND_PART.findall(rest))
            value = value.replace("''", "'")
            found.append(FoundValue(said, (), table, column, value, "exact", parts))
    return tuple(found)


GLOSSARY_LINE = re.compile(r"(?m)^- (.+?)(?: \((.*?)\))?: (.+)$")
PASSAGE_HEAD = re.compile(r"^\[([^\]]+)\] (.*)$")


def sections(messages: list[BaseMessage]) -> dict[str, str]:
    """The `## Title` sections of the first user message, by lower-case title (a message
    without any: its whole text, as `message`)."""
    text = next((str(m.content) for m in messages if isinstance(m, HumanMessage)), "")
    found: dict[str, str] = {}
    for block in re.split(r"(?m)^## ", text):
        if block.strip():
            title, _, body = block.partition("\n")
            found[title.strip().lower()] = body.strip()
    if not found and text:
        found["message"] = text.strip()
    return found


def read_hints(role: str, messages: list[BaseMessage]) -> ModelHints:
    """The facts of `role`'s call, read from its prompt."""
    text = "\n".join(str(m.content) for m in messages)
    system = "\n".join(str(m.content) for m in messages if isinstance(m, SystemMessage))
    said = sections(messages)
    today = re.search(r"(?:Today is|## Today\n)\s*(\d{4}-\d{2}-\d{2})", text)
    hints = ModelHints(
        today=date.fromisoformat(today.group(1)) if today else None,
        lang="en" if re.search(r"\bEnglish\b", system) else "pt",
        question=said.get("question", ""),
        message=said.get("message", ""),
    )
    if role == "augmenter":
        return hints.merged(
            ModelHints(
                previous_question=said.get("previous question", ""),
                clarification_answers=tuple(
                    re.findall(r"(?m)^A: (.*)$", said.get("clarifications", ""))
                ),
                can_ask="allowed to ask: yes" in system,
            )
        )
    if role == "sql_writer":
        # The whole list as one text: the offline writer looks for its SQL in what was tried.
        tried = said.get("already tried", "")
        section = said.get("values in the data", "")
        found = found_values_of(section)
        missing = re.findall(r'"([^"]+)"', section.partition("found in no name:")[2])
        searched = (*(f.said for f in found), *missing)
        return hints.merged(
            ModelHints(
                tried_sql=(tried,) if tried else (), found_values=found, names_searched=searched
            )
        )
    if role == "fixer":
        failing, error = said.get("failing sql", ""), said.get("error", "")
        return hints.merged(ModelHints(failing_sql=failing, error=error))
    if role == "librarian":
        glossary_part, _, documents = system.partition("Documents:")
        return hints.merged(
            ModelHints(glossary=glossary_of(glossary_part), documents=passages_of(documents))
        )
    if role == "judge":
        kind = "answer" if said.get("kind", "") == "data answer" else "knowledge"
        return hints.merged(ModelHints(answer=said.get("answer", ""), answer_kind=kind))
    if role == "answer":
        return hints.merged(answer_facts(said))
    return hints


def glossary_of(text: str) -> tuple[GlossaryLine, ...]:
    """The `- term (synonyms): definition` lines."""
    return tuple(
        GlossaryLine(term, tuple(s.strip() for s in synonyms.split(",") if s.strip()), said)
        for term, synonyms, said in GLOSSARY_LINE.findall(text)
    )


def passages_of(text: str) -> tuple[Chunk, ...]:
    """The `[source] title` passages, each running to the next one's heading."""
    passages: list[Chunk] = []
    for block in text.strip().split("\n\n"):
        head, _, body = block.partition("\n")
        if found := PASSAGE_HEAD.match(head):
            passages.append(Chunk(found.group(1), found.group(2), body))
        elif passages:
            last = passages[-1]
            passages[-1] = Chunk(last.source, last.title, f"{last.text}\n\n{block}")
    return tuple(passages)


def answer_facts(said: dict[str, str]) -> ModelHints:
    """The answer writer's facts: the rows (`N of M rows`, then JSON lines), units, labels,
    the analysis, the explanation and the assumption."""
    lines = said.get("result", "").splitlines()
    header = lines[0] if lines else ""
    total = re.search(r"of (\d+) rows", header)
    rows = ShownRows(
        tuple(json.loads(line) for line in lines[1:] if line),
        int(total.group(1)) if total else None,
        "truncated" in header,
    )
    analysis = said.get("analysis", "")
    return ModelHints(
        rows=rows if lines else None,
        units=pairs(said.get("units", "")),
        labels=pairs(said.get("labels", "")),
        analysis=json.loads(analysis) if analysis else None,
        concept_explanation=said.get("concept explanation", ""),
        assumption=said.get("assumption", ""),
    )


def pairs(text: str) -> dict[str, str]:
    """`name: text` lines."""
    found = (line.split(":", 1) for line in text.splitlines() if ":" in line)
    return {name.strip(): value.strip() for name, value in found if name.strip() and value.strip()}
