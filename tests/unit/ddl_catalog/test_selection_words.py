"""The catalog's words as selection finds them in a question: a phrase is found exactly when
it occurs, in either number; short codes only in capitals; the words left over are those the
catalog does not know. And the join graph's paths: shortest, through the best-scored table."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from orquestra.ddl_catalog.join_paths import JoinGraph
from orquestra.ddl_catalog.question_words import question_words, unknown_words
from orquestra.ddl_catalog.selection_words import Hit, Vocabulary, vocabulary_of
from tests.unit.ddl_catalog.store_catalog import write_store


def occurs(text: list[str], key: tuple[str, ...]) -> bool:
    """The plain definition: `key` appears contiguously in `text`."""
    size = len(key)
    return any(tuple(text[i : i + size]) == key for i in range(len(text) - size + 1))


def test_a_phrase_is_found_exactly_when_it_occurs() -> None:
    rng = random.Random(17)
    lexicon = ["nota", "fiscal", "carga", "cliente", "valor", "vencido", "de", "por"]
    checked = 0
    for _ in range(300):
        vocabulary = Vocabulary()
        phrases = {tuple(rng.choice(lexicon) for _ in range(rng.randint(1, 3))) for _ in range(6)}
        for phrase in phrases:
            vocabulary.add(" ".join(phrase), Hit("t", "column", " ".join(phrase)))
        for _ in range(10):
            text = [rng.choice(lexicon) for _ in range(rng.randint(0, 9))]
            found = {m.said for m in question_words(" ".join(text), vocabulary).matches}
            for phrase in phrases:
                assert (" ".join(phrase) in found) == occurs(text, phrase), (text, phrase)
                checked += 1
    assert checked > 10_000


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Vocabulary:
    return vocabulary_of(write_store(tmp_path_factory.mktemp("store")))


def kinds(question: str, vocabulary: Vocabulary) -> dict[str, set[tuple[str, str]]]:
    found = question_words(question, vocabulary)
    return {m.said: {(h.table, h.kind) for h in m.hits} for m in found.matches}


def test_a_name_is_found_in_either_number(store: Vocabulary) -> None:
    assert ("categories", "named") in kinds("each category", store)["category"]
    assert ("categories", "named") in kinds("all categories", store)["categories"]
    assert ("order_lines", "named") in kinds("order line 3", store)["order line"]


def test_what_a_column_offers(store: Vocabulary) -> None:
    found = kinds("unit price by customer and state", store)
    assert ("order_lines", "column") in found["unit price"]
    assert ("orders", "key") in found["customer"]  # customer_id, which joins customers
    assert ("customers", "column") in found["state"]
    assert ("order_lines", "head") in kinds("the price", store)["price"]


def test_the_languages_words_for_sales_and_time(store: Vocabulary) -> None:
    assert kinds("revenue", store)["revenue"] == {("order_lines", "sale")}
    assert kinds("o que vendemos", store)["vendemos"] == {("order_lines", "sale")}
    assert kinds("in 2024", store)["2024"] == {("orders", "time")}
    assert kinds("per month", store)["month"] == {("orders", "time")}
    assert "1234" not in kinds("order 1234", store)


def test_a_short_value_only_as_typed_in_capitals(store: Vocabulary) -> None:
    assert ("customers", "value") in kinds("orders from SP", store)["SP"]
    assert "sp" not in kinds("orders from sp", store)
    assert ("categories", "value") in kinds("Shoes", store)["Shoes"]


def test_the_unknown_words_are_those_no_phrase_holds(store: Vocabulary) -> None:
    question = "quantos clientes compraram sapatos na Bahia ou no Pará em 2024?"
    found = question_words(question, store)  # "para" is a small word of Portuguese
    assert [w for _, w in unknown_words(question, found, store)] == ["clientes", "sapatos", "Bahia"]


def both_ways(*edges: str) -> dict[str, frozenset[str]]:
    """A join graph of real joins, each edge written "a-b"."""
    graph: dict[str, set[str]] = {}
    for edge in edges:
        a, b = edge.split("-")
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set()).add(a)
    return {name: frozenset(others) for name, others in graph.items()}


def test_the_shortest_path_goes_through_the_best_scored_table() -> None:
    graph = JoinGraph(both_ways("a-b", "a-c", "b-d", "c-d"))
    assert graph.connect(["a", "d"], {"c": 1.0})["c"] == ("a", "c", "d")
    assert graph.connect(["a", "d"], {"b": 1.0})["b"] == ("a", "b", "d")
    assert graph.distances({"a"}) == {"a": 0, "b": 1, "c": 1, "d": 2}


def test_a_chain_of_parents_before_a_table_two_of_them_are_parents_of() -> None:
    # customer <- order <- invoice, and payment -> customer, payment -> invoice
    graph = JoinGraph(
        both_ways("order-customer", "invoice-order", "payment-customer", "payment-invoice"),
        {
            "order": frozenset({"customer"}),
            "invoice": frozenset({"order"}),
            "payment": frozenset({"customer", "invoice"}),
        },
    )
    assert graph.connect(["customer", "invoice"], {"payment": 9.0})["order"][1] == "order"
    # between two tables that only a child relates, its link table before any other child
    graph = JoinGraph(
        both_ways("item-event", "load-event", "load-link", "link-item"),
        {"event": frozenset({"load", "item"}), "link": frozenset({"load", "item"})},
        frozenset({"link"}),
    )
    assert "link" in graph.connect(["load", "item"], {"event": 9.0})


def test_the_nearest_table_is_connected_first() -> None:
    graph = JoinGraph(both_ways("a-b", "b-c", "c-d"))
    chosen = graph.connect(["d", "a", "c"], {})
    assert chosen == {"d": (), "a": (), "c": (), "b": ("c", "b", "a")}


def test_foreign_keys_in_the_ddl_are_joins_too(tmp_path: Path) -> None:
    folder = tmp_path / "catalog"
    (folder / "systems").mkdir(parents=True)
    (folder / "systems" / "s.yaml").write_text(
        "system: s\nddl: |\n"
        "  CREATE TABLE a (id integer PRIMARY KEY);\n"
        "  CREATE TABLE b (id integer PRIMARY KEY, a_id integer REFERENCES a (id));\n"
        "tables:\n  a: {shared: true}\n  b: {shared: true}\n"
    )
    from orquestra.ddl_catalog import load_catalog

    graph = JoinGraph.of(load_catalog(folder))
    assert graph.neighbours == {"a": {"b"}, "b": {"a"}}
    assert graph.parents == {"a": set(), "b": {"a"}}
