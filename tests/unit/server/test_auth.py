"""Token verification alone: lifetime, audience and issuer, and the canonical tenant."""

from __future__ import annotations

import hashlib
import hmac
import json
import time

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from pydantic import ValidationError

from orquestra.core.settings import Settings
from orquestra.guards.tenant_key import TenantKey
from orquestra.server.auth import TokenRefused, mint_token, verify_token

SECRET = "a-test-secret-that-is-at-least-32-bytes-long"
KEY = TenantKey("integer", 2**31 - 1)


@pytest.fixture(scope="module")
def rsa_keys() -> tuple[rsa.RSAPrivateKey, str]:
    """An identity provider's key pair: the private key and the PEM public key."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return key, public.decode()


def signed(claims: dict, secret: str = SECRET) -> str:
    return jwt.encode(claims, secret, algorithm="HS256")


def fresh(**extra: object) -> dict:
    now = int(time.time())
    return {"sub": "ana", "tenant": "101", "iat": now, "exp": now + 600, **extra}


def refused(settings: Settings, token: str) -> str:
    with pytest.raises(TokenRefused) as caught:
        verify_token(settings, token, KEY)
    return caught.value.code


def test_a_minted_token_verifies_with_aud_and_iss() -> None:
    settings = Settings(jwt_secret=SECRET, jwt_audience="orq-api", jwt_issuer="https://idp")
    caller = verify_token(settings, mint_token(settings, "101", "ana"), KEY)
    assert (caller.tenant, caller.user) == ("101", "ana")


@pytest.mark.parametrize(
    ("claims", "code"),
    [
        ({"exp": 32503680000}, "TOKEN_INVALID"),  # year 2999, no iat
        ({"iat": int(time.time()), "exp": 32503680000}, "TOKEN_INVALID"),
        ({"exp": None}, "TOKEN_INVALID"),
        ({"exp": int(time.time()) - 120}, "TOKEN_EXPIRED"),
        ({"sub": ""}, "TOKEN_INVALID"),
        ({"sub": 7}, "TOKEN_INVALID"),
        ({"sub": "ana\x00"}, "TOKEN_INVALID"),  # PostgreSQL could not store it
        ({"sub": "x" * 257}, "TOKEN_INVALID"),
    ],
)
def test_bad_claims_are_refused(claims: dict, code: str) -> None:
    token = fresh(**claims)
    if token["exp"] is None:
        del token["exp"]
    assert refused(Settings(jwt_secret=SECRET), signed(token)) == code


def test_the_maximum_lifetime_is_configurable() -> None:
    day = fresh(exp=int(time.time()) + 86_400)
    assert refused(Settings(jwt_secret=SECRET), signed(day)) == "TOKEN_INVALID"
    settings = Settings(jwt_secret=SECRET, token_max_lifetime_s=2 * 86_400)
    assert verify_token(settings, signed(day), KEY).tenant == "101"


@pytest.mark.parametrize(
    ("claims", "configured"),
    [
        ({}, {"jwt_audience": "orq-api"}),
        ({"aud": "another-api"}, {"jwt_audience": "orq-api"}),
        ({}, {"jwt_issuer": "https://idp"}),
        ({"iss": "https://evil"}, {"jwt_issuer": "https://idp"}),
    ],
)
def test_audience_and_issuer_are_checked_when_configured(claims: dict, configured: dict) -> None:
    settings = Settings(jwt_secret=SECRET, **configured)
    assert refused(settings, signed(fresh(**claims))) == "TOKEN_INVALID"


@pytest.mark.parametrize(("claim", "canonical"), [("0101", "101"), (101, "101"), ("7", "7")])
def test_tenant_claims_are_canonical(claim: object, canonical: str) -> None:
    caller = verify_token(Settings(jwt_secret=SECRET), signed(fresh(tenant=claim)), KEY)
    assert caller.tenant == canonical


@pytest.mark.parametrize(
    "claim", ["-", "", "abc", " 101", "1e3", "99999999999", "101;", True, None, 1.5, ["101"]]
)
def test_tenant_claims_that_are_no_tenant_are_refused(claim: object) -> None:
    token = fresh(tenant=claim)
    assert refused(Settings(jwt_secret=SECRET), signed(token)) == "TOKEN_INVALID"


def test_algorithm_confusion_and_none_are_refused(rsa_keys: tuple) -> None:
    key, public = rsa_keys
    settings = Settings(jwt_algorithm="RS256", jwt_public_key=public)
    assert verify_token(settings, jwt.encode(fresh(), key, algorithm="RS256"), KEY).user == "ana"
    # HS256 signed with the public key as the secret: the classic confusion attack.
    header = jwt.utils.base64url_encode(b'{"alg":"HS256","typ":"JWT"}')
    body = jwt.utils.base64url_encode(json.dumps(fresh(tenant="102")).encode())
    mac = hmac.new(public.encode(), header + b"." + body, hashlib.sha256).digest()
    confused = (header + b"." + body + b"." + jwt.utils.base64url_encode(mac)).decode()
    assert refused(settings, confused) == "TOKEN_INVALID"
    unsigned = jwt.encode(fresh(), None, algorithm="none")
    assert refused(settings, unsigned) == "TOKEN_INVALID"
    assert refused(Settings(jwt_secret=SECRET), unsigned) == "TOKEN_INVALID"


@pytest.mark.parametrize("secret", ["", "x", "s" * 31])
def test_production_refuses_short_secrets(secret: str) -> None:
    with pytest.raises(ValidationError, match="ORQUESTRA_JWT_SECRET"):
        Settings(mode="production", jwt_secret=secret)
    assert Settings(mode="production", jwt_secret="s" * 32).jwt_secret


def test_an_empty_secret_is_refused_in_demo_mode_too() -> None:
    with pytest.raises(ValidationError, match="empty"):
        Settings(jwt_secret="")


@pytest.mark.parametrize(
    "pem", ["not a key", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----"]
)
def test_rs256_keys_must_parse_at_start(pem: str) -> None:
    with pytest.raises(ValidationError, match="PEM public key"):
        Settings(jwt_algorithm="RS256", jwt_public_key=pem)


def test_minting_is_refused_when_tokens_come_from_an_identity_provider(rsa_keys: tuple) -> None:
    _, public = rsa_keys
    with pytest.raises(TokenRefused):
        mint_token(Settings(jwt_algorithm="RS256", jwt_public_key=public), "101")
