"""A token's roles: from the configured claim, as a list or as names separated by spaces;
anything else is no role, and a token without the claim holds none."""

from __future__ import annotations

import time

import jwt
import pytest

from orquestra.core.settings import Settings
from orquestra.guards.tenant_key import TenantKey
from orquestra.guards.tokens import mint_token, verify_token

KEY = TenantKey("text")


def signed(settings: Settings, **claims: object) -> str:
    now = int(time.time())
    body = {"sub": "rita", "tenant": "101", "iat": now, "exp": now + 600, **claims}
    return jwt.encode(body, settings.jwt_secret, algorithm="HS256")


@pytest.mark.parametrize(
    ("claim", "roles"),
    [
        (["reviewer", "analyst"], {"reviewer", "analyst"}),
        ("reviewer analyst", {"reviewer", "analyst"}),
        ({"reviewer": True}, set()),
        (["reviewer", 3, None, ""], {"reviewer"}),
    ],
)
def test_roles_are_read_from_the_claim(claim: object, roles: set[str]) -> None:
    settings = Settings()
    assert verify_token(settings, signed(settings, roles=claim), KEY).roles == roles


def test_the_claims_name_is_a_setting_and_minted_tokens_carry_it() -> None:
    settings = Settings(roles_claim="groups")
    assert verify_token(settings, signed(settings, roles=["reviewer"]), KEY).roles == set()
    assert verify_token(settings, signed(settings, groups=["reviewer"]), KEY).roles == {"reviewer"}
    minted = mint_token(settings, "101", "rita", ("reviewer",))
    assert verify_token(settings, minted, KEY).roles == {"reviewer"}
    assert verify_token(settings, mint_token(settings, "101", "ana"), KEY).roles == set()
