"""The `shape` judge: a data answer's result has the shape its question asks for — names for
"which"/"quais", a figure per group for "each"/"cada", one figure for "how many"/"quantos"."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from orquestra.guards.rails.config import Entry
from orquestra.guards.rails.contracts import JudgeCase
from orquestra.guards.rails.shape import WORDS, AnswerShape

JUDGE = AnswerShape(Entry(name="shape", options=WORDS), None)


def judged(question: str, columns: list[str], rows: list[list[Any]]) -> bool:
    case = JudgeCase(question, "…", "answer", columns=columns, rows=rows, row_count=len(rows))
    return asyncio.run(JUDGE.evaluate(case)).passed


@pytest.mark.parametrize(
    ("question", "columns", "rows"),
    [
        ("which title has the most tracks?", ["count"], [[5]]),
        ("quais clientes mais compraram em 2025?", ["quantidade"], [[31]]),
        ("how many tracks does each genre have?", ["count"], [[3503]]),
        ("quantos clientes temos em cada país?", ["quantidade"], [[91]]),
        ("how many orders did we get in 1997?", ["order_id"], [[10248], [10249]]),
    ],
)
def test_a_result_of_another_shape_fails(question: str, columns: list[str], rows: list) -> None:
    assert not judged(question, columns, rows)


@pytest.mark.parametrize(
    ("question", "columns", "rows"),
    [
        ("which title has the most tracks?", ["title", "count"], [["Greatest Hits", 57]]),
        (
            "how many tracks does each genre have?",
            ["name", "count"],
            [["Rock", 1297], ["Jazz", 130]],
        ),
        ("how many orders did we get in 1997?", ["count"], [[408]]),
        ("quantos clientes por país?", ["country", "quantidade"], [["USA", 13], ["Brazil", 9]]),
        ("what is the average freight per kilo?", ["frete_por_kg"], [[1.7]]),
        # a period is the name asked: "which year" answers with its year
        ("which year had the most orders?", ["year", "count"], [[1997, 408]]),
        ("qual mês teve mais pedidos em 1997?", ["mes", "quantidade"], [[12, 48]]),
        # "how many" late in the question asks a figure of each row listed, not one figure
        (
            "títulos pagos com mais de 30 dias de atraso, e quantos dias",
            ["num_titulo", "dias"],
            [[1001, 41], [1002, 35]],
        ),
    ],
)
def test_a_result_of_the_asked_shape_passes(question: str, columns: list[str], rows: list) -> None:
    assert judged(question, columns, rows)


def test_concept_answers_and_empty_results_are_not_its_to_judge() -> None:
    case = JudgeCase("which statuses exist?", "They are …", "knowledge")
    assert asyncio.run(JUDGE.evaluate(case)).passed
    assert judged("which customers bought in 2030?", ["name"], [])
