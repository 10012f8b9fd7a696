"""A row named by its own name in the question ("o pedido mais antigo do Empório São Jorge
ME", "when did Loja Cristal Ltda place their first order", or without its last words,
"Loja Cristal"): a run of capitalised words the
catalog does not know is the display name of a row of the nearest table that has names,
or of the table named right before it ("a tarefa da cliente Ana Lima Souza")."""

from __future__ import annotations

import re

from orquestra.ddl_catalog.model import Catalog, Column
from orquestra.ddl_catalog.text import fold, literal, stem, words
from orquestra.offline.intent import Intent
from orquestra.offline.joins import Joins, join_path
from orquestra.offline.lang import word_set
from orquestra.offline.lang import words as words_of
from orquestra.offline.lexicon import Lexicon, display_column

CAPITAL = r"[A-ZÀ-Ý][\w'&.\-]*"
PARTICLES = "|".join([*(re.escape(w) for w in words_of("name_particles")), "&"])
NAME = re.compile(rf"{CAPITAL}(?:\s+(?:(?:{PARTICLES})\s+)?{CAPITAL})+")
NAMING = tuple(
    dict.fromkeys(
        w
        for concept in ("name_columns", "legal_name_columns", "trade_name_columns")
        for w in words_of(concept)
    )
)
"""Display columns that hold a name people type as it is (not a description)."""


TITLES = set(word_set("titles_of_address"))
"""Forms of address written before a person's name, never part of it."""


def find_name(question: str, lexicon: Lexicon, known: set[str]) -> str | None:
    """The capitalised run of two or more words with one the catalog does not know; the
    sentence's first word and the languages' own words ("Qual", "When") lead it, not part."""
    for found in NAME.finditer(question):
        parts = found.group(0).split()
        if found.start() == 0 or fold(parts[0]) in known:
            parts = parts[1:]
        while parts and fold(parts[0]).rstrip(".") in TITLES:
            parts = parts[1:]  # "Dra. Ana Lima": the person is "Ana Lima"
        if len(parts) < 2:
            continue
        said = words(" ".join(parts))
        if any(stem(w) not in lexicon.vocabulary and w not in known for w in said):
            return " ".join(parts)
    return _one_word_after_its_table(question, lexicon, known)


ONE_WORD = re.compile(rf"(?<=\s){CAPITAL}")


def _one_word_after_its_table(question: str, lexicon: Lexicon, known: set[str]) -> str | None:
    """ "the carrier Rapidão", "the Grunge playlist": one capitalised word the catalog does
    not know, right after or right before a table's name, is that row's name."""
    for found in ONE_WORD.finditer(question):
        said = words(found.group(0))
        if len(said) != 1 or stem(said[0]) in lexicon.vocabulary or said[0] in known:
            continue
        before = words(question[: found.start()])
        after = lexicon.match(words(question[found.end() :]))
        table_after = (
            bool(after) and after[0][0] == 0 and any(m.kind == "table" for m in after[0][2])
        )
        if (before and lexicon.tables_ending_at(before, len(before))) or table_after:
            return found.group(0).rstrip(".")
    return None


def _named_by(column: Column) -> bool:
    """The column holds names people type as they are: called a name, or read as one by
    profiling (`kind: name`), not a description."""
    return column.name in NAMING or column.meta.kind == "name"


def named_row(intent: Intent, catalog: Catalog, joins: Joins) -> str | None:
    """The condition that the named row is the one its name says: the row the data holds it
    in, when found there kept in two columns (`Subject.named_split`); else on the table named
    right before the name, else the nearest table with names."""
    if not intent.subject.named:
        return None
    split = intent.subject.named_split
    if split is not None and join_path(joins.graph, set(joins.aliases), split.table) is not None:
        # found in the data, kept in two columns of one row: that row
        alias = joins.alias(split.table)
        return (
            "("
            + " AND ".join(f"{alias}.{column} = {literal(value)}" for column, value in split.parts)
            + ")"
        )
    candidates = [
        t.name
        for t in catalog.tables.values()
        if _named_by(display_column(t)) and t.primary_key != (t.tenant_column,)
    ]
    said = [t for t in intent.subject.tables if t in candidates]
    if said:
        table = said[0]
    else:
        reachable = [
            (len(path), t)
            for t in candidates
            if (path := join_path(joins.graph, set(joins.aliases), t)) is not None
        ]
        if not reachable:
            return None
        table = min(reachable)[1]
    name = display_column(catalog.table(table)).name
    column = f"{joins.alias(table)}.{name}"
    quoted = intent.subject.named.replace("'", "''")
    # people drop a name's last words ("Loja Cristal" of "Loja Cristal Ltda"): the name said
    # whole, else (no row has it whole) the first words of the row's name
    pattern = re.sub(r"([\\%_])", r"\\\1", quoted)
    whole = f"SELECT 1 FROM {table} WHERE {name} = '{quoted}'"
    return f"({column} = '{quoted}' OR ({column} ILIKE '{pattern} %' AND NOT EXISTS ({whole})))"
