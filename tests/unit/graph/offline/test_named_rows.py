"""A row named by its own name ("o pedido mais antigo do Empório São Jorge ME", "the first
exam of patient Ana Lima Souza"): the capitalised words the catalog does not know are the
display name of a row of the table named right before them, else of the nearest table that
has names; the sentence's first word is not part of it."""

from __future__ import annotations

import pytest

from orquestra.offline.lexicon import lexicon_for
from orquestra.offline.parser import parse
from tests.unit.graph.offline.offline_sql import CATALOGS, TODAY, sql_for


@pytest.mark.parametrize(
    ("deployment", "question", "fragments"),
    [
        (
            "logistics",
            "qual o pedido mais recente da Padaria Pão Dourado Ltda?",
            ["c.nome = 'Padaria Pão Dourado Ltda'", "ORDER BY p.data_pedido DESC LIMIT 1"],
        ),
        (
            "logistics",
            "when did Casa Verde Comércio place their first order?",
            ["c.nome = 'Casa Verde Comércio'", "ORDER BY p.data_pedido ASC LIMIT 1"],
        ),
        (
            "logistics",
            "quantos pedidos o cliente Mercado Sol Nascente fez em 2025?",
            ["count(*)", "c.nome = 'Mercado Sol Nascente'", "'2025-01-01'"],
        ),
        (
            "clinics",
            "qual foi o último exame da paciente Ana Lima Souza?",
            ["p.nome = 'Ana Lima Souza'", "e.data_agendada DESC LIMIT 1"],
        ),
        (
            "clinics",
            "how many exams did patient Pedro Alves Rocha have in 2025?",
            ["count(*)", "p.nome = 'Pedro Alves Rocha'"],
        ),
    ],
)
def test_a_row_named_by_its_name(deployment: str, question: str, fragments: list[str]) -> None:
    sql = sql_for(deployment, question)
    for fragment in fragments:
        assert fragment in sql, f"{fragment!r} not in {sql}"


@pytest.mark.parametrize(
    "question", ["Qual o faturamento de 2025?", "Top 5 Clientes por valor", "OTIF by carrier"]
)
def test_capitalised_catalog_words_are_not_a_name(question: str) -> None:
    catalog = CATALOGS["logistics"]
    assert parse(question, catalog, lexicon_for(catalog), TODAY).named is None
