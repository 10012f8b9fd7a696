"""Source selection with the real embedded embeddings: the tables a question needs."""

from __future__ import annotations

import numpy as np
import pytest

from orquestra.ddl_catalog import load_catalog
from orquestra.ddl_catalog.render import render_schema
from orquestra.ddl_catalog.selection import SourceIndex, table_document
from orquestra.graph.embeddings import E5Embeddings


@pytest.fixture(scope="module")
def index_and_model() -> tuple[SourceIndex, E5Embeddings]:
    catalog = load_catalog()
    model = E5Embeddings()
    tables = list(catalog.tables.values())
    vectors = np.asarray(model.embed_documents([table_document(t) for t in tables]))
    return SourceIndex(catalog, {t.name: v for t, v in zip(tables, vectors, strict=True)}), model


@pytest.mark.parametrize(
    ("question", "needed"),
    [
        ("status da nota 40908", {"eventos_rastreamento", "notas_fiscais"}),
        ("onde está a carga 7001?", {"cargas"}),
        ("faturamento por mês em 2026", {"notas_fiscais"}),
        ("top 5 clientes por valor vencido", {"clientes", "titulos"}),
        ("cargas atrasadas por transportadora", {"cargas", "transportadoras"}),
        ("quantas notas bloqueadas em maio?", {"notas_fiscais"}),
        ("which carrier has the most late shipments?", {"cargas", "transportadoras"}),
        ("overdue bills by customer", {"titulos", "clientes"}),
    ],
)
def test_selection_finds_the_tables(question: str, needed: set[str], index_and_model) -> None:
    index, model = index_and_model
    selection = index.select(question, np.asarray(model.embed_query(question)))
    assert needed <= set(selection.tables), selection.tables
    assert len(selection.tables) <= 5


def test_join_key_expansion_adds_the_table_in_between(index_and_model) -> None:
    index, model = index_and_model
    question = "quantidade de itens vendidos por cliente"
    selection = index.select(question, np.asarray(model.embed_query(question)))
    assert {"itens_pedido", "clientes", "pedidos"} <= set(selection.tables)


def test_glossary_terms_come_with_their_metric(index_and_model) -> None:
    index, model = index_and_model
    question = "qual foi o ticket médio em 2025?"
    selection = index.select(question, np.asarray(model.embed_query(question)))
    assert "ticket médio" in [t.term for t in selection.terms]
    text = render_schema(index.catalog, selection.tables, selection.terms)
    assert "metric: SELECT AVG(valor_nota) FROM notas_fiscais WHERE status = 'AUTORIZADA'" in text


def test_selected_schema_is_much_smaller_than_the_whole_catalog(index_and_model) -> None:
    index, model = index_and_model
    question = "status da nota 40908"
    selection = index.select(question, np.asarray(model.embed_query(question)))
    chosen = render_schema(index.catalog, selection.tables, selection.terms)
    everything = render_schema(index.catalog, index.catalog.tables, index.catalog.glossary)
    assert len(chosen) < 0.4 * len(everything)
