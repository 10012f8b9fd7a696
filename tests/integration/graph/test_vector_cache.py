"""Embeddings are cached: a restart does not re-embed unchanged text (pgvector, else disk)."""

from __future__ import annotations

from pathlib import Path

import asyncpg
import numpy as np

from orquestra.graph.embeddings import E5Embeddings
from orquestra.graph.vector_cache import VectorCache

TEXTS = ["notas fiscais bloqueadas", "cargas atrasadas por transportadora", "títulos vencidos"]


async def test_pgvector_cache_survives_a_restart(db_url: str, demo_db, tmp_path: Path) -> None:
    embeddings = E5Embeddings()
    pool = await asyncpg.create_pool(db_url, min_size=1, max_size=2)
    try:
        first = await VectorCache.open(embeddings, pool, tmp_path)
        assert first.backend == "pgvector"
        unique = [f"{t} {tmp_path.name}" for t in TEXTS]  # new to this database
        vectors = await first.passages(unique)
        assert first.embedded == 3
        second = await VectorCache.open(embeddings, pool, tmp_path)  # a new process, in effect
        again = await second.passages(unique)
        assert second.embedded == 0
        assert np.allclose(vectors, again, atol=1e-5)
        query = await second.query("notas bloqueadas", asker="t")
        assert await second.nearest(unique, query, 1) == [0]
    finally:
        await pool.close()


async def test_disk_cache_without_pgvector(tmp_path: Path) -> None:
    embeddings = E5Embeddings()
    first = await VectorCache.open(embeddings, None, tmp_path)
    assert first.backend == "disk"
    await first.passages(TEXTS)
    second = await VectorCache.open(embeddings, None, tmp_path)
    await second.passages(TEXTS)
    assert (first.embedded, second.embedded) == (3, 0)
    assert await second.nearest(
        TEXTS, await second.query("late loads by carrier", asker="t"), 1
    ) == [1]


class CountingEmbeddings(E5Embeddings):
    """The real embeddings, counting the query vectors it computes."""

    computed = 0

    async def aembed_query(self, text: str) -> list[float]:
        type(self).computed += 1
        return await super().aembed_query(text)


async def test_query_vectors_are_kept_per_asker_only(tmp_path: Path) -> None:
    """The stages of one person's turn share a query vector; another tenant (or a colleague)
    asking the same words gets none of it, so its timing cannot tell that someone asked."""
    cache = await VectorCache.open(CountingEmbeddings(), None, tmp_path)
    question = "valor vencido por cliente"
    first = await cache.query(question, asker="101\x1fana")
    await cache.query(question, asker="101\x1fana")
    assert CountingEmbeddings.computed == 1  # the same turn's stages share it
    other = await cache.query(question, asker="102\x1fbruno")
    await cache.query(question, asker="101\x1fcarla")
    assert CountingEmbeddings.computed == 3
    assert np.allclose(first, other)
