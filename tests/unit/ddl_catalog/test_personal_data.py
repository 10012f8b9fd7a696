"""Personal data in schema text: each kind found and masked, ordinary descriptions left alone."""

from __future__ import annotations

import doctest

import pytest

from orquestra.ddl_catalog import personal_data
from orquestra.ddl_catalog.personal_data import find_personal_data, masked


def kinds(text: str) -> list[str]:
    return [found.kind for found in find_personal_data(text)]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("write to ana.souza@example.com.br", "e-mail address"),
        ("WHERE (email <> 'ceo@example.org'::text)", "e-mail address"),
        ("Contato: (11) 98765-4321", "phone number"),
        ("tel 11 3456-7890", "phone number"),
        ("+55 11 98765-4321", "phone number"),
        ("+5511987654321", "phone number"),
        ("call 555-123-4567", "phone number"),
        ("(555) 123-4567", "phone number"),
        ("555.123.4567", "phone number"),
        ("+1 555 123 4567", "phone number"),
        ("cel 98765-4321", "phone number"),
        ("CPF 529.982.247-25", "document number (CPF)"),
        ("cpf 52998224725", "document number (CPF)"),
        ("CNPJ 11.222.333/0001-81", "document number (CNPJ)"),
        ("11222333000181", "document number (CNPJ)"),
        ("SSN 123-45-6789", "document number (US SSN)"),
        ("card 4111 1111 1111 1111", "payment card number"),
        ("4111-1111-1111-1111", "payment card number"),
        ("IBAN GB82 WEST 1234 5698 7654 32", "bank account (IBAN)"),
        ("GB82WEST12345698765432", "bank account (IBAN)"),
    ],
)
def test_each_kind_is_found(text: str, kind: str) -> None:
    assert kinds(text) == [kind]


@pytest.mark.parametrize(
    "text",
    [
        "CFOP 5102",
        "CFOP 5.102",
        "since 2024-01-15",
        "2024-01-15 10:30:00",
        "15/01/2024",
        "15.01.2024",
        "year 2023, between 2019-2020",
        "R$ 1.234,56",
        "R$ 12.345.678,90",
        "1,234,567.89",
        "amount > 100000",
        "10.000 - 20.000",
        "CEP 01310-100",
        "192.168.10.1",
        "version 1.2.3",
        "NCM 8471.30.12",
        "ratio 0.123456789",
        "id 123456789012",
        "order 12345678",
        "EAN 7891234567895",
        "timestamp 20240115103000",
        "format 000.000.000-00",
        "123.456.789-00",  # the shape of a CPF whose check digits are wrong
        "11.222.333/0001-00",
        "4111 1111 1111 1112",
        "GB00 WEST 1234 5698 7654 32",
        "CHECK (value > 0 AND value < 99999)",
        "interval '30 days'",
        "user@localhost",
        "@mention",
    ],
)
def test_ordinary_descriptions_hold_none(text: str) -> None:
    assert find_personal_data(text) == ()


def test_a_value_is_one_kind_only() -> None:
    """A CPF is not also a phone number; kinds are tried in order and a span taken once."""
    assert kinds("529.982.247-25 or 52998224725") == ["document number (CPF)"] * 2


def test_every_value_is_masked_in_place() -> None:
    text = "Escalations: ana@example.com or +55 11 98765-4321 (CPF 529.982.247-25)."
    assert masked(text) == (
        "Escalations: <e-mail address> or <phone number> (CPF <document number (CPF)>)."
    )
    assert masked("no personal data, 2024-01-15") == "no personal data, 2024-01-15"


def test_the_module_examples_hold() -> None:
    results = doctest.testmod(personal_data)
    assert results.attempted > 0 and results.failed == 0
