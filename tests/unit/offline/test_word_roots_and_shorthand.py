"""The word forms the offline model compares: verb roots (short ones not compared), English
plurals after "s", and the abbreviations people type spelled out from the catalog's words."""

from __future__ import annotations

import pytest

from orquestra.offline.lexicon import lexicon_for, verb_roots
from orquestra.offline.shorthand import spelled_out
from tests.unit.offline.offline_sql import CATALOGS


@pytest.mark.parametrize(
    ("word", "root"),
    [("realizamos", "realiz"), ("comunicados", "comunic"), ("cadastramos", "cadastr")],
)
def test_verb_roots(word: str, root: str) -> None:
    assert root in verb_roots(word)


def test_short_roots_are_not_compared() -> None:
    assert verb_roots("pagos") == [] and verb_roots("emitiu") == []


def test_an_english_plural_after_s_is_the_same_word() -> None:
    from orquestra.ddl_catalog.text import stem

    assert stem("statuses") == stem("status")
    assert stem("causes") == stem("cause") and stem("classes") == stem("classe")
    assert stem("vendas") == "venda"
    assert stem("promocoes") == "promocao"


@pytest.mark.parametrize(
    ("deployment", "question", "spelled"),
    [
        ("logistics", "qual o vlr do pedido 7?", "qual o valor do pedido 7?"),
        ("logistics", "fat. do mes retrasado", "faturamento do mes retrasado"),
        (
            "logistics",
            "cli 1498 tem titulo vencido? qto?",
            "cliente 1498 tem titulo vencido? quanto?",
        ),
        ("logistics", "pq o pedido 7 atrasou?", "por que o pedido 7 atrasou?"),
        ("clinics", "qtos exames tb foram cancelados?", "quantos exames também foram cancelados?"),
    ],
)
def test_abbreviations_are_spelled_out(deployment: str, question: str, spelled: str) -> None:
    assert spelled_out(question, lexicon_for(CATALOGS[deployment])) == spelled
