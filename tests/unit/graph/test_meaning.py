"""A question's words read by meaning with the shipped multilingual model: those the catalog
does not know, each as the catalog phrase nearest in meaning when near enough and clear of
the next (`graph.meaning`), on a made-up shop whose catalog is English only."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from orquestra.ddl_catalog import load_catalog
from orquestra.graph.embeddings import E5Embeddings
from orquestra.graph.meaning import read_by_meaning
from orquestra.graph.sources import source_index
from orquestra.graph.vector_cache import VectorCache

SHOP = Path(__file__).resolve().parents[2] / "fixtures" / "catalogs" / "shop_en"


@pytest.fixture(scope="module")
def read(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    vectors = VectorCache(E5Embeddings(), None, tmp_path_factory.mktemp("cache"))
    question = "Quantos clientes temos em cada país? E qual a cor favorita deles?"

    async def read_it() -> dict[str, str]:  # the index as the server builds it
        index = await source_index(load_catalog(SHOP), vectors)
        return dict(await read_by_meaning(index, vectors, question))

    return asyncio.run(read_it())


def test_words_of_another_language_read_as_the_catalogs(read: dict[str, str]) -> None:
    assert read.get("clientes") == "customers"
    assert read.get("país") == "country"


def test_a_word_near_nothing_in_particular_is_not_read(read: dict[str, str]) -> None:
    assert "cor" not in read and "favorita" not in read
