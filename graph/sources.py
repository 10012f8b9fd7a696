"""Source selection with its vectors: the index built from a catalog's cached embeddings, and
a question's tables chosen with its own (`ddl_catalog.selection` does the choosing).

The stages, `orquestra catalog select`, the evaluation harness and the benchmarks all select
through here, so a question's tables are the same wherever it is asked.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from orquestra.ddl_catalog.data_values import FoundValue
from orquestra.ddl_catalog.model import Catalog
from orquestra.ddl_catalog.selection import Selection, SourceIndex, table_document
from orquestra.graph.embeddings import embed_terms
from orquestra.graph.vector_cache import VectorCache


async def source_index(catalog: Catalog, vectors: VectorCache) -> SourceIndex:
    """`catalog`'s index: each table's description and each catalog phrase embedded (cached:
    only what changed is embedded again)."""
    tables = list(catalog.tables.values())
    table_vectors = await vectors.passages([table_document(t) for t in tables])
    # The catalog's vocabulary reads the languages' word files once: off the event loop.
    meanings = await asyncio.to_thread(SourceIndex.meanings_of, catalog)
    meaning_vectors = await vectors.terms(meanings) if meanings else None
    by_table = {t.name: v for t, v in zip(tables, table_vectors, strict=True)}
    return await asyncio.to_thread(SourceIndex, catalog, by_table, meaning_vectors)


async def choose_sources(
    index: SourceIndex,
    vectors: VectorCache,
    question: str,
    *,
    asker: str,
    values: Sequence[FoundValue] = (),
) -> Selection:
    """The tables `question` needs, its words the catalog does not know compared by meaning
    (embedded each time, never cached: no one's words show in another's timing); `values`:
    the names it writes found in the asker's rows (`graph.data_values`)."""
    vector = await vectors.query(question, asker=asker)
    unknown = index.unknown_words(question, values)
    embedded = await embed_terms(vectors.embeddings, unknown)  # none: no call to the model
    meant = dict(zip(unknown, embedded, strict=True))
    return index.select(question, vector, words=meant, values=values)
