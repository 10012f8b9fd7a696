"""A question's words read by meaning: those the catalog does not know, each as the catalog
phrase nearest in meaning ("pedidos" → "orders", "país" → "country"), so a question asked in
another language than the catalog's is read with the catalog's own words.

The words and the phrases are those of source selection (`ddl_catalog.selection`), compared
the same way (the shipped multilingual model, both sides as queries) and read by the same
rule: near enough (`NEAR`), and nearer by `MARGIN` than the next phrase that shares none of its
words (selection compares with the next phrase of all: "clientes" is near "customers" and
"customer id" alike, which say the same thing). The catalog's
phrases are embedded once and cached (`VectorCache.terms`); the question's words are
embedded off the event loop (`embeddings.embed_terms`), never cached (no one's words show
in another's timing). The SQL writer hands the pairs to an in-process model
(`ModelHints.read_as`), which reads them as the catalog's phrases — only for a question in a
language the catalog does not speak (`catalog_languages`: its names' and its synonyms'), so a
catalog written in the question's language is read as it always was.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from orquestra.ddl_catalog.model import Catalog, per_catalog
from orquestra.ddl_catalog.naming import language_of as names_language
from orquestra.ddl_catalog.selection import MARGIN, NEAR, SourceIndex
from orquestra.ddl_catalog.text import stem, words
from orquestra.graph.embeddings import embed_terms
from orquestra.graph.vector_cache import VectorCache


def nearest(similarity: np.ndarray, phrases: Sequence[str]) -> int | None:
    """The index of the phrase a word reads as, given its similarity to every phrase: the
    nearest, when near enough and clear of the next phrase that shares none of its words
    ("customers" is not a rival of "customer id": both say the same thing).

    >>> said = ["customers", "customer id", "orders"]
    >>> nearest(np.array([0.95, 0.94, 0.90]), said), nearest(np.array([0.95, 0.5, 0.94]), said)
    (0, None)
    """
    if similarity.size == 0:
        return None
    order = [int(i) for i in np.argsort(-similarity)]
    best = order[0]
    own = {stem(w) for w in words(phrases[best])}
    rivals = [i for i in order[1:] if not own & {stem(w) for w in words(phrases[i])}]
    second = float(similarity[rivals[0]]) if rivals else -1.0
    near = float(similarity[best]) >= NEAR
    return best if near and float(similarity[best]) - second >= MARGIN else None


async def read_by_meaning(
    index: SourceIndex, vectors: VectorCache, question: str
) -> tuple[tuple[str, str], ...]:
    """(word as typed, catalog phrase) for each word of `question` the catalog does not know
    and that reads as one of its phrases by meaning."""
    unknown = index.unknown_words(question)
    meanings = SourceIndex.meanings_of(index.catalog)
    if not unknown or len(meanings) < 2:
        return ()
    phrases = await vectors.terms(meanings)
    embedded = await embed_terms(vectors.embeddings, unknown)
    read = []
    for word, vector in zip(unknown, embedded, strict=True):
        found = nearest(phrases @ vector, meanings)
        if found is not None:
            read.append((word, meanings[found]))
    return tuple(read)


@per_catalog
def catalog_languages(catalog: Catalog) -> frozenset[str]:
    """The languages the catalog's own words are in: its names' (as `init` reads them), and
    each language it gives synonyms in. A question in another language is read with the
    catalog's words by meaning (`ModelHints.read_as`); in one of these, as it is."""
    tables = list(catalog.tables.values())
    names = [c.name for t in tables for c in t.columns] + [t.name for t in tables]
    spoken = {names_language(names)}
    for table in tables:
        for synonyms in [table.meta.synonyms, *(c.meta.synonyms for c in table.columns)]:
            spoken |= {code for code in ("pt", "en") if getattr(synonyms, code)}
    return frozenset(spoken)
