"""The offline model reads the names found in the asker's rows (`ModelHints.found_values`,
`graph.data_values`): a value found is that column's value, a name kept in two columns is
that row, and a name looked up and found nowhere is said to be so, never guessed."""

from __future__ import annotations

from datetime import date

from orquestra.ddl_catalog.data_values import FoundValue
from orquestra.graph.hints import ModelHints
from orquestra.offline import OfflineChatModel

TODAY = date(2026, 6, 30)


def write(question: str, **facts: object) -> dict:
    model = OfflineChatModel(role="sql_writer")
    return model.reply(ModelHints(question=question, today=TODAY, lang="pt", **facts))


def test_a_name_found_as_one_columns_value_filters_by_it() -> None:
    found = FoundValue("Aurora Azul", (3, 4), "clientes", "nome", "Aurora Azul Ltda", "starts")
    answer = write("quantos pedidos do cliente Aurora Azul?", found_values=(found,))
    assert "'Aurora Azul Ltda'" in answer["sql"]


def test_a_name_looked_up_and_found_nowhere_is_said_not_guessed() -> None:
    question = "quantos pedidos do cliente Zeferino Quaresma?"
    guessed = write(question)
    assert "Zeferino Quaresma" in guessed["sql"]  # not looked up: read as a row's name
    said = write(question, names_searched=("Zeferino Quaresma",))
    assert said["sql"] == ""
    assert 'não encontrei "Zeferino Quaresma"' in said["missing_info"]


def test_a_part_of_several_values_is_no_row() -> None:
    found = FoundValue(
        "Aurora", (4,), "clientes", "nome", "Aurora Azul Ltda", "starts", (), ("Nova Aurora",)
    )
    answer = write("quantos pedidos do cliente Aurora?", found_values=(found,))
    assert "Aurora Azul Ltda" not in answer["sql"]
