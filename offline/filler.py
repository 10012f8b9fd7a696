"""Words that look like the catalog's but are the languages' own: a state's code spelled as a
pronoun ("US" a type code, "us" in "who paid us more") is that state only when typed as
codes are, in capitals ("tarefas de US"); otherwise it is the pronoun, and says nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import partial

from orquestra.ddl_catalog.model import Catalog, per_catalog
from orquestra.ddl_catalog.text import fold, words
from orquestra.offline.dating import NEW
from orquestra.offline.intent import Intent
from orquestra.offline.lang import alternation, word_set
from orquestra.offline.lang.morphology import (
    ADVERB_ENDINGS,
    PARTICIPLE_ENDINGS,
    PERSON_ENDINGS,
    PLURAL_ENDINGS,
    PROGRESSIVE_ENDINGS,
    VERB_ENDINGS,
    adjectives_after_noun,
)
from orquestra.offline.languages import language_of
from orquestra.offline.lexicon import FUNCTION_WORDS, Lexicon, Meaning
from orquestra.offline.question import Question
from orquestra.offline.understanding import QUESTION_WORDS
from orquestra.offline.unread import the_languages_own


@per_catalog
def codes_spelled_as_words(catalog: Catalog) -> frozenset[str]:
    """The enumerated values whose code is also a word people ask with ("US" and "us"), as
    written in the catalog (not those spelling a function word, "DO": the lexicon never
    reads those as codes). Read once per catalog object."""
    return frozenset(
        value
        for table in catalog.tables.values()
        for column in table.columns
        for value in column.meta.values
        if value.isupper() and fold(value) in QUESTION_WORDS - FUNCTION_WORDS
    )


_said = partial(alternation, longest_first=False, any_spaces=False)
"""A concept's words as a regular-expression alternation, as spelled (spaces single, in the
data's order)."""


SAID_APART = re.compile(rf"\b{_said('side_by_side')}\b", re.IGNORECASE)
"""How people ask for figures shown together: a comparison's manner, nothing to filter by."""


def without_pronoun_codes(question: str, catalog: Catalog) -> str:
    """`question` with the code-like words that are not typed in capitals left out ("who
    paid us more" → "who paid   more"; "tarefas de US" stays): the pronoun is filler, and
    read as the code it would filter the rows by a state nobody asked for. "Side by side"
    goes too (its "by" is no grouping).

    A question typed wholly in capitals keeps its words: there case says nothing.
    """
    question = SAID_APART.sub(" ", question)  # "… vs Q1 2025, side by side"
    codes = codes_spelled_as_words(catalog)
    if not codes or question.isupper():
        return question
    for code in codes:
        typed = re.compile(rf"\b{re.escape(code)}\b", re.IGNORECASE)

        def kept(said: re.Match[str], code: str = code) -> str:
            """The code where typed in its own capitals, else nothing."""
            return code if said[0] == code else " "

        question = typed.sub(kept, question)
    return question


VERB_LIKE = (
    *VERB_ENDINGS,
    *PARTICIPLE_ENDINGS,
    *PROGRESSIVE_ENDINGS,
    *ADVERB_ENDINGS,
    *PERSON_ENDINGS,
)
"""Endings of verb forms and adverbs: a word ending so beside the rows is how they were
done or more of the sentence ("pedidos recebidos", "orders placed", "clientes pagarem"),
not a kind of row."""
LINKING = word_set("not_describing_before_noun")
"""Words that may stand right before a noun and never describe it ("why orders")."""


def conditions_not_understood(
    tokens: Sequence[str],
    matches: Sequence[tuple[int, int, list[Meaning]]],
    lang: str,
    unknown: list[str],
    catalog: Catalog,
) -> list[str]:
    """Unknown words said of the rows as a kind of them ("pedidos urgentes", "fragile
    orders"): in Portuguese an adjective right after the rows' plural noun, agreeing with
    it (a plural too); in English one right before the noun (`adjectives_after_noun`).
    Dropped, they would answer for all the rows: they are said instead. Other unknown words
    are filler ("obrigado", "exatamente"), and the rest of the question is answered."""
    systems = {w for system in catalog.systems for w in words(system.name)}
    found = []
    for start, end, meanings in matches:
        if not any(m.kind == "table" for m in meanings):
            continue
        after = adjectives_after_noun(lang)
        beside = end if after else start - 1
        if not 0 <= beside < len(tokens):
            continue
        word = tokens[beside]
        if word not in unknown or word in systems or word in LINKING or word.endswith(VERB_LIKE):
            continue
        if the_languages_own(word):  # "rows they shipped": a pronoun, no kind of rows
            continue
        if NEW.fullmatch(word):  # "clientes novos": placed by their registration date
            continue
        agrees = tokens[end - 1].endswith(PLURAL_ENDINGS) and word.endswith(PLURAL_ENDINGS)
        if not after or agrees:
            found.append(word)
    return list(dict.fromkeys(found))


def kinds_unknown(intent: Intent, said: str, catalog: Catalog, lexicon: Lexicon) -> list[str]:
    """The unknown words of the question said as a kind of the rows ("tarefas urgentes"),
    read in the words as typed (a linking verb left in: "why is task 7" has no "why
    task")."""
    if not intent.unread.unknown:
        return []
    plain = words(said)
    lang = language_of(said, catalog)
    return conditions_not_understood(
        plain, lexicon.match(plain), lang, intent.unread.unknown, catalog
    )


EXAMPLES = re.compile(rf"\(([^()]*)\)|\b{_said('and_so_on')}\b")
"""Values given as examples: in parentheses, or closed by "etc"/"and so on"."""


def examples_of_groups(q: Question, intent: Intent) -> None:
    """ "com cada tipo de cliente (varejo, atacado etc.)": values of the column the rows
    are grouped by, given as examples of its groups, filter nothing."""
    if not EXAMPLES.search(fold(intent.question)):
        return
    for group in intent.groups:
        if group.grain is None:
            intent.where.filters.pop((group.table, group.column), None)
