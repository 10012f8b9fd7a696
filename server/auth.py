"""Authentication: a signed JWT names the user (`sub`) and the tenant (`tenant`).

The tenant comes only from a verified token — never from a request body or a message — and
is canonicalised once, here, against the deployment's tenant type (`guards.tenant_key`).
HS256 with `jwt_secret` by default; RS256 with `jwt_public_key` for tokens issued elsewhere.
Every token must expire, within `token_max_lifetime_s` of its issue; `aud` and `iss` are
checked when configured, as identity providers expect.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Annotated, Any

import jwt
from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from orquestra.core.errors import OrquestraError
from orquestra.core.settings import Settings
from orquestra.ddl_catalog.text import UNSAFE_CHARACTERS
from orquestra.guards.tenant_key import InvalidTenant, TenantKey

bearer = HTTPBearer(auto_error=False)
LEEWAY_S = 30
"""Clock skew tolerated between the token's issuer and this server."""
MAX_USER_CHARS = 256


@dataclass(frozen=True)
class Caller:
    """Who is asking, from a verified token."""

    user: str
    tenant: str
    """Canonical tenant identifier."""


class TokenRefused(OrquestraError):
    """A token that cannot be used, with the code and message the client gets."""


def mint_token(settings: Settings, tenant: str, user: str = "demo") -> str:
    """A token for local use (HS256 with the configured secret)."""
    if settings.jwt_algorithm != "HS256":
        raise TokenRefused(
            "TOKEN_MINTING_UNAVAILABLE",
            "with RS256 tokens come from your identity provider; this server holds no private key",
        )
    now = int(time.time())
    claims: dict[str, Any] = {"sub": user, "tenant": tenant, "iat": now}
    claims["exp"] = now + settings.token_ttl_s
    if settings.jwt_audience:
        claims["aud"] = settings.jwt_audience
    if settings.jwt_issuer:
        claims["iss"] = settings.jwt_issuer
    return jwt.encode(claims, settings.jwt_secret, algorithm="HS256")


def verify_token(settings: Settings, token: str, tenant_key: TenantKey) -> Caller:
    """The caller a token names, or `TokenRefused`."""
    try:
        claims = jwt.decode(
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
    return Caller(user=user, tenant=tenant)


def unauthorized(error: TokenRefused) -> HTTPException:
    return HTTPException(
        401,
        detail={"code": error.code, "message": error.message},
        headers={"WWW-Authenticate": "Bearer"},
    )


def current_caller(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> Caller:
    if credentials is None:
        raise unauthorized(TokenRefused("TOKEN_MISSING", "send Authorization: Bearer <token>"))
    try:
        return verify_token(
            request.app.state.settings, credentials.credentials, request.app.state.tenant_key
        )
    except TokenRefused as exc:
        raise unauthorized(exc) from None


CurrentCaller = Annotated[Caller, Depends(current_caller)]
