"""Question → intent: a small semantic parser over the catalog's vocabulary.

It finds the entity ("tarefa 12"), the period ("em maio"), the measure (a glossary metric,
or an aggregate word with a numeric column), the groupings ("por mês", "por canal"),
filters from enumerated values ("cancelados", "vencido"), a ranking ("top 5"), and whether
the question asks for a current status or what a concept means.

`parse` is three steps: the question normalised and read into a `Question` (`question_of`:
its words, what it names), the readings of `readings.READINGS` run on it in order, each
writing into one `Intent`, and the words left unknown. The normalising steps, in order:

>>> for step in NORMALISERS:
...     print(step.__name__)
_left_out_said
_month_years_spelled
_spelled_out
_un_said_apart
_without_pronoun_codes
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import date

from orquestra.ddl_catalog.model import Catalog
from orquestra.ddl_catalog.text import fold, stem, words
from orquestra.offline.asking import COUNT_NAMES, NUMBER_WORDS, SORTED
from orquestra.offline.conditions import values_after_their_column
from orquestra.offline.deadlines import days_past_deadline
from orquestra.offline.filler import kinds_unknown, without_pronoun_codes
from orquestra.offline.grouping import GRAINS, GROUP_MARKERS
from orquestra.offline.intent import Intent
from orquestra.offline.lang import alternation, first_word, mapping, word_set
from orquestra.offline.lang import words as said_as
from orquestra.offline.lang.morphology import IRREGULAR
from orquestra.offline.lexicon import (
    FUNCTION_WORDS,
    NEGATIONS,
    Lexicon,
    is_measure,
    is_numeric,
    key_column,
)
from orquestra.offline.names import find_name
from orquestra.offline.periods import DAY_RANGE, NAMED_DAYS, find_periods, month_years_spelled
from orquestra.offline.phrasing import OFTEN
from orquestra.offline.question import Match, Question
from orquestra.offline.ranking import SPEED_WORDS
from orquestra.offline.readings import LEFT_OUT, READINGS, STATUS_WORDS, participle_endings_of
from orquestra.offline.shorthand import spelled_out
from orquestra.offline.understanding import QUESTION_WORDS, unknown_words, unmapped
from orquestra.offline.unread import content_unread

COPULA = re.compile(rf"\b{alternation('copulas')}\b", re.IGNORECASE)
"""Verbs that only link a noun to its state: "tarefas estão atrasadas" names the same thing as
"tarefas atrasadas", so phrases are matched without them. (Unaccented "esta" stays: it is
also "this", as in "esta semana".)"""
LEFT_OUT_SAID = re.compile(rf"\b{alternation('left_out_phrases')}\b", re.IGNORECASE)
"""Phrases that leave rows out ("leaving out cancelled loads"): read as "excluding" (the
verb alone is an event: "loads leaving in June")."""
LEFT_OUT_READ_AS = first_word("left_out_read_as")
NUMBER_MARKERS: tuple[str, ...] = (*said_as("number_markers"), "#")
"""Words between a table's name and its row's number ("tarefa nº 12", "médico de código 12",
"carrier code 3"); "#" a number hidden (a day's)."""
YEAR = re.compile(r"(19|20)\d{2}")
YEAR_OF = [(w,) for w in said_as("of_without_article")]
"""The preposition alone between a table and a year ("as tarefas de 2025")."""
KNOWN = {*NUMBER_WORDS, *GRAINS, *STATUS_WORDS, *NEGATIONS, *NUMBER_MARKERS, *GROUP_MARKERS}
KNOWN |= set(LEFT_OUT)
KNOWN |= SPEED_WORDS
KNOWN |= COUNT_NAMES | word_set("volume")  # "top 3 tipos por volume": ranked by how many
KNOWN |= word_set("moment") | word_set("some_or_any") | word_set("each")
KNOWN |= word_set("single_row")  # "the biggest single order": one row
# "o motivo que mais aparece", "the reason that occurs most": how often, counted
KNOWN |= OFTEN
KNOWN |= word_set("nothing_words")  # "não compraram nada"
"""The parser's own words: never unknown to the catalog, never a row's name."""


def parse(
    question: str, catalog: Catalog, lexicon: Lexicon, today: date, clauses: bool = True
) -> Intent:
    """The question's intent; `clauses=False` reads one clause of it (no further split)."""
    q = question_of(question, catalog, lexicon, today, clauses)
    intent = Intent(q.question)
    for reading in READINGS:
        reading.function(q, intent)
    _unread(q, intent)
    return intent


def question_of(
    question: str, catalog: Catalog, lexicon: Lexicon, today: date, clauses: bool = True
) -> Question:
    """`question` normalised and read into words, with what it names (the row, by its number
    or its own name; the periods; the catalog's phrases): what every reading is given."""
    days_late, question = days_past_deadline(question)  # "vencidos há mais de 60 dias"
    for normalise in NORMALISERS:
        question = normalise(question, catalog, lexicon)
    text = fold(question).strip()
    # "do Empório São Jorge ME": a row's own name is read as a name, not as the catalog's words
    named = find_name(question, lexicon, {*KNOWN, *QUESTION_WORDS})
    said = question.replace(named, " ") if named else question
    tokens = tuple(words(COPULA.sub(" ", said.replace("_", " "))))
    # "de 01/04 a 15/04": days, not a row's number
    entity, tenant, taken = _row_numbered(_days_hidden(tokens), lexicon, catalog)
    masked = " ".join("#" if i in taken else t for i, t in enumerate(tokens))
    found = tuple(m for m in lexicon.match(tokens) if m[0] not in taken)
    # A ranking word inside a value's name ("discordância maior") ranks nothing.
    named_values = {
        i
        for start, end, meanings in found
        if end - start > 1 and any(m.kind == "value" for m in meanings)
        for i in range(start, end)
    }
    numeric_phrases = {
        " ".join(tokens[start:end])
        for start, end, meanings in found
        if any(
            m.kind == "column" and is_numeric(catalog.table(m.table).column(m.column))
            for m in meanings
        )
    }
    amounts = {  # "quilos": an amount of something, not a thing counted ("tarefas")
        " ".join(tokens[start:end])
        for start, end, meanings in found
        if not any(m.kind == "table" for m in meanings)
        and any(
            m.kind == "column" and is_measure(catalog.table(m.table), m.column) for m in meanings
        )
    }
    return Question(
        question=question,
        text=text,
        said=said,
        tokens=tokens,
        named=named,
        entity=entity,
        tenant_value=tenant,
        entity_tokens=taken,
        masked=masked,
        periods=tuple(find_periods(masked, today)),
        found=found,
        matches=tuple(_values_of_rows_named(values_after_their_column(found))),
        unranked=" ".join("#" if i in named_values else t for i, t in enumerate(tokens)),
        unsorted=SORTED.sub(" ", text),  # no "highest"
        numeric_phrases=frozenset(numeric_phrases),
        amounts=frozenset(amounts),
        days_late=days_late,
        catalog=catalog,
        lexicon=lexicon,
        today=today,
        clauses=clauses,
        read_clause=lambda part: parse(part, catalog, lexicon, today, clauses=False),
    )


def _unread(q: Question, intent: Intent) -> None:
    """The question's words no reading understood, and those that leave it unanswered."""
    used = q.entity_tokens | intent.unread.taken
    intent.unread.unknown = [
        w
        for w in unknown_words(intent, q.tokens, q.matches, set(used), KNOWN)
        if stem(w) not in q.lexicon.vocabulary
    ]
    intent.unread.unknown += [w for w in intent.unread.states if w not in intent.unread.unknown]
    intent.unread.unmapped = unmapped(intent, q.tokens, GROUP_MARKERS)
    intent.unread.unmapped = intent.unread.unmapped or kinds_unknown(
        intent, q.said, q.catalog, q.lexicon
    )
    # a content word no reading used: answering the rest would answer something else
    intent.unread.unmapped = intent.unread.unmapped or content_unread(
        intent, q.tokens, q.matches, q.catalog
    )


def _left_out_said(question: str, catalog: Catalog, lexicon: Lexicon) -> str:
    """ "leaving out cancelled loads": "excluding cancelled loads"."""
    return LEFT_OUT_SAID.sub(LEFT_OUT_READ_AS, question)


def _month_years_spelled(question: str, catalog: Catalog, lexicon: Lexicon) -> str:
    """ "mai/26": "mai de 2026"."""
    return month_years_spelled(question)


def _spelled_out(question: str, catalog: Catalog, lexicon: Lexicon) -> str:
    """ "vlr", "fat.", "qtd de pedidos": the words they shorten."""
    return spelled_out(question, lexicon)


def _without_pronoun_codes(question: str, catalog: Catalog, lexicon: Lexicon) -> str:
    """ "paid us": a pronoun, not the type code "US"."""
    return without_pronoun_codes(question, catalog)


NEGATING_PREFIXES = mapping("negating_prefixes")
"""A prefix that says its participle did not happen, and the negation it is read as."""
UN_ENDINGS = "|".join(map(re.escape, participle_endings_of("negating_prefixes")))
UN = re.compile(
    rf"\b({alternation('negating_prefixes')})"
    rf"([a-z]{{2,}}(?:{UN_ENDINGS})"
    rf"|{alternation('irregular_participles_after_un')})\b(?:\s+([a-z]+))?",
    re.IGNORECASE,
)
"""English "un-" before a participle ("unsigned", "unpaid"); never "unidade", "unit"."""


def _un_said_apart(question: str, catalog: Catalog, lexicon: Lexicon) -> str:
    """ "the oldest unpaid bill", "unsigned reports": an English "un-" before a word the
    catalog knows (a state, a date's verb) says it did not happen, read as "not paid"."""

    def apart(found: re.Match[str]) -> str:
        rest, noun = found.group(2).lower(), found.group(3)
        known = stem(rest) in lexicon.vocabulary or (rest,) in lexicon.phrases
        if not (known or rest in IRREGULAR):
            return found.group(0)
        negation = NEGATING_PREFIXES[found.group(1).lower()]
        # "unsigned reports": "reports not signed", never a metric's "signed reports"
        if noun and noun.lower() not in FUNCTION_WORDS:
            return f"{noun} {negation} {found.group(2)}"
        return f"{negation} {found.group(2)}" + (f" {noun}" if noun else "")

    return UN.sub(apart, question)


NORMALISERS: tuple[Callable[[str, Catalog, Lexicon], str], ...] = (
    _left_out_said,
    _month_years_spelled,
    _spelled_out,
    _un_said_apart,  # "unpaid": "not paid"
    _without_pronoun_codes,
)
"""The steps a question is normalised by, in order, before it is read into words (after the
days past a deadline are read off it: `deadlines.days_past_deadline`)."""


def _row_numbered(
    tokens: Sequence[str], lexicon: Lexicon, catalog: Catalog
) -> tuple[tuple[str, str, int] | None, int | None, frozenset[int]]:
    """ "tarefa 12", "tarefa nº 12", "task 12": a table phrase, then a number; the row it
    names (table, key column, number) or the tenant it names ("loja 2"), and the positions of
    the tokens that said so."""
    for position, token in enumerate(tokens):
        if not token.isdigit():
            continue
        end = position
        while end > 0 and tokens[end - 1] in NUMBER_MARKERS:
            end -= 1
        if tuple(tokens[end:position]) in YEAR_OF and YEAR.fullmatch(token):
            continue  # "as tarefas de 2025": the year, not task number 2025
        for table in lexicon.tables_ending_at(tokens, end):
            described = catalog.table(table)
            column = key_column(described, catalog)
            taken = frozenset(range(end - 1, position + 1))
            if column is not None:
                return (table, column.name, int(token)), None, taken
            if described.primary_key == (described.tenant_column,):
                return None, int(token), taken  # "store 2": the tenant itself
    return None, None, frozenset()


def _days_hidden(tokens: Sequence[str]) -> Sequence[str]:
    """`tokens` with the numbers of a range of days ("de 01/04 a 15/04/2026") hidden: a
    day is no row's number."""
    said = " ".join(tokens)
    ranges = [DAY_RANGE, *NAMED_DAYS]  # "de 01/04 a 15/04", "pedidos de 15 de junho"
    found = next((m for pattern in ranges if (m := pattern.search(said))), None)
    if found is None:
        return tokens
    first = len(said[: found.start()].split())
    last = first + len(found.group(0).split())
    return ["#" if first <= i < last and t.isdigit() else t for i, t in enumerate(tokens)]


def _values_of_rows_named(matches: Sequence[Match]) -> list[Match]:
    """ "clientes da indústria": a word that is both a value of a table the question names
    and another table's name is that value (of the rows named), not the other table."""
    named = {m.table for _s, _e, meanings in matches for m in meanings if m.kind == "table"}
    kept = []
    for start, end, meanings in matches:
        values = [m for m in meanings if m.kind == "value" and m.table in named]
        others = [
            m for m in meanings if m.kind == "table" and m.table not in {v.table for v in values}
        ]
        if values and others:
            meanings = [m for m in meanings if m not in others]
        kept.append((start, end, meanings))
    return kept
