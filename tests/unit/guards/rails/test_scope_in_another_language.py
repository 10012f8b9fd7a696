"""The OOS rail on a catalog written in one language, asked in another: a data question is
not blocked only because its words are not the catalog's ("quais os 3 clientes com mais
pedidos em 2025?" on an English catalog); off-topic messages still are."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from orquestra.ddl_catalog import load_catalog
from orquestra.guards.rails.config import Entry
from orquestra.guards.rails.contracts import RailCheck
from orquestra.guards.rails.native_input import OutOfScope, Toolkit

SHOP = Path(__file__).resolve().parents[3] / "fixtures" / "catalogs" / "shop_en"
RAIL = OutOfScope(Entry(code="OOS"), Toolkit(load_catalog(SHOP)))


def allowed(text: str) -> bool:
    return asyncio.run(RAIL.evaluate(RailCheck(text=text, stage="input", tenant=""))).allowed


@pytest.mark.parametrize(
    "text",
    [
        "Quais os 3 clientes com mais pedidos em 2025?",
        "Qual o valor médio dos pedidos por país?",
        "Quantos pedidos foram feitos em 1997?",
        "quais produtos vieram no pedido 150?",
    ],
)
def test_a_data_question_in_another_language_is_in_scope(text: str) -> None:
    assert allowed(text)


@pytest.mark.parametrize(
    "text", ["qual a capital da França?", "quem ganhou a copa de 2022?", "escreva um poema"]
)
def test_off_topic_messages_are_still_out_of_scope(text: str) -> None:
    assert not allowed(text)
