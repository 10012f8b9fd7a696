"""What every reading of a question is given: the question, its words and what it names.

A `Question` is built once per question, before any reading (`parser.question_of`), and never
changes: each reading of `readings.READINGS` is `reading(question, intent)`, reads what it needs
from the question, and writes what it understood into the intent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date

from orquestra.ddl_catalog.model import Catalog
from orquestra.offline.intent import Intent
from orquestra.offline.lexicon import Lexicon, Meaning
from orquestra.offline.periods import Period

Match = tuple[int, int, list[Meaning]]
"""A phrase of the catalog in the question: (first token, token after the last, meanings)."""


@dataclass(frozen=True)
class Question:
    """One question, normalised and read into words, with what it names, for the readings."""

    question: str
    """The question after the normalising steps ("unpaid" is "not paid", "vlr" is "valor")."""
    text: str
    """`question` folded (lower case, no accents)."""
    said: str
    """`question` without the row's own name (`named`): the words as typed, otherwise."""
    tokens: tuple[str, ...]
    """The words of `said`, folded, linking verbs aside ("tarefas estão atrasadas")."""
    named: str | None
    """A row's own name said in the question ("Empório São Jorge ME")."""
    entity: tuple[str, str, int] | None
    """The row named by its number ("tarefa 12"): (table, key column, number)."""
    tenant_value: int | None
    """The tenant named by its number ("loja 2")."""
    entity_tokens: frozenset[int]
    """The positions of the tokens that named the row or the tenant ("tarefa nº 12")."""
    masked: str
    """`tokens` joined, the row's tokens hidden ("#"): the text the periods and the
    recency are read in."""
    periods: tuple[Period, ...]
    """Every period the question names, in order (read in `masked`)."""
    found: tuple[Match, ...]
    """The catalog's phrases in `tokens` as found (the row's tokens aside)."""
    matches: tuple[Match, ...]
    """The same phrases as read: a value right after its column's name is that value ("do
    segmento indústria"), a word both a value of rows named and another table is the value."""
    unranked: str
    """`tokens` joined, the words of a value's name of several words hidden ("discordância
    maior"): the text a ranking is read in."""
    unsorted: str
    """`text` without the words that sort a list ("largest first"): the text an aggregate
    word is read in."""
    numeric_phrases: frozenset[str]
    """Phrases (as found) that name a numeric column."""
    amounts: frozenset[str]
    """Phrases (as found) that name an amount of something ("quilos"), not a table."""
    days_late: int | None
    """ "vencidos há mais de 60 dias": the days past a deadline, read off before the rest."""
    catalog: Catalog
    lexicon: Lexicon
    today: date
    clauses: bool
    """Whether the question is read as several clauses too (a clause itself is not)."""
    read_clause: Callable[[str], Intent] = field(compare=False)
    """How one clause of the question is read (a whole reading, with no further split)."""
