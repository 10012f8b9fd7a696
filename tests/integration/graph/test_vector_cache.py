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
        query = await second.query("notas bloqueadas")
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
    assert await second.nearest(TEXTS, await second.query("late loads by carrier"), 1) == [1]
