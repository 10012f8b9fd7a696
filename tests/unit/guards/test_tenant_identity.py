"""Tenant identifiers (type and canonical spelling) and tenant names in messages."""

from __future__ import annotations

import doctest

import pytest

from orquestra.ddl_catalog import DEMO_CATALOG_DIR, load_catalog
from orquestra.guards import tenant_key, tenant_names
from orquestra.guards.tenant_key import InvalidTenant, TenantKey
from orquestra.guards.tenant_names import TenantNames


@pytest.mark.parametrize("module", [tenant_key, tenant_names])
def test_docstring_examples(module: object) -> None:
    assert doctest.testmod(module).failed == 0


def test_the_demo_tenant_is_an_int4() -> None:
    assert TenantKey.from_catalog(load_catalog(DEMO_CATALOG_DIR)) == TenantKey("integer", 2**31 - 1)


@pytest.mark.parametrize(
    ("kind", "value", "canonical"),
    [
        (TenantKey("integer", 32767), "00042", "42"),
        (TenantKey("integer", 32767), 32767, "32767"),
        (TenantKey("text"), "loja-SP_01", "loja-SP_01"),
        (
            TenantKey("uuid"),
            "A0EEBC999C0B4EF8BB6D6BB9BD380A11",
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
        ),
    ],
)
def test_canonical_spellings(kind: TenantKey, value: object, canonical: str) -> None:
    assert kind.canonical(value) == canonical


@pytest.mark.parametrize(
    ("kind", "value"),
    [
        (TenantKey("integer", 32767), "32768"),
        (TenantKey("integer", 32767), "-1"),
        (TenantKey("integer", 32767), "４２"),  # full-width digits are not ASCII digits
        (TenantKey("text"), "loja 01"),
        (TenantKey("text"), "x" * 65),
        (TenantKey("text"), "a'; DROP"),
        (TenantKey("text"), 7),
        (TenantKey("uuid"), "not-a-uuid"),
        (TenantKey("integer", 32767), False),
    ],
)
def test_values_that_are_no_tenant(kind: TenantKey, value: object) -> None:
    with pytest.raises(InvalidTenant):
        kind.canonical(value)


def test_names_are_found_as_people_write_them() -> None:
    names = TenantNames(
        {"1": "Acme Alimentos Ltda", "2": "Boreal Bebidas Ltda", "3": "Zeta", "4": "Ômega Sul"}
    )
    assert names.first_other("Faturamento da BOREAL BEBIDAS!", "1") == "BOREAL BEBIDAS"
    assert names.first_other("e a omega sul?", "1") == "omega sul"
    assert names.first_other("boreal bebidas ltda, e a zeta", "1") == "boreal bebidas ltda"
    assert names.first_other("faturamento da Acme Alimentos", "1") is None  # one's own name
    assert names.first_other("boreal é uma palavra; bebidas outra", "1") is None
    assert names.first_other("zetas", "1") is None  # whole words only
    assert TenantNames({}).first_other("anything", "1") is None
    assert not TenantNames({}) and names


def test_a_message_gets_one_other_name_at_most() -> None:
    """The probe's message: hundreds of candidate names in one message tested them all at
    once. Only the first name of another tenant counts, whatever follows it."""
    names = TenantNames(
        {"1": "Acme Alimentos Ltda", "2": "Boreal Bebidas Ltda", "3": "Zeta", "4": "Ômega Sul"}
    )
    guesses = [f"Candidata {n} Ltda" for n in range(200)]
    message = ", ".join([*guesses[:50], "acme alimentos", "ZETA", *guesses[50:], "ômega sul"])
    assert names.first_other(message, "1") == "ZETA"  # after its own name
    assert names.first_other(message, "3") == "acme alimentos"
    assert names.first_other("compare zeta e boreal bebidas ltda", "1") == "zeta"


def test_only_the_askers_own_names_are_whose_data_it_is() -> None:
    """What the SQL writer leaves out of the SQL: the asker's own company, every spelling;
    another tenant's name stays in the question, as any unknown name would."""
    names = TenantNames({"1": "Acme Alimentos Ltda", "2": "Boreal Bebidas Ltda"})
    message = "acme alimentos ltda e Boreal Bebidas; ACME ALIMENTOS de novo"
    assert names.own_names(message, "1") == ["acme alimentos ltda", "ACME ALIMENTOS"]
    assert names.own_names(message, "2") == ["Boreal Bebidas"]
    assert names.own_names("faturamento da Boreal Bebidas", "1") == []
    assert names.own_names("faturamento da Boreal Bebidas", "3") == []
