"""A question's words read by meaning: those the catalog does not know, each as the catalog
phrase nearest in meaning ("pedidos" → "orders", "país" → "country"), so a question asked in
another language than the catalog's is read with the catalog's own words.

The words and the phrases are those of source selection (`ddl_catalog.selection`), compared
the same way (the shipped multilingual model, both sides as queries) and read by the same
rule and phrase vectors (`SourceIndex.meaning_of`: near enough, and clear of the next phrase
that shares none of its words). The catalog's phrases are embedded once, when the index is
built (`graph.sources.source_index`); the question's words are
embedded off the event loop (`embeddings.embed_terms`), never cached (no one's words show
in another's timing). The SQL writer hands the pairs to an in-process model
(`ModelHints.read_as`), which reads them as the catalog's phrases — only for a question in a
language the catalog does not speak (`catalog_languages`: its names' and its synonyms'), so a
catalog written in the question's language is read as it always was.
"""

from __future__ import annotations

from orquestra.ddl_catalog.model import Catalog, per_catalog
from orquestra.ddl_catalog.naming import language_of as names_language
from orquestra.ddl_catalog.selection import SourceIndex
from orquestra.graph.embeddings import embed_terms
from orquestra.graph.vector_cache import VectorCache


async def read_by_meaning(
    index: SourceIndex, vectors: VectorCache, question: str
) -> tuple[tuple[str, str], ...]:
    """(word as typed, catalog phrase) for each word of `question` the catalog does not know
    and that reads as one of its phrases by meaning: selection's own rule and phrase vectors
    (`SourceIndex.meaning_of`), the words embedded off the event loop."""
    # the offline model's readings: by meaning alone (the dictionary serves selection), so
    # that it reads no more words than its own checks can hold it to
    unknown = index.unknown_words(question, dictionary=False)
    if not unknown or index.meaning_matrix is None:
        return ()
    embedded = await embed_terms(vectors.embeddings, unknown)
    read = (
        (word, index.meaning_of(vector)) for word, vector in zip(unknown, embedded, strict=True)
    )
    return tuple((word, phrase) for word, phrase in read if phrase is not None)


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
