"""The stages' facts for in-process models (`ModelHints`), handed over as data.

A hosted model reads what it needs in the prompt's words; an in-process model (the offline
one, a scripted one) takes the same facts typed, from the call's config metadata under
`HINTS_KEY`, so that rewording or renaming a prompt's section changes nothing it does. Each
stage that calls a model fills the facts of its role (`graph.llm.Meter` adds the run's date
and language to every call); the hints never leave the process and a hosted model never gets
them (`Meter` attaches them to in-process models' calls only).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from datetime import date
from typing import Any, Literal

from orquestra.ddl_catalog.data_values import FoundValue
from orquestra.ddl_catalog.knowledge import Chunk
from orquestra.graph.reviewed_examples import ReviewedExample

HINTS_KEY = "orquestra_hints"
"""Where a call's hints travel: its config metadata, never the prompt."""


@dataclass(frozen=True)
class GlossaryLine:
    """A glossary term as the librarian is shown it: every synonym, the definition in the
    turn's language."""

    term: str
    synonyms: tuple[str, ...] = ()
    definition: str = ""


@dataclass(frozen=True)
class ShownRows:
    """The rows the answer writer is shown: the first of the result, as JSON values (times
    local, periods written as the table writes them)."""

    rows: tuple[Mapping[str, Any], ...]
    """Column → value, one mapping a row."""
    row_count: int | None
    """Rows in the whole result (more than shown when it was longer than the preview)."""
    truncated: bool = False
    """The query stopped at the row cap: more rows exist than `row_count`."""


@dataclass(frozen=True, kw_only=True)
class ModelHints:
    """What the calling stage knows for certain. Every fact has an empty default: a stage
    fills those of its role, and a role reads only its own.

    >>> run = ModelHints(today=date(2026, 6, 30), lang="pt")
    >>> call = run.merged(ModelHints(failing_sql="SELECT 1", lang="en"))
    >>> call.today, call.lang, call.failing_sql
    (datetime.date(2026, 6, 30), 'en', 'SELECT 1')
    """

    today: date | None = None
    """The run's date, relative periods resolve against (the meter's, every call)."""
    lang: Literal["pt", "en"] | None = None
    """The language the answer is written in (unset before the augmenter has decided)."""
    question: str = ""
    """The complete question of the turn (router, SQL writer, fixer, librarian, judge, chat
    and answer)."""

    message: str = ""
    """Augmenter: the person's message, as written."""
    previous_question: str = ""
    """Augmenter: the thread's previous complete question (follow-ups)."""
    clarification_answers: tuple[str, ...] = ()
    """Augmenter: the person's answers to this turn's clarifying questions, in order."""
    can_ask: bool = False
    """Augmenter: it may still ask a clarifying question this turn."""

    own_company_names: tuple[str, ...] = ()
    """SQL writer: words of the question that name the asker's own company, as written:
    whose data this is, never a value to filter a row by. Another tenant's name is never
    here: it is read as any other name would be."""
    found_values: tuple[FoundValue, ...] = ()
    """SQL writer: the names the question writes, found in the asker's rows: the table, the
    column(s) and the value as the data holds it (`graph.data_values`)."""
    names_searched: tuple[str, ...] = ()
    """SQL writer: every name of the question looked up in the asker's rows, found or not."""
    read_as: tuple[tuple[str, str], ...] = ()
    """SQL writer: the question's words the catalog does not know, each read as the catalog
    phrase nearest in meaning (word as typed, phrase: "pedidos" → "orders";
    `graph.meaning`)."""
    reviewed: tuple[tuple[ReviewedExample, float], ...] = ()
    """SQL writer: the reviewed examples the asker may see nearest to the question, each with
    its similarity to the question with its found names as slots (`offline.reviewed`)."""
    tried_sql: tuple[str, ...] = ()
    """SQL writer: the SQL already tried this turn (a retry after zero rows), in order."""

    failing_sql: str = ""
    """Fixer: the SQL the guard or the database refused."""
    error: str = ""
    """Fixer: why it was refused (the guard's code or PostgreSQL's message)."""
    sql_problems: tuple[Mapping[str, Any], ...] = ()
    """Fixer: what the catalog check found wrong with the SQL (`Problem.as_dict()`: kind,
    name, table, column, suggestions, elsewhere)."""

    glossary: tuple[GlossaryLine, ...] = ()
    """Librarian: the glossary terms it is shown."""
    documents: tuple[Chunk, ...] = ()
    """Librarian: the document passages retrieved for the question."""

    answer: str = ""
    """Judge: the answer to judge."""
    answer_kind: Literal["knowledge", "answer"] | None = None
    """Judge: the librarian's concept answer, or the final data answer."""

    rows: ShownRows | None = None
    """Answer writer: the result's rows it is shown."""
    units: Mapping[str, str] = field(default_factory=dict)
    """Answer writer: column → the catalog's unit (a currency code, `ratio`, `kg`…)."""
    labels: Mapping[str, str] = field(default_factory=dict)
    """Answer writer: column → its label in the turn's language, where that differs."""
    analysis: Mapping[str, Any] | None = None
    """Answer writer: the analysis' findings (trend, top items), periods as the rows'."""
    concept_explanation: str = ""
    """Answer writer: the librarian's explanation of a term the question uses."""
    assumption: str = ""
    """Answer writer: how an incomplete question was read."""
    reviewed_example: int | None = None
    """Answer writer: the reviewed example the SQL came from, which the answer names."""

    def merged(self, facts: ModelHints | None) -> ModelHints:
        """These hints with every fact `facts` sets (differs from its default) taken from it."""
        if facts is None:
            return self
        taken = {
            f.name: getattr(facts, f.name)
            for f in fields(facts)
            if getattr(facts, f.name) != getattr(_EMPTY, f.name)
        }
        return replace(self, **taken)


_EMPTY = ModelHints()


def hints_in(metadata: Mapping[str, Any] | None) -> ModelHints:
    """The hints in a call's config metadata; empty when the caller gave none."""
    found = (metadata or {}).get(HINTS_KEY)
    return found if isinstance(found, ModelHints) else _EMPTY
