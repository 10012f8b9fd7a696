"""What names say (`ddl_catalog.naming`) and the language data it reads (`ddl_catalog/lang/`)."""

from __future__ import annotations

import string

import pytest

from orquestra.ddl_catalog.naming import (
    column_kind,
    is_free_text,
    is_label,
    is_person_name,
    language_of,
    name_words,
    plain_words,
    said,
    split_name,
    vocabularies,
)

CONCEPTS = {
    "abbreviations",
    "date_words",
    "amount_words",
    "quantity_words",
    "identifier_words",
    "name_words",
    "person_words",
    "free_text_words",
    "label_words",
    "schema_words",
    "draft_terms",
}
TEMPLATES = {
    "sum": {"what"},
    "count": {"what"},
    "sum_definition": {"table", "column", "dated"},
    "count_definition": {"table", "what", "dated"},
    "dated": {"date_column"},
}


@pytest.mark.parametrize("code", ["en", "pt"])
def test_each_language_has_every_concept_in_folded_words(code: str) -> None:
    vocab = vocabularies()[code]
    concepts = set(vocab.lists) | set(vocab.maps)
    assert concepts >= CONCEPTS  # what profiling reads (source selection reads others)
    for concept, words in vocab.lists.items():
        assert words, concept
        assert all(w == w.lower() and w.isascii() for w in words), concept
    for short, spelled in vocab.maps["abbreviations"].items():
        assert short.isalpha() and spelled.isascii(), short
    for name, template in vocab.maps["draft_terms"].items():
        slots = {s for _, s, _, _ in string.Formatter().parse(template) if s}
        assert slots == TEMPLATES[name], (code, name)


def test_a_short_form_means_the_same_kind_in_every_language() -> None:
    # kinds are read with every language's short forms at once: none may say two things
    kinds = ("date_words", "amount_words", "quantity_words", "identifier_words", "name_words")
    for vocab in vocabularies().values():
        for short, spelled in vocab.maps["abbreviations"].items():
            others = [
                other.maps["abbreviations"][short]
                for other in vocabularies().values()
                if short in other.maps["abbreviations"]
            ]
            said_as = {k for k in kinds for word in others if word in said(k)}
            assert len(said_as) <= 1, (short, spelled, said_as)


@pytest.mark.parametrize(
    ("name", "lang", "expected"),
    [
        ("custJoinDt", "en", "cust join date"),
        ("order_qty", "en", "order quantity"),
        ("total_amt", "en", "total amount"),
        ("item_no", "en", "item number"),
        ("prod_desc", "en", "prod description"),
        ("HTMLPage", "en", "html page"),
        ("address2", "en", "address 2"),
        ("dtEmissao", "pt", "data emissao"),
        ("qtd_itens", "pt", "quantidade itens"),
        ("vlr_total", "pt", "valor total"),
        ("ship_country", "en", "ship country"),
    ],
)
def test_name_words_split_humps_and_spell_short_forms_out(
    name: str, lang: str, expected: str
) -> None:
    assert name_words(name, lang) == expected


def test_plain_words_are_what_snake_case_already_says() -> None:
    assert plain_words("ship_country") == name_words("ship_country", "en")
    assert plain_words("custJoinDt") != name_words("custJoinDt", "en")
    assert split_name("billing__PostalCode") == ["billing", "postal", "code"]


@pytest.mark.parametrize(
    ("name", "type_sql", "lang", "kind"),
    [
        ("order_date", "date", "en", "date"),
        ("created_at", "timestamp with time zone", "en", "date"),
        ("custJoinDt", "varchar(8)", "en", "date"),  # a date kept as text
        ("dt_emissao", "integer", "pt", "date"),  # … or as a number
        ("raw_data", "text", "en", None),  # "data" is a date in Portuguese only
        ("unit_price", "numeric(10,2)", "en", "amount"),
        ("freight", "real", "en", "amount"),
        ("balance", "money", "en", "amount"),
        ("vlr_frete", "numeric(14,2)", "pt", "amount"),
        ("quantity", "smallint", "en", "quantity"),
        ("total_items", "integer", "en", "quantity"),  # an integer count, not money
        ("stock_value", "numeric", "en", "amount"),
        ("units_in_stock", "smallint", "en", "quantity"),
        ("customer_id", "integer", "en", "identifier"),
        ("customerId", "integer", "en", "identifier"),
        ("cod_cliente", "varchar(10)", "pt", "identifier"),
        ("ship_postal_code", "varchar(10)", "en", "identifier"),
        ("order_number", "text", "en", "identifier"),
        ("contact_name", "varchar(30)", "en", "name"),
        ("razao_social", "text", "pt", "name"),
        ("status", "text", "en", None),
        ("milliseconds", "integer", "en", None),
        ("discount", "real", "en", None),
        ("reports_to", "integer", "en", None),
    ],
)
def test_column_kind_from_type_and_name_words(
    name: str, type_sql: str, lang: str, kind: str | None
) -> None:
    assert column_kind(name, type_sql, lang) == kind


def test_a_key_column_is_an_identifier_whatever_its_name() -> None:
    assert column_kind("reports_to", "integer", "en", key=True) == "identifier"


def test_free_text_people_and_labels() -> None:
    assert is_free_text("notes") and is_free_text("billing_address") and is_free_text("email")
    assert is_free_text("obs_cliente") and not is_free_text("status")
    assert is_person_name("first_name") and is_person_name("contact_name")
    assert not is_person_name("company_name") and not is_person_name("category_name")
    assert is_label("name", "genre") and is_label("category_name", "categories")
    assert is_label("region_description", "region") and is_label("state_name", "us_states")
    assert not is_label("company_name", "shippers") and not is_label("status", "genre")


def test_language_of_names_comments_and_values() -> None:
    assert language_of(["order_date", "unit_price", "customer_id", "ship_country"]) == "en"
    assert language_of(["dt_emissao", "vlr_total", "nome_cliente", "cidade"]) == "pt"
    assert language_of(["x1", "y2"]) == "en"  # nothing to tell by: the default
    assert language_of(["tb_x"], ["Situação do pedido no mês", "Pedidos da loja"]) == "pt"
    assert language_of(["tb_x"], ["The state of the order this month"]) == "en"
