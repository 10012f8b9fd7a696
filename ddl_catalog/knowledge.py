"""What ships with the catalog besides schema: the question→SQL examples and the documents.

`examples.yaml` feeds the SQL writer's few-shot examples; `docs/*.md` (FAQs, procedures) feed
the librarian, chunked by section.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict

CHUNK_CHARS = 1_200
EMBED_CHARS = 600


class Example(BaseModel):
    """A question and the SQL that answers it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    question: str
    lang: Literal["pt", "en"] = "pt"
    kind: Literal["tracking", "analytics"]
    tables: list[str] = []
    sql: str


@dataclass(frozen=True)
class Chunk:
    """A piece of a document: its title path and text."""

    source: str
    title: str
    text: str

    def passage(self) -> str:
        return f"{self.title}\n{self.text}"

    def embedded(self) -> str:
        """The text its vector is computed from: the title and the opening (cost grows with
        length; the opening says what the section is about)."""
        return self.passage()[:EMBED_CHARS]


def load_examples(folder: Path) -> list[Example]:
    path = folder / "examples.yaml"
    if not path.exists():
        return []
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return [Example.model_validate(item) for item in data.get("examples", [])]


def load_chunks(folder: Path) -> list[Chunk]:
    """Every document under `folder/docs`, split at `##` headings (long sections split again)."""
    chunks: list[Chunk] = []
    for path in sorted((folder / "docs").glob("*.md")):
        title, section = path.stem, ""
        lines: list[str] = []
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("# "):
                title = line[2:].strip()
            elif line.startswith("## "):
                chunks += _pieces(path.name, f"{title} — {section}" if section else title, lines)
                section, lines = line[3:].strip(), []
            else:
                lines.append(line)
        chunks += _pieces(path.name, f"{title} — {section}" if section else title, lines)
    return chunks


def _pieces(source: str, title: str, lines: list[str]) -> list[Chunk]:
    text = "\n".join(lines).strip()
    if not text:
        return []
    paragraphs, current, out = text.split("\n\n"), "", []
    for paragraph in paragraphs:
        if current and len(current) + len(paragraph) > CHUNK_CHARS:
            out.append(Chunk(source, title, current.strip()))
            current = ""
        current += paragraph + "\n\n"
    if current.strip():
        out.append(Chunk(source, title, current.strip()))
    return out
