"""Source selection with the real embedded embeddings: the tables a question needs, and why.

The demo catalog (hand-written, with synonyms in two languages) and a store's catalog as
`init` writes one for an English schema (names only, proposed joins, profiled values)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from orquestra.ddl_catalog import load_catalog
from orquestra.ddl_catalog.render import render_schema
from orquestra.ddl_catalog.selection import Selection, SourceIndex
from orquestra.graph.embeddings import E5Embeddings
from tests.unit.ddl_catalog.store_catalog import index_of, write_store


@pytest.fixture(scope="module")
def model() -> E5Embeddings:
    return E5Embeddings()


@pytest.fixture(scope="module")
def demo(model: E5Embeddings) -> SourceIndex:
    return index_of(load_catalog(), model)


@pytest.fixture(scope="module")
def store(model: E5Embeddings, tmp_path_factory: pytest.TempPathFactory) -> SourceIndex:
    return index_of(write_store(tmp_path_factory.mktemp("store")), model)


def select(index: SourceIndex, model: E5Embeddings, question: str) -> Selection:
    """As `graph.sources.choose_sources` selects: the question's unknown words embedded too."""
    unknown = index.unknown_words(question)
    words = dict(zip(unknown, np.asarray(model.embed_queries(unknown)), strict=True))
    return index.select(question, np.asarray(model.embed_query(question)), words=words)


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
def test_selection_finds_the_tables(question: str, needed: set[str], demo, model) -> None:
    selection = select(demo, model, question)
    assert needed <= set(selection.tables), selection.tables
    assert len(selection.tables) <= 5


def test_join_key_expansion_adds_the_table_in_between(demo, model) -> None:
    selection = select(demo, model, "quantidade de itens por cliente")
    assert {"itens_pedido", "clientes", "pedidos"} <= set(selection.tables)
    assert selection.reasons["pedidos"].chosen_for == "join"
    assert selection.reasons["pedidos"].path[1] == "pedidos"


def test_glossary_terms_come_with_their_metric(demo, model) -> None:
    selection = select(demo, model, "qual foi o ticket médio em 2025?")
    assert "ticket médio" in [t.term for t in selection.terms]
    text = render_schema(demo.catalog, selection.tables, selection.terms)
    assert "metric: SELECT AVG(valor_nota) FROM notas_fiscais WHERE status = 'AUTORIZADA'" in text


def test_selected_schema_is_much_smaller_than_the_whole_catalog(demo, model) -> None:
    selection = select(demo, model, "status da nota 40908")
    chosen = render_schema(demo.catalog, selection.tables, selection.terms)
    everything = render_schema(demo.catalog, demo.catalog.tables, demo.catalog.glossary)
    assert len(chosen) < 0.4 * len(everything)


def test_two_named_tables_bring_every_table_between_them(store, model) -> None:
    selection = select(store, model, "list the products of each customer")
    assert set(selection.tables) == {"customers", "orders", "order_lines", "products"}
    assert selection.reasons["customers"].chosen_for == "named"
    assert selection.reasons["orders"].chosen_for == "join"
    assert selection.reasons["order_lines"].path == (
        "products",
        "order_lines",
        "orders",
        "customers",
    ) or selection.reasons["order_lines"].path == ("customers", "orders", "order_lines", "products")


def test_a_join_on_the_tenant_alone_is_never_a_bridge(store) -> None:
    # every table joins `shops` on the tenant column: two of them are not related through it
    assert store.graph.connect(["shops", "customers"], {}) == {"shops": (), "customers": ()}
    assert store.graph.connect(["shops", "orders", "customers"], {}) == {
        "shops": (),
        "orders": (),
        "customers": (),
    }
    assert store.graph.distances({"customers"})["shops"] == 1  # it still leads to them
    assert "customers" not in store.graph.distances({"shops"})


def test_a_sales_word_brings_the_table_the_catalog_calls_sales(demo, model) -> None:
    selection = select(demo, model, "quanto vendemos em maio?")
    assert selection.tables == ("pedidos",)  # its synonyms say "vendas"
    assert selection.reasons["pedidos"].chosen_for == "measure"


def test_a_sales_word_brings_the_table_of_the_transactions(store, model) -> None:
    selection = select(store, model, "revenue by category")
    assert set(selection.tables) == {"categories", "products", "order_lines"}
    assert selection.reasons["order_lines"].chosen_for == "measure"
    assert selection.reasons["products"].path == ("categories", "products", "order_lines")


def test_a_measure_column_named_in_a_table_not_named_is_brought(store, model) -> None:
    selection = select(store, model, "average unit price per category")
    assert {"categories", "order_lines", "products"} <= set(selection.tables)
    assert any("unit_price" in c for c in selection.reasons["order_lines"].columns)


def test_a_year_brings_the_nearest_table_with_a_date(store, model) -> None:
    selection = select(store, model, "customers with the most products in 2024")
    assert selection.reasons["orders"].chosen_for in {"date", "join"}
    assert "orders" in selection.tables
    only = select(store, model, "customers by state")
    assert only.tables == ("customers",)


def test_a_profiled_value_brings_the_column_that_holds_it(store, model) -> None:
    selection = select(store, model, "how many shoes were sold last month?")
    assert selection.reasons["categories"].chosen_for == "value"
    assert selection.reasons["categories"].values == ("categories.category_name = SHOES (shoes)",)
    assert {"order_lines", "products", "orders"} <= set(selection.tables)


def test_a_short_code_is_a_value_only_in_capitals(store, model) -> None:
    assert select(store, model, "orders from SP").reasons["customers"].chosen_for == "value"
    assert "customers" not in select(store, model, "orders sp").tables


def test_a_word_of_another_language_is_read_by_the_dictionary(store, model) -> None:
    selection = select(store, model, "quantos clientes temos?")
    assert selection.tables == ("customers",)
    (said,) = selection.reasons["customers"].words
    assert said == "clientes = customers (dictionary)"


def test_the_offline_models_words_to_read_by_meaning_leave_the_dictionary_out(store) -> None:
    """`graph.meaning.read_by_meaning` (the offline model's readings) asks for every word the
    catalog does not know: the dictionary serves selection only."""
    assert store.unknown_words("quantos clientes temos?") == []
    assert store.unknown_words("quantos clientes temos?", dictionary=False) == ["clientes"]


def test_a_word_the_dictionary_lacks_is_read_by_its_meaning(store, model) -> None:
    selection = select(store, model, "a clientela de cada loja")
    assert set(selection.tables) == {"customers", "shops"}
    (said,) = selection.reasons["customers"].words
    assert said.startswith("clientela ~ customers")


def test_without_the_words_vectors_nothing_is_read_by_meaning(store, model) -> None:
    question = "a clientela"
    selection = store.select(question, np.asarray(model.embed_query(question)))
    assert selection.reasons[selection.tables[0]].chosen_for == "similar"


def test_the_evidence_of_tables_not_chosen_is_kept(store, model) -> None:
    selection = select(store, model, "cancelled orders")
    assert selection.tables == ("orders",)
    assert selection.reasons["orders"].values == ("orders.status = CANCELLED (cancelled)",)
    assert set(selection.similarity) == set(store.catalog.tables)
    assert next(iter(selection.scores)) == "orders"  # best first


def test_a_catalog_with_no_joins_keeps_what_it_chose(model, tmp_path: Path) -> None:
    index = index_of(write_store(tmp_path, joins=False), model)
    assert select(index, model, "categories and customers").tables == ("customers", "categories")
