"""A question's words as source selection reads them: the runs of words that are catalog
phrases (`selection_words.Vocabulary`), the languages' words for sales, time and who, a
year's number, a proper name; and the words left over, which may be another language's words
for the catalog's own (compared by meaning in `selection.SourceIndex`).

>>> from orquestra.ddl_catalog import load_catalog
>>> from orquestra.ddl_catalog.selection_words import vocabulary_of
>>> found = question_words("itens vendidos por canal", vocabulary_of(load_catalog()))
>>> for match in found.matches:
...     print(match.said, sorted({(hit.table, hit.kind) for hit in match.hits}))
itens [('itens_pedido', 'column'), ('itens_pedido', 'named'), ('produtos', 'named')]
vendidos [('pedidos', 'sale')]
canal [('pedidos', 'column')]
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass

from orquestra.ddl_catalog.model import GlossaryTerm
from orquestra.ddl_catalog.naming import said
from orquestra.ddl_catalog.selection_words import EVERYDAY, FOREIGN_LETTERS, Hit, Vocabulary
from orquestra.ddl_catalog.text import fold, stem, words

YEAR = re.compile(r"^(19|20)\d\d$")
"""A year's number, which places a question in time in any language."""
ROOT_ENDING = 2
"""Letters a verb root takes at least in a word ("vend" + "eu")."""
WORD_CHARACTERS = frozenset(string.ascii_lowercase + string.digits + "_")
"""What `text.words` keeps of a folded text."""
MAX_FOREIGN = 6
"""Words of one question compared by meaning at most (each is embedded: ~10 ms)."""


@dataclass(frozen=True)
class Match:
    """A run of the question's words that the catalog knows, and what it stands for."""

    at: tuple[int, ...]
    said: str
    hits: tuple[Hit, ...]


@dataclass(frozen=True)
class QuestionWords:
    """The question's runs of words found in the catalog, longest first, and its terms."""

    matches: tuple[Match, ...]
    terms: tuple[GlossaryTerm, ...]

    def tables(self) -> set[str]:
        return {hit.table for match in self.matches for hit in match.hits}


def question_words(question: str, vocabulary: Vocabulary) -> QuestionWords:
    """Every run of the question's words that is a catalog phrase, longest first."""
    keys = [vocabulary.word(stem(w)) for w in words(question)]
    typed = as_typed(question)
    matches, terms = [], []
    for size in range(min(vocabulary.longest, len(keys)), 0, -1):
        for start in range(len(keys) - size + 1):
            key = tuple(keys[start : start + size])
            at = tuple(range(start, start + size))
            hits = [
                h for h in vocabulary.phrases.get(key, ()) if _typed_as(h, [typed[i] for i in at])
            ]
            if size == 1 and not hits:
                hits = _concept_hits(fold(typed[start]), vocabulary)
            if hits:
                matches.append(Match(at, " ".join(typed[start : start + size]), tuple(hits)))
            terms += [t for t in vocabulary.terms.get(key, ()) if t not in terms]
    parties = vocabulary.concepts.get("party", [])
    for run in _proper_names(typed) if parties else ():
        # a word of a name is not a value nor a column ("Rock" of "Let There Be Rock")
        matches = [m for m in matches if not set(m.at) < set(run) or _names_a_table(m)]
        matches.append(Match(run, " ".join(typed[at] for at in run), tuple(parties)))
    return QuestionWords(tuple(matches), tuple(terms))


def _names_a_table(match: Match) -> bool:
    return any(hit.kind in {"named", "term"} for hit in match.hits)


def _proper_names(typed: list[str]) -> list[tuple[int, ...]]:
    """Where the question writes a proper name: two capitalised words or more in a row
    ("Ana Lima", "Iron Maiden"), which stand for a row of a table holding names.

    >>> _proper_names("Quanto a Ana Maria Lima comprou de SP em Maio".split())
    [(2, 3, 4)]
    """
    runs, run = [], []
    for at, word in enumerate([*typed, ""]):
        if word[:1].isupper() and any(c.islower() for c in word[1:]):
            run.append(at)
            continue
        if len(run) > 1:
            runs.append(tuple(run))
        run = []
    return runs


def _typed_as(hit: Hit, typed: list[str]) -> bool:
    if hit.typed_as == "upper":
        return all(w.isupper() for w in typed)
    if hit.typed_as == "title":
        return all(w[:1].isupper() for w in typed)
    return True


def _concept_hits(word: str, vocabulary: Vocabulary) -> list[Hit]:
    """A year's number stands for time; a word made of a verb root for selling or buying
    ("vendemos", "faturou") for sales."""
    if YEAR.match(word):
        return vocabulary.concepts.get("time", [])
    roots = said("sale_roots")
    if any(word.startswith(r) and len(word) >= len(r) + ROOT_ENDING for r in roots):
        return vocabulary.concepts.get("sale", [])
    return []


def unknown_words(
    question: str, found: QuestionWords, vocabulary: Vocabulary
) -> list[tuple[int, str]]:
    """(position, word as typed) of the question's words that the catalog does not know and
    that may be another language's word for one it does ("clientes" for `customer`): in no
    catalog phrase, not a small word of either language, not a number, at most
    `MAX_FOREIGN` of them."""
    matched = {at for match in found.matches for at in match.at}
    typed = as_typed(question)
    return [
        (at, word)
        for at, (word, folded) in enumerate(zip(typed, words(question), strict=True))
        if at not in matched
        and vocabulary.word(stem(folded)) not in vocabulary.known
        and len(folded) >= FOREIGN_LETTERS
        and not folded.isdigit()
        and folded not in EVERYDAY
    ][:MAX_FOREIGN]


def as_typed(question: str) -> list[str]:
    """The words of `words(question)` as typed, accents and case kept ("País" for "pais");
    the folded words themselves where a letter folds to more than one."""
    found: list[str] = []
    run = ""
    for ch in question:
        folded = fold(ch)
        if folded and all(c in WORD_CHARACTERS for c in folded):
            run += ch
        elif run:
            found, run = [*found, run], ""
    found += [run] if run else []
    folded_words = words(question)
    return found if len(found) == len(folded_words) else folded_words
