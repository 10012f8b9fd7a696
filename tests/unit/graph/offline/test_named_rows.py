"""A row named by its own name ("o pedido mais antigo do Empório São Jorge ME", "the first
exam of patient Ana Lima Souza"): the capitalised words the catalog does not know are the
display name of a row of the table named right before them, else of the nearest table that
has names; the sentence's first word is not part of it."""

from __future__ import annotations

from datetime import date

import pytest

from orquestra.core.deployment import load_deployment
from orquestra.ddl_catalog import load_catalog
from orquestra.guards import GuardPolicy, guard_sql
from orquestra.offline.lexicon import lexicon_for
from orquestra.offline.parser import parse
from orquestra.offline.sql import build_sql

TODAY = date(2026, 6, 30)
CATALOGS = {
    name: load_catalog(load_deployment(name).catalog_dir) for name in ("logistics", "clinics")
}


def sql_for(deployment: str, question: str) -> str:
    catalog = CATALOGS[deployment]
    intent = parse(question, catalog, lexicon_for(catalog), TODAY)
    sql = " ".join(build_sql(intent, catalog, TODAY.isoformat()).split())
    guard_sql(sql, GuardPolicy.from_catalog(catalog), "101")
    return sql


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
