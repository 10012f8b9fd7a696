"""Abbreviations people type, spelled out before a question is read.

Operators write "vlr", "qtd de pedidos", "cli 1498", "fat. do mês retrasado". Which catalog
word an abbreviation shortens is found the way the out-of-scope rail finds it: a dotted word,
or one with no vowel, whose letters appear in order in a catalog or glossary word, the first
letter first ("vlr" → "valor"). A short word the catalog does not know, before a number or a
"de"/"of", that starts a catalog word is one too ("cli 1498"). Metric words are preferred,
then table names, then column names. Chat shorthand for everyday words ("pq", "tb", "qto")
is a small fixed list: it abbreviates no catalog word.
"""

from __future__ import annotations

import re
from functools import partial

from orquestra.ddl_catalog.model import Catalog, per_catalog
from orquestra.ddl_catalog.text import abbreviated_by, fold, stem, words
from orquestra.offline.lang import alternation, first_word, mapping, word_set
from orquestra.offline.lang import words as words_of
from orquestra.offline.lexicon import FUNCTION_WORDS, Lexicon
from orquestra.offline.periods import MONTHS, NUMBER_WORDS, ORDINALS, SPANS, UNITS

CHAT_SHORTHAND: dict[str, str] = dict(mapping("chat_shorthand"))
"""Shorthand for everyday words of either language."""
TIME_WORDS = {*MONTHS, *NUMBER_WORDS, *ORDINALS, *SPANS, *UNITS}
TIME_WORDS |= {*words_of("year_noun"), *words_of("hour_noun")}
"""Words the period reader knows: never an abbreviation ("tri", "mês")."""


_said = partial(alternation, longest_first=False, any_spaces=False)
"""A concept's words as a regular-expression alternation, as spelled (in the data's order,
a space one space)."""


HOW_MANY = re.compile(
    rf"\b({_said('quantity_abbreviations')})\.?\s+{_said('of_without_article')}\s+", re.IGNORECASE
)
"""A quantity word before "de"/"of" and a thing counted: "how many"."""
NUMBER_OF = re.compile(
    rf"\b{_said('number_sign_abbreviations')}\s*(?={_said('of_any_article')}\s)", re.IGNORECASE
)
"""The number sign before "de" ("nº de títulos", "nro de pedidos"): "número", how many."""
NUMBER_SPELLED = first_word("number_sign_spelled_out")
"""The word the number sign is read as ("número")."""
HOW_MANY_SPELLED = first_word("quantity_abbreviation_spelled_out")
"""The words a quantity abbreviation before a counted thing is read as ("quantos")."""
OWN_QUANTITY = words_of("own_quantity_column_words")
"""What a catalog's own quantity column may be called ("qtd"): its rows are counted in units."""
OPENING_OF = re.compile(rf"\s*({_said('of_singular')})\b")
"""A "de"/"of" right after a question's first word ("fat do mês passado")."""
VOWELLESS = re.compile(r"[b-df-hj-np-tv-xz]{3,5}")
KEPT = set(word_set("vowelless_words"))
"""Vowelless words that are words already (units, "vs", "ytd")."""
TOKEN = re.compile(r"[a-zà-ÿ]+\.?", re.IGNORECASE)
SHORTENED = re.compile(r"[a-z]{3,4}")
"""A short word read as the start of a catalog word ("cli"), when placed as a noun is."""


def spelled_out(question: str, lexicon: Lexicon) -> str:
    """`question` with its abbreviations replaced by the words they shorten."""
    longer = _long_words(lexicon.catalog)
    text = _how_many(NUMBER_OF.sub(f"{NUMBER_SPELLED} ", question), lexicon)
    tables = {  # the tables the question names by one word ("pedidos canc")
        m.table
        for w in words(text)
        for m in lexicon.phrases.get((stem(w),), [])
        if m.kind == "table"
    }
    pieces: list[str] = []
    last = 0
    for found in TOKEN.finditer(text):
        at_start = not text[: found.start()].strip()
        word = _expanded(found.group(0), text[found.end() :], at_start, lexicon, longer, tables)
        if word is not None:
            pieces += [text[last : found.start()], word]
            last = found.end()
    return "".join([*pieces, text[last:]]) if pieces else text


