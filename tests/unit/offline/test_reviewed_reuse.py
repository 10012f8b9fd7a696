"""The offline model reuses a reviewed example's SQL for a question that means the same, with
the question's own names, numbers and years, and leaves every other question to its own
reading."""

from __future__ import annotations

from dataclasses import replace

from orquestra.ddl_catalog.data_values import FoundValue
from orquestra.graph.reviewed_examples import ReviewedExample, masked
from orquestra.guards.example_literals import Slot
from orquestra.offline.reviewed import MARGIN, SIMILAR, reuse

SPENT = ReviewedExample(
    id=7,
    question="Quanto o cliente {first_name} {last_name} gastou em 2023?",
    sql="",
    kind="analytics",
    complexity="simple",
    tables=("customer", "invoice"),
    template_question="Quanto o cliente {first_name} {last_name} gastou em 2023?",
    template_sql=(
        "SELECT SUM(i.total) FROM invoice AS i JOIN customer AS c USING (customer_id)"
        " WHERE c.first_name = '{first_name}' AND c.last_name = '{last_name}'"
        " AND i.invoice_date >= '2023-01-01' AND i.invoice_date < '2024-01-01'"
    ),
    slots=(
        Slot("first_name", "text", "first_name", ""),
        Slot("last_name", "text", "last_name", ""),
    ),
    own=False,
)
OTHER = ReviewedExample(
    id=8,
    question="Quantas faturas em 2023?",
    sql="",
    kind="analytics",
    complexity="simple",
    tables=("invoice",),
    template_question="Quantas faturas em 2023?",
    template_sql="SELECT count(*) FROM invoice WHERE EXTRACT(YEAR FROM invoice_date) = 2023",
    slots=(),
    own=False,
)


def person(said: str, first: str, last: str) -> FoundValue:
    return FoundValue(
        said=said,
        at=(0, 1),
        table="customer",
        column="first_name",
        value=first,
        level="exact",
        rest=(("last_name", last),),
    )


def test_the_same_question_with_another_customer_and_year_is_answered_from_it() -> None:
    question = "Quanto a cliente O'Brien Dias gastou em 2024?"
    found = [person("O'Brien Dias", "O'Brien", "Dias")]
    assert masked(question, found) == "Quanto a cliente {first_name} {last_name} gastou em 2024?"
    reused = reuse([(SPENT, SIMILAR + 0.05), (OTHER, SIMILAR)], question, found, ["O'Brien Dias"])
    assert reused is not None
    sql, example = reused
    assert example.id == 7
    assert "c.first_name = 'O''Brien' AND c.last_name = 'Dias'" in sql
    assert "'2024-01-01'" in sql and "'2025-01-01'" in sql and "2023" not in sql


def test_a_year_compared_as_a_number_moves_too() -> None:
    sql, _ = reuse([(OTHER, 0.95)], "e quantas faturas em 2022?", [], []) or ("", None)
    assert sql.endswith("= 2022")


def test_too_far_in_meaning_or_too_close_to_another_is_left_to_its_own_reading() -> None:
    found = [person("Ana Souza", "Ana", "Souza")]
    question = "Quanto Ana Souza gastou em 2024?"
    assert reuse([(SPENT, SIMILAR - 0.01)], question, found, []) is None
    close = [(SPENT, 0.93), (OTHER, 0.93 - MARGIN / 2)]
    assert reuse(close, question, found, []) is None


def test_every_slot_and_every_name_must_pair_up() -> None:
    question = "Quanto Ana gastou em 2024?"
    only_first = [FoundValue("Ana", (0,), "customer", "first_name", "Ana", "exact")]
    assert reuse([(SPENT, 0.95)], question, only_first, []) is None  # last name unfilled
    two = [person("Ana Souza", "Ana", "Souza"), person("Rui Lima", "Rui", "Lima")]
    assert reuse([(SPENT, 0.95)], question, two, []) is None  # a name with no place


def test_numbers_that_do_not_pair_up_or_a_name_found_nowhere_leave_it() -> None:
    found = [person("Ana Souza", "Ana", "Souza")]
    assert reuse([(SPENT, 0.95)], "Quanto Ana Souza gastou?", found, []) is None
    searched = ["Ana Souza", "Loja Fantasma"]
    assert reuse([(SPENT, 0.95)], "Quanto Ana Souza gastou em 2024?", found, searched) is None


def test_a_question_that_leaves_out_or_adds_what_the_example_names_asks_something_else() -> None:
    """The SQL writer passes the offline model only examples naming the same data."""
    import numpy as np

    from orquestra.ddl_catalog import load_catalog
    from orquestra.ddl_catalog.selection import SourceIndex
    from orquestra.graph.reviewed_examples import asks_the_same_data

    catalog = load_catalog()
    index = SourceIndex(catalog, {name: np.ones(4) for name in catalog.tables})
    orders = ReviewedExample(
        id=1,
        question="",
        sql="",
        kind="analytics",
        complexity="simple",
        tables=("pedidos", "clientes"),
        template_question="quantos pedidos o cliente {nome} fez?",
        template_sql="",
        slots=(),
        own=False,
    )
    same = index.named("quantos pedidos a cliente {nome} fez em 2025?")
    assert asks_the_same_data(index, same, orders)
    other_table = index.named("quantas notas fiscais o cliente {nome} recebeu?")
    assert not asks_the_same_data(index, other_table, orders)
    left_out = index.named("o cliente {nome} fez quantos?")
    assert not asks_the_same_data(index, left_out, orders)
    blocked = index.named("quantos pedidos cancelados o cliente {nome} fez?")
    assert not asks_the_same_data(index, blocked, orders)  # a listed value it lacks
    other_column = index.named("qual a cidade do cliente {nome}?")
    email = replace(
        orders, template_question="qual o email do cliente {nome}?", tables=("clientes",)
    )
    assert not asks_the_same_data(index, other_column, email)
