"""What a question's names are looked up as, where, and how the rows found are read
(`ddl_catalog.data_values`); the lookup itself runs on the database in
`tests/integration/graph/test_data_values.py`."""

from __future__ import annotations

from orquestra.ddl_catalog import load_catalog
from orquestra.ddl_catalog.data_values import (
    MAX_SPANS,
    FoundValue,
    Span,
    found_values,
    lookup_sql,
    searchable_columns,
    value_spans,
)
from orquestra.ddl_catalog.selection_words import Vocabulary, vocabulary_of

CATALOG = load_catalog()  # the logistics demo's


def spans(question: str, vocabulary: Vocabulary | None = None) -> list[str]:
    return [s.text for s in value_spans(question, vocabulary or Vocabulary())]


def test_capitalised_runs_single_names_codes_and_quotes_are_looked_up() -> None:
    assert spans("Who placed order 10300 for Alfreds Futterkiste?") == ["Alfreds Futterkiste"]
    assert spans("quantas músicas do Queen a gente vendeu?") == ["Queen"]
    assert spans("voos saindo de JFK em maio") == ["JFK"]
    assert spans('pedidos do cliente "loja da ana" em 2025') == ["loja da ana"]


def test_a_run_opening_the_sentence_is_looked_up_with_and_without_its_first_word() -> None:
    assert spans("Gorgonzola Telino é de qual categoria?") == ["Gorgonzola Telino", "Telino"]
    assert spans("Quantos pedidos em 2025?") == []  # the sentence's first word alone: no name


def test_the_languages_words_numbers_and_months_are_no_names() -> None:
    assert spans("How many orders in January 2013 and in March?") == []
    assert spans("What about The Who?") == []  # only everyday words


def test_the_catalogs_own_phrases_are_not_looked_up() -> None:
    vocabulary = vocabulary_of(CATALOG)
    listed = next(v for t in CATALOG.tables.values() for c in t.columns for v in c.meta.values)
    # a table's name and a value the catalog lists are read by the catalog itself
    assert spans(f"entregas da Transportadora com {listed}", vocabulary) == []
    assert spans("pedidos do cliente Empório São Jorge", vocabulary) == ["Empório São Jorge"]


def test_at_most_a_few_spans() -> None:
    many = "vendas de Ana Lima, Beto Silva, Caio Souza, Dora Reis, Edu Maia e Fabi Luz"
    assert len(spans(many)) == MAX_SPANS


def test_searchable_columns_are_names_and_codes_never_enumerated_prose_or_tenant() -> None:
    columns = {(t.name, c.name) for t, c in searchable_columns(CATALOG)}
    assert ("clientes", "nome") in columns
    assert all(c != CATALOG.table(t).tenant_column for t, c in columns)
    for table, column in columns:
        meta = CATALOG.table(table).column(column).meta
        assert not meta.values, (table, column)  # the catalog matches those itself
    assert not any(c.startswith(("descricao", "observ")) for _, c in columns if _ != "produtos")


def test_the_statement_escapes_quotes_and_like_wildcards() -> None:
    table = CATALOG.table("clientes")
    sql = lookup_sql([(table, table.column("nome"))], [Span((0,), "O'Brien 50%_")])
    assert "ILIKE '%O''Brien 50\\%\\_%'" in sql
    assert 'FROM "clientes"' in sql and "LIMIT 8" in sql


def columns_of(*pairs: tuple[str, str]):
    return [(CATALOG.table(t), CATALOG.table(t).column(c)) for t, c in pairs]


def test_the_value_itself_beats_one_that_starts_with_it_which_beats_one_holding_it() -> None:
    columns = columns_of(("clientes", "nome"), ("produtos", "descricao"))
    delta = Span((2,), "Delta")
    rows = [(1, "Cabo Delta Flex"), (0, "Delta Comercial Ltda")]
    assert [(f.table, f.value, f.level) for f in found_values(rows, columns, [delta])] == [
        ("clientes", "Delta Comercial Ltda", "starts")
    ]
    rows.append((1, "Delta"))
    assert [(f.table, f.value, f.level) for f in found_values(rows, columns, [delta])] == [
        ("produtos", "Delta", "exact")
    ]


def test_a_span_only_inside_another_word_is_not_found() -> None:
    columns = columns_of(("clientes", "nome"))
    assert found_values([(0, "Chaise Longue")], columns, [Span((1,), "Chai")]) == []


def test_the_same_name_in_several_tables_is_found_in_each() -> None:
    columns = columns_of(("clientes", "nome"), ("produtos", "descricao"))
    found = found_values([(0, "Aurora"), (1, "aurora")], columns, [Span((3,), "Aurora")])
    assert {(f.table, f.level) for f in found} == {("clientes", "exact"), ("produtos", "exact")}


def test_a_persons_name_kept_in_two_columns_is_found_as_one_row() -> None:
    table = CATALOG.table("clientes")
    both = [(table, table.column("nome")), (table, table.column("cidade"))]
    found = found_values([(0, "Roberto"), (1, "Almeida")], both, [Span((4, 5), "Roberto Almeida")])
    assert found == [
        FoundValue(
            "Roberto Almeida",
            (4, 5),
            "clientes",
            "nome",
            "Roberto",
            "exact",
            (("cidade", "Almeida"),),
        )
    ]
    assert FoundValue.of(found[0].as_dict()) == found[0]


def test_a_shorter_span_inside_a_longer_one_found_as_well_is_dropped() -> None:
    columns = columns_of(("produtos", "descricao"))
    whole, inner = Span((0, 1), "Gorgonzola Telino"), Span((1,), "Telino")
    found = found_values([(0, "Gorgonzola Telino")], columns, [whole, inner])
    assert [f.said for f in found] == ["Gorgonzola Telino"]


def test_a_part_of_several_values_names_the_table_not_a_row() -> None:
    columns = columns_of(("clientes", "nome"))
    span = Span((4,), "Atlanta")
    rows = [(0, "Atlanta Regional Airport"), (0, "Hartsfield Jackson Atlanta Intl")]
    (found,) = found_values(rows, columns, [span])
    assert (found.value, found.level, found.certain) == (
        "Atlanta Regional Airport",
        "starts",
        False,
    )
    assert found.others == ("Hartsfield Jackson Atlanta Intl",)
    assert FoundValue.of(found.as_dict()) == found
    (alone,) = found_values(rows[:1], columns, [span])
    assert alone.certain  # the only value holding it: that row
    (itself,) = found_values([*rows, (0, "Atlanta")], columns, [span])
    assert (itself.value, itself.certain) == ("Atlanta", True)
