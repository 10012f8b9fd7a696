"""`GET /v1/profile`: the deployment's public words for the web chat, over a real server."""

from __future__ import annotations

import httpx

from orquestra.core.deployment import load_deployment
from tests.e2e.conftest import Server

PUBLIC_FIELDS = {
    "name",
    "assistant_name",
    "languages",
    "default_language",
    "tenancy",
    "tenant",
    "locale",
    "currency",
    "timezone",
    "examples",
    "topics",
}


def test_profile_is_public_and_carries_the_deployments_words(server: Server) -> None:
    response = httpx.get(f"{server.url}/v1/profile")  # no token: the sign-in page needs it
    assert response.status_code == 200
    body = response.json()
    assert set(body) == PUBLIC_FIELDS  # no tenant list without the dev login, no secrets
    profile = load_deployment("logistics").profile
    assert body["tenant"]["pt"] == {"singular": "fornecedor", "plural": "fornecedores"}
    assert body["examples"]["en"] == profile.example_questions("en")
    assert body["currency"] == profile.currency and body["assistant_name"] == "Orquestra"


def test_the_demo_lists_its_tenants_for_the_picker(demo_server: Server) -> None:
    body = httpx.get(f"{demo_server.url}/v1/profile").json()
    tenants = body["tenants"]
    assert [t["code"] for t in tenants] == ["101", "102", "103", "104", "105"]
    assert all(t["name"] for t in tenants)  # from the catalog's tenant table
