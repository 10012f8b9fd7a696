"""Source selection: which catalog tables (and glossary terms) a question needs, and why.

1. The question's words found in the catalog (`question_words`, `selection_words`): the
   tables it names (names, synonyms, glossary terms); each other phrase a column answers —
   a value, a column's name, a measure's head word, the languages' words for sales, time and
   who, a proper name — brings the table holding it unless one chosen already does
   (`selection_choice`). A word the catalog does not know is read as the catalog phrase
   nearest in meaning, when near enough (`NEAR`, `MARGIN`): "clientes" as `customers`.
2. A table much nearer the question in meaning than the others (`STRONG_SIMILARITY`) comes
   too; with no word found, the tables nearest in meaning are all there is.
3. The chosen tables are connected along the join graph (`join_paths`), adding the tables in
   between, so the SQL writer can always join what it was given.

Every choice keeps its reason (`Reason`): what `orquestra catalog select` shows an owner
asking why a table was, or was not, used.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise

import numpy as np

from orquestra.ddl_catalog.data_values import FoundValue
from orquestra.ddl_catalog.dictionary import readings
from orquestra.ddl_catalog.join_paths import JoinGraph
from orquestra.ddl_catalog.model import Catalog, GlossaryTerm, Table
from orquestra.ddl_catalog.question_words import (
    Match,
    QuestionWords,
    question_words,
    unknown_words,
)
from orquestra.ddl_catalog.selection_choice import Evidence, Reason, chosen_tables, evidence_of
from orquestra.ddl_catalog.selection_words import Hit, vocabulary_of

__all__ = ["MARGIN", "NEAR", "Reason", "Selection", "SourceIndex", "table_document"]

SEMANTIC_WEIGHT = 0.35
STRONG_SIMILARITY = 2.0
"""A table this near the question in meaning (standard deviations above the catalog's mean)
is chosen too, even when the question's words chose others: it is what the question is
about, said in words the catalog lacks."""
DOCUMENT_CHARS = 600
EVIDENCE_KEPT = 10
"""Tables not chosen whose evidence a selection keeps (the best scored): what an owner asks
about is a table that nearly made it."""


@dataclass(frozen=True)
class Selection:
    """Tables the SQL writer sees, the systems they belong to, and the terms involved."""

    tables: tuple[str, ...]
    systems: tuple[str, ...]
    terms: tuple[GlossaryTerm, ...] = field(default=())
    scores: dict[str, float] = field(default_factory=dict, compare=False)
    """Every table's score (words found, then nearness of meaning), best first."""
    reasons: dict[str, Reason] = field(default_factory=dict, compare=False)
    """Why each chosen table was chosen."""
    evidence: dict[str, Reason] = field(default_factory=dict, compare=False)
    """What spoke for each chosen table, and for the best-scored others the question's words
    mention (`EVIDENCE_KEPT`)."""
    similarity: dict[str, float] = field(default_factory=dict, compare=False)
    """Each table's nearness in meaning to the question (standard deviations from the mean)."""

    def as_dict(self) -> dict[str, list[str]]:
        return {
            "systems": list(self.systems),
            "tables": list(self.tables),
            "terms": [t.term for t in self.terms],
        }


def table_document(table: Table) -> str:
    """The text a table is embedded from: what it is and the words people use for it."""
    parts = [table.name.replace("_", " "), ", ".join(table.meta.synonyms.all())]
    parts += [", ".join(c.meta.synonyms.all()[:2]) for c in table.columns]
    parts.append(table.meta.description)
    # Embedding cost grows with length; the names and synonyms carry most of the meaning.
    return ". ".join(p for p in parts if p)[:DOCUMENT_CHARS]


class SourceIndex:
    """Catalog tables with their vectors and matching phrases, ready to select from."""

    def __init__(
        self,
        catalog: Catalog,
        table_vectors: dict[str, np.ndarray],
        meaning_vectors: np.ndarray | None = None,
    ) -> None:
        """`meaning_vectors`: one per phrase of `meanings(catalog)`, in order
        (`embeddings.embed_terms`); without them, no word is compared by meaning."""
        self.catalog = catalog
        self.names = list(catalog.tables)
        self.matrix = np.stack([table_vectors[name] for name in self.names])
        self.graph = JoinGraph.of(catalog)
        self.vocabulary = vocabulary_of(catalog)
        self.meanings = self.vocabulary.meanings()
        self.meaning_words = [set(self.vocabulary.key(m)) for m in self.meanings]
        self.meaning_matrix = meaning_vectors if self.meanings else None
        self.dictionary = readings(self.vocabulary)
        """A word of the languages' dictionary → the catalog phrase its concept names."""

    @staticmethod
    def meanings_of(catalog: Catalog) -> list[str]:
        """The catalog phrases a question's unknown words are compared with, by meaning."""
        return vocabulary_of(catalog).meanings()

    def unknown_words(
        self, question: str, values: Sequence[FoundValue] = (), *, dictionary: bool = True
    ) -> list[str]:
        """The question's words to compare by meaning (their vectors go to `select`): not
        those of a value found in the data, nor (`dictionary`) those the languages'
        dictionary reads."""
        found = with_values(question_words(question, self.vocabulary), values)
        if dictionary:
            found = self._by_dictionary(question, found)
        return [w for _, w in unknown_words(question, found, self.vocabulary)]

    def named(self, question: str) -> frozenset[tuple[str, str, str]]:
        """What `question` names of the catalog, by its words and the languages' dictionary:
        each table, column, listed value and term, as `(table, kind, label)`. Two questions
        that name the same ask about the same data (`graph.reviewed_examples`)."""
        found = self._by_dictionary(question, question_words(question, self.vocabulary))
        named = {(h.table, h.kind, h.label) for m in found.matches for h in m.hits}
        return frozenset(named | {("", "term", t.term) for t in found.terms})

    def dictionary_reading(self, word: str) -> str | None:
        """The catalog phrase a word the catalog does not know names, by the languages'
        dictionary (`ddl_catalog.dictionary`); None when it does not say."""
        return self.dictionary.get(self.vocabulary.key(word))

    def _by_dictionary(self, question: str, found: QuestionWords) -> QuestionWords:
        """`found` and, for the words the catalog does not know, the catalog phrase the
        dictionary reads them as: two such words in a row as one phrase first ("companhias
        aéreas"), else each alone."""
        unknown = unknown_words(question, found, self.vocabulary)
        extra: list[Match] = []
        taken: set[int] = set()
        for (at, word), (after, following) in pairwise(unknown):
            if after == at + 1 and at not in taken:
                pair = self._dictionary_match((at, after), f"{word} {following}")
                if pair is not None:
                    extra.append(pair)
                    taken |= {at, after}
        for at, word in unknown:
            single = None if at in taken else self._dictionary_match((at,), word)
            extra += [single] if single is not None else []
        return QuestionWords((*found.matches, *extra), found.terms) if extra else found

    def _dictionary_match(self, at: tuple[int, ...], said: str) -> Match | None:
        phrase = self.dictionary_reading(said)
        hits = self.vocabulary.phrases.get(self.vocabulary.key(phrase or ""), [])
        if not phrase or not hits:
            return None
        reading = f"{said} = {phrase} (dictionary)"
        return Match(at, reading, tuple(h for h in hits if not h.typed_as))

    def select(
        self,
        question: str,
        question_vector: np.ndarray,
        k: int = 2,
        words: Mapping[str, np.ndarray] | None = None,
        values: Sequence[FoundValue] = (),
    ) -> Selection:
        """The tables `question` needs (at least one), plus the join paths between them;
        `words`: the vectors of its `unknown_words`, each then read as the catalog phrase
        nearest in meaning, when near enough; `values`: the names it writes, found in the
        asker's rows (`graph.data_values`): each table holding one comes."""
        found = with_values(question_words(question, self.vocabulary), values)
        found = self._by_dictionary(question, found)
        if words and self.meaning_matrix is not None:
            found = self._translated(question, found, words)
        said = evidence_of(found)
        similarity = self.matrix @ question_vector
        spread = float(similarity.std()) or 1.0
        mean = float(similarity.mean())
        semantic = {
            n: (float(s) - mean) / spread for n, s in zip(self.names, similarity, strict=True)
        }
        scores = {
            n: (said[n].lexical() if n in said else 0.0) + SEMANTIC_WEIGHT * semantic[n]
            for n in self.names
        }
        chosen = chosen_tables(found, scores, self.graph)
        for value in values:  # a name found in several tables may be any of them
            chosen.setdefault(value.table, "value")
        nearest = max(self.names, key=semantic.__getitem__)
        similar = chosen and nearest not in chosen and semantic[nearest] >= STRONG_SIMILARITY
        if not chosen:
            chosen = {n: "similar" for n in sorted(self.names, key=scores.__getitem__)[-k:]}
        paths = self.graph.connect(sorted(chosen, key=scores.__getitem__, reverse=True), scores)
        if similar:  # joined to what the words chose, never a shortcut between them
            chosen[nearest] = "similar"
            paths = {**self.graph.connect([*paths, nearest], scores), **paths}
        empty = Evidence()

        def reason(name: str, why: str, path: tuple[str, ...] = ()) -> Reason:
            return said.get(name, empty).reason(why, semantic[name], path)

        reasons = {name: reason(name, chosen.get(name, "join"), paths[name]) for name in paths}
        ranked = dict(sorted(scores.items(), key=lambda item: item[1], reverse=True))
        others = [n for n in ranked if n in said and n not in paths][:EVIDENCE_KEPT]
        evidence = {**{n: reason(n, "") for n in others}, **reasons}
        tables = tuple(n for n in self.names if n in paths)
        systems = tuple(s.name for s in self.catalog.systems if any(t in paths for t in s.tables))
        return Selection(tables, systems, found.terms, ranked, reasons, evidence, semantic)

    def _translated(
        self, question: str, found: QuestionWords, vectors: Mapping[str, np.ndarray]
    ) -> QuestionWords:
        """`found` and, for each unknown word, the phrase nearest in meaning
        (`_nearest_meaning`)."""
        assert self.meaning_matrix is not None
        extra: list[Match] = []
        for at, word in unknown_words(question, found, self.vocabulary):
            if word not in vectors or len(self.meanings) < 2:
                continue
            similarity = self.meaning_matrix @ vectors[word]
            first = self._nearest_meaning(similarity)
            if first is not None:
                best = float(similarity[first])
                meaning = self.meanings[first]
                hits = self.vocabulary.phrases[self.vocabulary.key(meaning)]
                said = f"{word} ~ {meaning} ({best:.2f})"
                extra.append(Match((at,), said, tuple(h for h in hits if not h.typed_as)))
        return QuestionWords((*found.matches, *extra), found.terms)

    def meaning_of(self, vector: np.ndarray) -> str | None:
        """The catalog phrase a word embedded as `vector` reads as, by `_nearest_meaning`;
        None when none is near and clear enough (or the catalog has fewer than two)."""
        if self.meaning_matrix is None or len(self.meanings) < 2:
            return None
        found = self._nearest_meaning(self.meaning_matrix @ vector)
        return None if found is None else self.meanings[found]

    def _nearest_meaning(self, similarity: np.ndarray) -> int | None:
        """The phrase a word reads as, given its similarity to each: the nearest, when as
        near as `NEAR` and nearer by `MARGIN` than the next phrase that shares none of its
        words ("customers" and "customer id" say the same thing: not rivals)."""
        order = np.argsort(-similarity)
        best = int(order[0])
        own = self.meaning_words[best]
        rival = next((int(i) for i in order[1:] if not own & self.meaning_words[int(i)]), None)
        second = float(similarity[rival]) if rival is not None else -1.0
        near = float(similarity[best]) >= NEAR
        return best if near and float(similarity[best]) - second >= MARGIN else None


def with_values(found: QuestionWords, values: Sequence[FoundValue]) -> QuestionWords:
    """`found` with each value found in the data as a match of its own, in place of the
    catalog's readings of its words (a proper name's, a column's word inside a title: "Rock"
    of "Let There Be Rock"); a table's name among them stays ("the Grunge playlist")."""
    if not values:
        return found
    spans = [set(v.at) for v in values]
    kept = [
        m
        for m in found.matches
        if not any(set(m.at) <= span for span in spans)
        or any(h.kind in {"named", "term"} for h in m.hits)
    ]
    data = [
        Match(
            v.at, v.said, (Hit(v.table, "value", " and ".join(f"{c} = {x}" for c, x in v.parts)),)
        )
        for v in values
    ]
    return QuestionWords((*kept, *data), found.terms)


NEAR = 0.90
"""Cosine similarity from which a question's word is read as a catalog phrase (E5, both
sides embedded as queries: a word and its translation score 0.90-0.97, unrelated words
0.85-0.89)."""
MARGIN = 0.02
"""How much nearer than the next phrase the nearest must be: a word near several phrases
alike ("music": album, playlist) means none of them in particular."""
