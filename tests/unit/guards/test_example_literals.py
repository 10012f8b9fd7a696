"""A reviewed example's literals: the catalog's and the question's kept, the tenant's made
slots, and a question that still names something of the tenant's never shared."""

from __future__ import annotations

import pytest

from orquestra.ddl_catalog import load_catalog
from orquestra.ddl_catalog.selection_words import vocabulary_of
from orquestra.guards.example_literals import NotParsed, filled, template_of

CATALOG = load_catalog()
VOCABULARY = vocabulary_of(CATALOG)


def test_a_customers_name_becomes_a_slot_in_the_question_and_the_sql() -> None:
    t = template_of(
        "quanto o cliente Mercado Boa Vista comprou em 2025?",
        "SELECT sum(p.valor_total) FROM pedidos p JOIN clientes c USING (cod_cliente)"
        " WHERE c.nome = 'Mercado Boa Vista' AND p.data_pedido >= '2025-01-01'"
        " AND p.data_pedido < '2026-01-01'",
        CATALOG,
        VOCABULARY,
    )
    assert t.question == "quanto o cliente {nome} comprou em 2025?"
    assert "'{nome}'" in t.sql and "Mercado" not in t.sql
    # the period the question wrote stays, its end (the next year's first day) too
    assert "'2025-01-01'" in t.sql and "'2026-01-01'" in t.sql
    assert [(s.name, s.kind, s.column, s.value) for s in t.slots] == [
        ("nome", "text", "nome", "Mercado Boa Vista")
    ]
    assert t.shareable


def test_listed_values_said_numbers_and_structure_are_kept() -> None:
    t = template_of(
        "top 5 notas bloqueadas por valor",
        "SELECT num_nota, round(valor_nota / 100, 2) FROM notas_fiscais"
        " WHERE status = 'BLOQUEADA' AND data_emissao > now() - interval '1 month'"
        " ORDER BY valor_nota DESC LIMIT 5",
        CATALOG,
        VOCABULARY,
    )
    assert t.slots == () and t.shareable
    assert "'BLOQUEADA'" in t.sql and "LIMIT 5" in t.sql and "100" in t.sql


def test_a_number_from_the_rows_the_question_never_wrote_is_a_slot() -> None:
    t = template_of(
        "status do meu último pedido",
        "SELECT status FROM pedidos WHERE num_pedido = 884213",
        CATALOG,
        VOCABULARY,
    )
    assert [(s.kind, s.value) for s in t.slots] == [("number", "884213")]
    assert "884213" not in t.sql and "{num_pedido}" in t.sql


def test_a_question_that_names_more_than_its_sql_stays_the_tenants_own() -> None:
    t = template_of(
        "quanto a Padaria Estrela deve?",
        "SELECT sum(valor) FROM titulos WHERE cod_cliente = 17 AND status = 'VENCIDO'",
        CATALOG,
        VOCABULARY,
    )
    assert not t.shareable  # "Padaria Estrela" is not in the SQL: no slot can hide it


def test_a_value_written_otherwise_in_the_question_stays_the_tenants_own() -> None:
    t = template_of(
        "pedidos da Comercial São Jorge",
        "SELECT count(*) FROM pedidos p JOIN clientes c USING (cod_cliente)"
        " WHERE c.nome = 'Comercial Sao Jorge Ltda'",
        CATALOG,
        VOCABULARY,
    )
    assert not t.shareable


def test_filled_doubles_quotes_inside_a_literal() -> None:
    assert filled("SELECT 1 WHERE nome = '{nome}'", {"nome": "D'Ávila"}) == (
        "SELECT 1 WHERE nome = 'D''Ávila'"
    )


def test_unreadable_sql_is_refused() -> None:
    with pytest.raises(NotParsed):
        template_of("x", "SELEC nome FROM", CATALOG, VOCABULARY)
