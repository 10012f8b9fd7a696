"""Authentication for `orquestra serve`: the bearer token of each request, as a FastAPI
dependency (`CurrentCaller`).

The token's verification itself — signature (HS256 or RS256), expiry and lifetime, audience
and issuer, the user, and the tenant canonicalised against the deployment's tenant type — is
`guards.tokens`, shared with LangGraph Server's custom auth (`agent.auth`), so both doors
accept and refuse the same tokens. The tenant comes only from a verified token, never from a
request body or a message.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from orquestra.guards.tokens import Caller, TokenRefused, mint_token, verify_token

__all__ = ["Caller", "CurrentCaller", "TokenRefused", "mint_token", "verify_token"]

bearer = HTTPBearer(auto_error=False)


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
