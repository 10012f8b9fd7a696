"""Embedding vectors cached by (model, text): a restart does not re-embed unchanged text.

Stored in the state database (`ORQUESTRA_STATE_URL`, never the company's data database unless
pointed there) with pgvector (`orquestra_internal.embedding_cache`) when the extension is
available there, otherwise in a `.npz` file under the data folder.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
from collections import OrderedDict
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Self

import asyncpg
import numpy as np
from langchain_core.embeddings import Embeddings

from orquestra.core.database import setup_lock, take_lock
from orquestra.graph.embeddings import embed_terms, embedding_name

log = logging.getLogger(__name__)
TABLE = "orquestra_internal.embedding_cache"
TERM_KEY = "term: "
"""Prefixed to a term's text in its cache key, so a term and a passage of the same text
(embedded differently) never share a vector."""
RECENT_QUERIES = 256
"""Query vectors kept, over every asker: enough for the stages of the turns in flight."""
FILL_LOCK = 7_460_003
"""Advisory lock id held while a process fills the cache at start-up (`VectorCache.filling`)."""
FILL_WAIT_S = 300.0
"""How long a starting process waits for another to fill the cache before embedding itself:
about the slowest cold start seen (the demo's texts on two busy cores)."""


def pgvector_text(vector: np.ndarray) -> str:
    """A vector in pgvector's text form, `[0.1,0.2,…]`."""
    return "[" + ",".join(f"{x:.7g}" for x in vector) + "]"


def text_key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


class VectorCache:
    """Vectors for passages, embedding only what is not cached yet."""

    def __init__(self, embeddings: Embeddings, pool: asyncpg.Pool | None, folder: Path) -> None:
        self.embeddings = embeddings
        self.model = embedding_name(embeddings)
        self.pool = pool
        self.file = folder / f"embeddings-{text_key(self.model)[:12]}.npz"
        self.memory: dict[str, np.ndarray] = {}
        self.queries: OrderedDict[str, np.ndarray] = OrderedDict()
        self.embedded = 0
        """Passages embedded (not found in the cache) by this process."""

    @classmethod
    async def open(cls, embeddings: Embeddings, pool: asyncpg.Pool | None, folder: Path) -> Self:
        cache = cls(embeddings, pool if pool and await _has_pgvector(pool) else None, folder)
        await cache._ensure_table()
        return cache

    @property
    def backend(self) -> str:
        return "pgvector" if self.pool is not None else "disk"

    @contextlib.asynccontextmanager
    async def filling(self) -> AsyncIterator[None]:
        """Around start-up's embedding: one process at a time per state database, so that
        replicas starting together on a cold cache embed each text once (the first one)
        and the others read its vectors, instead of each embedding everything at once on
        the same cores. Best effort: past `FILL_WAIT_S`, or if the lock's connection is
        lost, a process embeds what is still missing itself (stored rows never conflict)."""
        if self.pool is None:
            yield
            return
        async with self.pool.acquire() as conn:
            transaction = conn.transaction()
            await transaction.start()
            try:
                if not await take_lock(conn, FILL_LOCK, FILL_WAIT_S):
                    log.warning("embedding cache still filled elsewhere; embedding here too")
                yield
            finally:
                with contextlib.suppress(Exception):  # releasing it only; nothing was written
                    await transaction.rollback()

    async def passages(self, texts: list[str]) -> np.ndarray:
        """One L2-normalised vector per text, in order."""
        return await self._cached(texts, "")

    async def terms(self, texts: list[str]) -> np.ndarray:
        """One L2-normalised vector per short text of the catalog (a name, a value), embedded
        to be compared with a question's words (`embeddings.embed_terms`); cached apart
        from the passages."""
        return await self._cached(texts, TERM_KEY)

    async def _cached(self, texts: list[str], side: str) -> np.ndarray:
        keys = [text_key(side + t) for t in texts]
        missing = [k for k in dict.fromkeys(keys) if k not in self.memory]
        if missing:
            self.memory.update(await self._load(missing))
        todo = {k: t for k, t in zip(keys, texts, strict=True) if k not in self.memory}
        if todo:
            if side:
                vectors = await embed_terms(self.embeddings, list(todo.values()))
            else:
                vectors = np.asarray(
                    await self.embeddings.aembed_documents(list(todo.values())), dtype=np.float32
                )
            fresh = dict(zip(todo, vectors, strict=True))
            self.memory.update(fresh)
            self.embedded += len(fresh)
            await self._store(fresh)
        return np.stack([self.memory[k] for k in keys]) if keys else np.zeros((0, 0))

    async def query(self, text: str, *, asker: str) -> np.ndarray:
        """The query vector of `text`. The last few are kept for the stages of one turn,
        keyed by who asks (`RunContext.asker`): whether anyone else asked the same question
        must not show in how long this takes."""
        key = f"{asker}\x1e{text}"
        if key in self.queries:
            self.queries.move_to_end(key)
            return self.queries[key]
        vector = np.asarray(await self.embeddings.aembed_query(text), dtype=np.float32)
        self.queries[key] = vector
        if len(self.queries) > RECENT_QUERIES:
            self.queries.popitem(last=False)
        return vector

    async def nearest(self, texts: list[str], query: np.ndarray, k: int) -> list[int]:
        """Positions in `texts` of the `k` most similar to `query` (cached texts only)."""
        if not texts:
            return []
        await self.passages(texts)
        keys = [text_key(t) for t in texts]
        if self.pool is None:
            scores = np.stack([self.memory[key] for key in keys]) @ query
            return [int(i) for i in np.argsort(-scores)[:k]]
        async with self.pool.acquire() as conn:
            rows = await conn.fetch(
                f"SELECT text_hash FROM {TABLE} WHERE model = $1 AND text_hash = ANY($2::text[])"
                " ORDER BY embedding <=> $3::vector LIMIT $4",
                self.model,
                keys,
                pgvector_text(query),
                k,
            )
        position = {key: i for i, key in enumerate(keys)}
        return [position[r["text_hash"]] for r in rows]

    async def _ensure_table(self) -> None:
        if self.pool is None:
            return
        async with self.pool.acquire() as conn, setup_lock(conn, "preparing the embedding cache"):
            await conn.execute("CREATE SCHEMA IF NOT EXISTS orquestra_internal")
            await conn.execute(
                f"CREATE TABLE IF NOT EXISTS {TABLE} (model text NOT NULL, text_hash text NOT NULL,"
                " embedding vector NOT NULL, PRIMARY KEY (model, text_hash))"
            )

    async def _load(self, keys: list[str]) -> dict[str, np.ndarray]:
        if self.pool is None:
            if not self.file.exists():
                return {}
            with np.load(self.file) as stored:
                return {k: stored[k] for k in keys if k in stored.files}
        async with self.pool.acquire() as conn:
            rows = await conn.fetch(
                f"SELECT text_hash, embedding::text FROM {TABLE} "
                "WHERE model = $1 AND text_hash = ANY($2::text[])",
                self.model,
                keys,
            )
        return {
            r["text_hash"]: np.array(r["embedding"][1:-1].split(","), dtype=np.float32)
            for r in rows
        }

    async def _store(self, fresh: dict[str, np.ndarray]) -> None:
        if self.pool is None:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            stored = dict(np.load(self.file)) if self.file.exists() else {}
            stored.update(fresh)
            np.savez(self.file, **stored)
            return
        async with self.pool.acquire() as conn:
            await conn.executemany(
                f"INSERT INTO {TABLE} (model, text_hash, embedding) VALUES ($1, $2, $3::vector)"
                " ON CONFLICT DO NOTHING",
                [(self.model, k, pgvector_text(v)) for k, v in fresh.items()],
            )


async def _has_pgvector(pool: asyncpg.Pool) -> bool:
    async with pool.acquire() as conn:
        try:
            async with setup_lock(conn, "creating the vector extension"):
                await conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        except asyncpg.PostgresError as exc:
            log.info("pgvector unavailable, caching embeddings on disk: %s", exc)
            return False
    return True
