"""Bearer tokens: who asks (`sub`) and for which tenant (`tenant`), from a signed JWT.

One verification for every door into the graph: `orquestra serve` (`server.auth`) and
LangGraph Server's custom auth (`agent.auth`) both call `verify_token`, so a token accepted by
one is accepted by the other, and refused for the same reasons. It lives here, beside the
tenant's type (`guards.tenant_key`), because the tenant is the token's one claim that
security rests on: it is canonicalised once, here, and never taken from a request body, a
message or a run's context.

HS256 with `jwt_secret` by default; RS256 with `jwt_public_key` for tokens issued elsewhere.
Every token must expire, within `token_max_lifetime_s` of its issue; `aud` and `iss` are
checked when configured, as identity providers expect.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import jwt

from orquestra.core.errors import OrquestraError
from orquestra.core.settings import Settings
from orquestra.ddl_catalog.text import UNSAFE_CHARACTERS
from orquestra.guards.tenant_key import NO_TENANT, InvalidTenant, TenantKey

LEEWAY_S = 30
"""Clock skew tolerated between the token's issuer and this server."""
MAX_USER_CHARS = 256


@dataclass(frozen=True)
class Caller:
    """Who is asking, from a verified token."""

    user: str
    tenant: str
    """Canonical tenant identifier."""
    roles: frozenset[str] = frozenset()
    """The token's roles (`roles_claim`): `reviewer` sees and decides the review queue."""


class TokenRefused(OrquestraError):
    """A token that cannot be used, with the code and message the client gets."""


def mint_token(
    settings: Settings, tenant: str, user: str = "demo", roles: tuple[str, ...] = ()
) -> str:
    """A token for local use (HS256 with the configured secret)."""
    if settings.jwt_algorithm != "HS256":
        raise TokenRefused(
            "TOKEN_MINTING_UNAVAILABLE",
            "with RS256 tokens come from your identity provider; this server holds no private key",
        )
    now = int(time.time())
    claims: dict[str, Any] = {"sub": user, "iat": now}
    if tenant != NO_TENANT:  # a deployment without tenants: a token without the claim
        claims["tenant"] = tenant
    if roles:
        claims[settings.roles_claim] = list(roles)
    claims["exp"] = now + settings.token_ttl_s
    if settings.jwt_audience:
        claims["aud"] = settings.jwt_audience
    if settings.jwt_issuer:
        claims["iss"] = settings.jwt_issuer
    return jwt.encode(claims, settings.jwt_secret, algorithm="HS256")


def verify_token(settings: Settings, token: str, tenant_key: TenantKey) -> Caller:
    """The caller a token names, or `TokenRefused`."""
    claims = _verified_claims(settings, token)
    user = claims["sub"]
    if (
        not isinstance(user, str)
        or not user.strip()
        or len(user) > MAX_USER_CHARS
        or UNSAFE_CHARACTERS.search(user)
    ):
        raise TokenRefused("TOKEN_INVALID", "the token names no valid user")
    try:
        tenant = tenant_key.canonical(claims.get("tenant"))
    except InvalidTenant as exc:
        raise TokenRefused("TOKEN_INVALID", f"the token names no valid tenant: {exc}") from None
    return Caller(user=user, tenant=tenant, roles=_roles(claims.get(settings.roles_claim)))


def _roles(claim: Any) -> frozenset[str]:
    """A roles claim as identity providers write it: a list of names, or one text of names
    separated by spaces (as `scope`); anything else is no role."""
    if isinstance(claim, str):
        return frozenset(claim.split())
    if isinstance(claim, list):
        return frozenset(r for r in claim if isinstance(r, str) and r)
    return frozenset()


def _verified_claims(settings: Settings, token: str) -> dict[str, Any]:
    """The claims of a token whose signature, expiry, audience, issuer and lifetime hold."""
    try:
        claims: dict[str, Any] = jwt.decode(
            token,
            settings.jwt_verification_key(),
            algorithms=[settings.jwt_algorithm],
            audience=settings.jwt_audience,
            issuer=settings.jwt_issuer,
            leeway=LEEWAY_S,
            options={
                "require": ["exp", "sub"],
                "verify_aud": settings.jwt_audience is not None,
                "verify_iss": settings.jwt_issuer is not None,
            },
        )
    except jwt.ExpiredSignatureError:
        raise TokenRefused("TOKEN_EXPIRED", "the token has expired") from None
    except jwt.InvalidTokenError:
        raise TokenRefused("TOKEN_INVALID", "the token is not valid") from None
    issued, expires = claims.get("iat", time.time()), claims["exp"]
    if not all(type(v) in (int, float) for v in (issued, expires)) or expires - issued > (
        settings.token_max_lifetime_s + LEEWAY_S
    ):
        raise TokenRefused(
            "TOKEN_INVALID",
            f"the token lives longer than the {settings.token_max_lifetime_s} s accepted here",
        )
    return claims
