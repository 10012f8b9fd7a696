"""A time taken asked in the asker's own words: "quantos dias em média as tarefas levaram da
abertura até o fim", "how many days do clients get to pay", "quanto tempo cada pessoa leva
pra aprovar". Such a question asks for the glossary's average time taken (an average whose
unit is days or hours) whose words it shares: its name and synonyms, and the words of the
dates its definition subtracts ("abertura", "fim"). Only the languages' words for asking a
time live here; which times there are is read from the glossary.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from orquestra.ddl_catalog.model import Catalog, GlossaryTerm, per_catalog
from orquestra.ddl_catalog.text import fold, stem, words
from orquestra.offline import lang
from orquestra.offline.conditions import drop_values_at
from orquestra.offline.intent import Intent
from orquestra.offline.lexicon import (
    FUNCTION_WORDS,
    ROOT_LENGTH,
    noun_roots,
    shares_root,
)
from orquestra.offline.periods import either
from orquestra.offline.question import Question

TIME_UNITS: tuple[str, ...] = lang.words("duration_units")
TIME_ASKED = re.compile(rf"\b{either('time_taken_asked')}\b")
"""The languages' ways of asking for a time taken (in folded text)."""
TIME_LEFT = re.compile(rf"\b{either('time_left')}\b")
"""A time still to run ("quantos dias faltam para vencer"): not a time taken."""
TIME_WORDS = {*TIME_UNITS, *lang.words("time_taken_words")}
"""Words every time taken shares, so they choose none."""


def is_time_taken(term: GlossaryTerm) -> bool:
    """The glossary's average time taken: an average whose unit is days, hours or minutes."""
    metric = term.metric
    return (
        metric is not None
        and metric.shape.aggregate == "avg"
        and fold(metric.unit or "") in TIME_UNITS
    )


def duration_asked(q: Question, intent: Intent) -> None:
    """A question asking how long something takes reads the glossary's time taken whose
    words it shares most, else the first one of the rows it names ("quanto tempo as tarefas
    levam"); a metric already read that is not a time gives way, and so do states read from
    the time's own words ("liberação" is the time's, not a state "liberado")."""
    tokens, text, matches, catalog = q.tokens, q.text, q.matches, q.catalog
    if intent.subject.entity is not None or not TIME_ASKED.search(text) or TIME_LEFT.search(text):
        return
    if intent.measures.metric is not None and is_time_taken(intent.measures.metric):
        _no_other_aggregate(intent)  # "average number of days late": not a count
        return
    times = [term for term in catalog.glossary if is_time_taken(term)]
    scored = [(words_shared(term, tokens, catalog), term) for term in times]
    scored = [
        (shared, term)
        for shared, term in scored
        if shared or (term.metric is not None and term.metric.table in intent.subject.tables)
    ]
    if not scored:
        return
    best = max(len(shared) for shared, _term in scored)
    shared, term = next((s, t) for s, t in scored if len(s) == best)  # the first of equals
    intent.measures.metric, intent.measures.measure = term, None
    _no_other_aggregate(intent)
    for index in shared:
        drop_values_at(intent, index, matches)


def _no_other_aggregate(intent: Intent) -> None:
    """The time taken is itself the average asked: no count, sum or average of it."""
    if intent.measures.aggregate in ("avg", "count", "sum", "total"):
        intent.measures.aggregate = None


class Spelling(NamedTuple):
    """How a time taken is said: its words, their stems, and the roots its verbs share."""

    spelled: frozenset[str]
    stems: frozenset[str]
    roots: tuple[str, ...]


@per_catalog
def spellings(catalog: Catalog) -> dict[str, Spelling]:
    """Each time taken's words, read once per catalog: its name's and synonyms', and its
    dates' (the columns its definition names, by name and synonyms), but the words every
    time shares."""
    found = {}
    for term in catalog.glossary:
        metric = term.metric
        if metric is None or not is_time_taken(term):
            continue
        said = {w for p in [term.term, *term.synonyms] for w in words(p)}
        if metric.table in catalog.tables:
            for column in catalog.table(metric.table).columns:
                if column.name in metric.shape.expression_names:
                    said |= set(words(column.name.replace("_", " ")))
                    said |= {w for s in column.meta.synonyms.all() for w in words(s)}
        said = {w for w in said if w not in FUNCTION_WORDS and fold(w) not in TIME_WORDS}
        roots = (*(r for w in said for r in noun_roots(w)), *said)
        found[term.term] = Spelling(frozenset(said), frozenset(stem(w) for w in said), roots)
    return found


def words_shared(term: GlossaryTerm, tokens: Sequence[str], catalog: Catalog) -> set[int]:
    """Where the question's words are the time's (`spellings`), also as a verb or a shorter
    form of them ("pagam": "pagamento", "liberar": "liberação")."""
    spelling = spellings(catalog).get(term.term)
    if spelling is None:
        return set()

    def shared(token: str) -> bool:
        short = stem(token)
        return (
            short in spelling.stems
            or shares_root(token, list(spelling.roots))
            or (
                len(short) >= ROOT_LENGTH - 1 and any(w.startswith(short) for w in spelling.spelled)
            )
        )

    return {
        index
        for index, token in enumerate(tokens)
        if token not in FUNCTION_WORDS and fold(token) not in TIME_WORDS and shared(token)
    }
