"""Authentication: a signed JWT names the user (`sub`) and the tenant (`tenant`).

The tenant comes only from a verified token — never from a request body or a message.
HS256 with `jwt_secret` by default; RS256 with `jwt_public_key` for tokens issued elsewhere.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Annotated

import jwt
from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from guards.executor import TENANT_PATTERN
from server.settings import Settings

bearer = HTTPBearer(auto_error=False)


@dataclass(frozen=True)
class Caller:
    """Who is asking, from a verified token."""

    user: str
    tenant: str


def mint_token(settings: Settings, tenant: str, user: str = "demo") -> str:
    """A token for local use (HS256 with the configured secret)."""
    now = int(time.time())
    claims = {"sub": user, "tenant": tenant, "iat": now, "exp": now + settings.token_ttl_s}
    return jwt.encode(claims, settings.jwt_secret, algorithm="HS256")


def verify_token(settings: Settings, token: str) -> Caller:
    key = settings.jwt_public_key if settings.jwt_algorithm == "RS256" else settings.jwt_secret
    try:
        claims = jwt.decode(
            token, key, algorithms=[settings.jwt_algorithm], options={"require": ["exp", "sub"]}
        )
    except jwt.ExpiredSignatureError:
        raise _unauthorized("TOKEN_EXPIRED", "the token has expired") from None
    except jwt.InvalidTokenError:
        raise _unauthorized("TOKEN_INVALID", "the token is not valid") from None
    tenant = str(claims.get("tenant", ""))
    if not TENANT_PATTERN.match(tenant):
        raise _unauthorized("TOKEN_INVALID", "the token names no valid tenant")
    return Caller(user=str(claims["sub"]), tenant=tenant)


def _unauthorized(code: str, message: str) -> HTTPException:
    return HTTPException(
        401, detail={"code": code, "message": message}, headers={"WWW-Authenticate": "Bearer"}
    )


def current_caller(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> Caller:
    if credentials is None:
        raise _unauthorized("TOKEN_MISSING", "send Authorization: Bearer <token>")
    return verify_token(request.app.state.settings, credentials.credentials)


CurrentCaller = Annotated[Caller, Depends(current_caller)]
