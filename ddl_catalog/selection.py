"""Source selection: which catalog tables (and glossary terms) a question needs.

Two signals, then the join graph:
1. lexical: table names and synonyms, enumerated values and glossary terms found in the
   question (accents and plurals folded);
2. semantic: similarity between the question's embedding and each table's description;
3. join-key expansion: the chosen tables are connected through the shortest join paths,
   adding the tables in between, so the SQL writer can always join what it was given.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

from orquestra.ddl_catalog.model import Catalog, GlossaryTerm, Table
from orquestra.ddl_catalog.text import phrase_key, stem, words

TABLE_HIT = 1.0
VALUE_HIT = 0.6
COLUMN_HIT = 0.25
MAX_CORE_TABLES = 4
DOCUMENT_CHARS = 600
Phrase = tuple[str, ...]
"""A phrase as `phrase_key` compares it: folded, stemmed words."""


@dataclass(frozen=True)
class Selection:
    """Tables the SQL writer sees, the systems they belong to, and the terms involved."""

    tables: tuple[str, ...]
    systems: tuple[str, ...]
    terms: tuple[GlossaryTerm, ...] = field(default=())
    scores: dict[str, float] = field(default_factory=dict, compare=False)

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

    def __init__(self, catalog: Catalog, table_vectors: dict[str, np.ndarray]) -> None:
        self.catalog = catalog
        self.names = list(catalog.tables)
        self.matrix = np.stack([table_vectors[name] for name in self.names])
        self.neighbours = _join_graph(catalog)
        # Phrases folded and stemmed once, not for every question.
        self.phrases = {name: _table_phrases(catalog.table(name)) for name in self.names}
        self.term_phrases = [
            (t, [phrase_key(p) for p in [t.term, *t.synonyms]]) for t in catalog.glossary
        ]
        self.longest = max(map(len, self._keys()), default=0)
        """Words in the longest phrase: no longer run of a question's words can match."""

    def select(self, question: str, question_vector: np.ndarray, k: int = 2) -> Selection:
        """The tables `question` needs (at least one), plus the join path between them."""
        text = _runs([stem(w) for w in words(question)], self.longest)
        terms = tuple(t for t, keys in self.term_phrases if any(k in text for k in keys))
        lexical = {name: self._lexical(text, name) for name in self.names}
        for term in terms:
            for name in {*term.tables[:1], *([term.metric.table] if term.metric else [])}:
                lexical[name] = lexical.get(name, 0.0) + TABLE_HIT
        similarity = self.matrix @ question_vector
        spread = float(similarity.std()) or 1.0
        semantic = {
            n: float((s - similarity.mean()) / spread)
            for n, s in zip(self.names, similarity, strict=True)
        }
        scores = {n: lexical[n] + 0.35 * semantic[n] for n in self.names}
        core = [
            n
            for n in sorted(self.names, key=scores.__getitem__, reverse=True)
            if lexical[n] >= TABLE_HIT
        ][:MAX_CORE_TABLES]
        if not core:
            core = sorted(self.names, key=scores.__getitem__, reverse=True)[:k]
        tables = self._connect(core)
        systems = tuple(s.name for s in self.catalog.systems if any(t in tables for t in s.tables))
        ordered = tuple(n for n in self.names if n in tables)
        return Selection(ordered, systems, terms, scores)

    def _lexical(self, text: set[tuple[str, ...]], name: str) -> float:
        """The table's lexical score; `text` is the question's runs of words (`_runs`)."""
        names, columns = self.phrases[name]
        score = TABLE_HIT if any(key in text for key in names) else 0.0
        for values, synonyms in columns:
            if any(key in text for key in values):
                score += VALUE_HIT
            if any(key in text for key in synonyms):
                score += COLUMN_HIT
        return score

    def _keys(self) -> list[tuple[str, ...]]:
        """Every phrase a question is matched against: names, values, synonyms, terms."""
        keys = [key for _, phrases in self.term_phrases for key in phrases]
        for names, columns in self.phrases.values():
            keys += names
            keys += [key for values, synonyms in columns for key in (*values, *synonyms)]
        return keys

    def _connect(self, core: list[str]) -> set[str]:
        """`core` plus every table on a shortest join path between them."""
        chosen = {core[0]}
        for name in core[1:]:
            chosen |= set(_shortest_path(self.neighbours, chosen, name))
        return chosen


def _runs(text: list[str], longest: int) -> set[tuple[str, ...]]:
    """Every run of 1 to `longest` consecutive words of `text` (folded and de-pluralised):
    a phrase occurs in the question exactly when it is one of them, so each of the catalog's
    thousands of phrases is a set lookup rather than a scan of the question.

    >>> sorted(_runs(["red", "fox", "runs"], 2))
    [('fox',), ('fox', 'runs'), ('red',), ('red', 'fox'), ('runs',)]
    """
    return {
        tuple(text[i : i + size])
        for size in range(1, longest + 1)
        for i in range(len(text) - size + 1)
    }


def _table_phrases(table: Table) -> tuple[list[Phrase], list[tuple[list[Phrase], list[Phrase]]]]:
    """The table's name phrases, and each column's value phrases and name phrases."""
    names = [phrase_key(p) for p in [table.name.replace("_", " "), *table.meta.synonyms.all()]]
    columns = [
        (
            [phrase_key(v) for v in c.meta.values]
            + [phrase_key(w) for ws in c.meta.value_synonyms.values() for w in ws],
            [phrase_key(p) for p in c.meta.synonyms.all() if len(p) > 3],
        )
        for c in table.columns
    ]
    return names, columns


def _join_graph(catalog: Catalog) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in catalog.tables}
    for table in catalog.tables.values():
        for join in table.meta.joins:
            if set(join.on) == {table.tenant_column}:
                continue  # a join on the tenant column alone relates every row to every row
            graph[table.name].add(join.to)
            graph[join.to].add(table.name)
    return graph


def _shortest_path(graph: dict[str, set[str]], sources: set[str], target: str) -> list[str]:
    """Tables from the nearest of `sources` to `target` (just `target` if unreachable)."""
    previous: dict[str, str | None] = {s: None for s in sources}
    queue = deque(sources)
    while queue:
        node = queue.popleft()
        if node == target:
            path = []
            step: str | None = node
            while step is not None:
                path.append(step)
                step = previous[step]
            return path
        for neighbour in sorted(graph[node]):
            if neighbour not in previous:
                previous[neighbour] = node
                queue.append(neighbour)
    return [target]