def _placed_as_a_noun(after: str, at_start: bool) -> bool:
    """Before a number ("cli 1498"), or opening the question before "de"/"of" ("fat do mês
    passado"): where a thing is named, not where an ordinary short word would be."""
    return bool(re.match(r"\s*\d", after) or (at_start and OPENING_OF.match(after)))


def _expanded(
    token: str, after: str, at_start: bool, lexicon: Lexicon, longer: list[str], tables: set[str]
) -> str | None:
    dotted = token.endswith(".") and bool(re.match(r"[ \t]+\S", after))
    short = fold(token.rstrip("."))
    if token.rstrip(".").isupper() or short in KEPT:
        return None  # "SP", "RJ": a code written as one, not an abbreviation
    if short in CHAT_SHORTHAND:
        return CHAT_SHORTHAND[short]
    if short in FUNCTION_WORDS or short in TIME_WORDS or stem(short) in lexicon.vocabulary:
        return None
    if VOWELLESS.fullmatch(short):
        found = abbreviated_by(short, longer)
    elif dotted or (SHORTENED.fullmatch(short) and _placed_as_a_noun(after, at_start)):
        found = [w for w in longer if w.startswith(short) and len(w) > len(short)]
    elif SHORTENED.fullmatch(short) and len(short) == 4:
        # "NF bloq": the start of one state's word ("bloqueada"); of its genders, the one
        # of a table the question names ("pedidos canc": "cancelado")
        states = {w: t for w, t in _state_words(lexicon.catalog).items() if w.startswith(short)}
        same = len({w[:-1] for w in states}) == 1
        found = sorted(states, key=lambda w: states[w].isdisjoint(tables)) if same else []
    else:
        return None
    if not found:
        return None
    # the singular, when both are spelled ("clientes", "cliente")
    return found[0][:-1] if found[0][-1] == "s" and found[0][:-1] in found else found[0]


def _how_many(question: str, lexicon: Lexicon) -> str:
    """ "qtd de pedidos": how many orders, unless the catalog's own quantity column answers
    it (the rows that carry a column called "qtd" are counted in units)."""
    own = {
        m.table
        for word in OWN_QUANTITY
        for m in lexicon.phrases.get((word,), [])
        if m.kind == "column"
    }

    def replace(found: re.Match[str]) -> str:
        after = words(question[found.end() :])[:3]
        stems = [stem(w) for w in after]
        for size in range(len(stems), 0, -1):
            meanings = lexicon.phrases.get(tuple(stems[:size]), [])
            tables = [m.table for m in meanings if m.kind == "table"]
            if tables:
                return found.group(0) if own & set(tables) else f"{HOW_MANY_SPELLED} "
        return found.group(0)

    return HOW_MANY.sub(replace, question)


@per_catalog
def _state_words(catalog: Catalog) -> dict[str, frozenset[str]]:
    """The words of the catalog's enumerated values, folded ("bloqueada", "transito"), each
    with the tables that have it."""
    found: dict[str, set[str]] = {}
    for table in catalog.tables.values():
        for column in table.columns:
            for value in column.meta.values:
                for w in words(value.replace("_", " ")):
                    if len(w) > 5 and w.isalpha():
                        found.setdefault(w, set()).add(table.name)
    return {w: frozenset(t) for w, t in found.items()}


@per_catalog
def _long_words(catalog: Catalog) -> list[str]:
    """The catalog's and glossary's words longer than an abbreviation, metric words first,
    then table names, then column names (each in the catalog's order)."""
    metric = [p for t in catalog.glossary if t.metric for p in [t.term, *t.synonyms]]
    glossary = [p for t in catalog.glossary for p in [t.term, *t.synonyms]]
    tables = [s for t in catalog.tables.values() for s in t.meta.synonyms.all()]
    columns = [
        s
        for t in catalog.tables.values()
        for c in t.columns
        for s in [c.name.replace("_", " "), *c.meta.synonyms.all()]
    ]
    found = [w for phrase in [*metric, *tables, *glossary, *columns] for w in words(phrase)]
    return [w for w in dict.fromkeys(found) if len(w) > 3 and w.isalpha()]
