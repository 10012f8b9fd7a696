"""A deployment without tenants (`tenancy: none`), in each place the tenant is decided: the
tenant key, the profile and catalog agreeing, a token's claim, the CLI's `--tenant`, an
evaluation's cases and LangGraph Studio's local mode."""

from __future__ import annotations

import jwt
import pytest

from orquestra.agent.doorkeeper import DEV_TENANT_ENV, dev_tenant
from orquestra.core.deployment import Profile
from orquestra.core.settings import Settings
from orquestra.ddl_catalog import load_catalog
from orquestra.evals.dataset import Case, DatasetError, bind_tenants
from orquestra.guards.tenant_key import (
    NO_TENANT,
    InvalidTenant,
    TenancyMismatch,
    TenantKey,
    deployment_key,
)
from orquestra.guards.tokens import TokenRefused, mint_token, verify_token

NONE = TenantKey("none")
ONE_ORGANISATION = Profile(
    name="one", languages=["en"], default_language="en", business={"en": "x"}, tenancy="none"
)


def test_without_tenants_no_tenant_is_the_one_identifier_and_a_tenant_is_refused() -> None:
    assert NONE.canonical(None) == NO_TENANT and not NONE.has_tenants
    for claimed in ("101", 101, "-", ""):
        with pytest.raises(InvalidTenant, match="no tenants"):
            NONE.canonical(claimed)
    with pytest.raises(InvalidTenant, match="required"):
        TenantKey("integer", 100).canonical(None)
    with pytest.raises(InvalidTenant):  # a lone "-" is no text tenant either
        TenantKey("text").canonical("-")


def test_a_profile_without_tenants_needs_no_tenant_labels() -> None:
    assert ONE_ORGANISATION.tenant == {}
    assert ONE_ORGANISATION.tenant_label("en", plural=True) == "organisations"
    with pytest.raises(ValueError, match="tenant needs the default language"):
        Profile(name="many", languages=["en"], default_language="en", business={"en": "x"})


def test_profile_and_catalog_must_agree_on_tenancy() -> None:
    tenanted = load_catalog()  # the demo: tables that hold a tenant
    with pytest.raises(TenancyMismatch, match="tenancy: none"):
        deployment_key(tenanted, ONE_ORGANISATION)
    demo = Settings().active_deployment.profile
    assert deployment_key(tenanted, demo).has_tenants


def test_a_token_without_tenants_carries_no_claim_and_one_with_a_claim_is_refused() -> None:
    settings = Settings()
    token = mint_token(settings, NO_TENANT, "rita")
    assert "tenant" not in jwt.decode(token, options={"verify_signature": False})
    assert verify_token(settings, token, NONE).tenant == NO_TENANT
    with pytest.raises(TokenRefused, match="no tenants"):
        verify_token(settings, mint_token(settings, "101", "ana"), NONE)
    with pytest.raises(TokenRefused, match="required"):  # and the other way round
        verify_token(settings, token, TenantKey("integer", 2**31 - 1))


def test_evaluation_cases_run_as_no_tenant_or_need_a_valid_one() -> None:
    cases = [
        Case(id="a", question="q", route="analytics", split="project", origin="x"),
        Case(id="b", question="q", tenant="0101", route="analytics", split="project", origin="x"),
    ]
    assert {c.tenant for c in bind_tenants(cases, NONE)} == {NO_TENANT}
    with pytest.raises(DatasetError, match="case a"):
        bind_tenants(cases, TenantKey("integer", 2**31 - 1))
    assert bind_tenants(cases[1:], TenantKey("integer", 2**31 - 1))[0].tenant == "101"


def test_studio_local_mode_without_tenants_is_turned_on_with_a_dash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(DEV_TENANT_ENV, "-")
    assert dev_tenant(Settings(), NONE) == NO_TENANT
    monkeypatch.setenv(DEV_TENANT_ENV, "101")
    with pytest.raises(Exception, match="no tenants"):
        dev_tenant(Settings(), NONE)
