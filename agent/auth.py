"""LangGraph Server's custom auth (`langgraph.json` → `auth`): who may call the API, and
what each caller may see.

Every request carries the same bearer token `orquestra serve` accepts, verified the same way
(`guards.tokens`: HS256 or RS256, expiry, lifetime, audience, issuer). The tenant and the
user come only from that token: the graph takes them from the authenticated user
(`agent.studio.caller_context`), whatever the run's context says. Without a token: 401,
except in the local Studio mode, for a request made on this machine (`agent.doorkeeper`).
What each caller may see is `agent.ownership`.
"""

from __future__ import annotations

from typing import Any

from langgraph_sdk import Auth

from orquestra.agent.doorkeeper import (
    DEV_USER,
    current_doorkeeper,
    from_this_machine,
    refusal,
    user_of,
)
from orquestra.agent.ownership import (
    no_crons,
    own_assistants,
    own_store,
    own_threads,
    refuse_the_rest,
)
from orquestra.guards.tokens import Caller, TokenRefused, verify_token

auth = Auth()


@auth.authenticate
async def authenticate(
    authorization: str | None, headers: dict[bytes, bytes], scope: dict[str, Any]
) -> Auth.types.MinimalUserDict:
    """The caller a bearer token names; without one, the dev tenant for a request made on
    this machine when the local Studio mode is on; else 401."""
    keeper = await current_doorkeeper()
    scheme, _, token = (authorization or "").partition(" ")
    if token and scheme.lower() == "bearer":
        try:
            caller = verify_token(keeper.settings, token.strip(), keeper.tenant_key)
        except TokenRefused as exc:
            raise refusal(401, exc.code, exc.message) from None
        return user_of(caller)
    if keeper.dev_tenant is not None and from_this_machine(scope, headers):
        return user_of(Caller(user=DEV_USER, tenant=keeper.dev_tenant))
    raise refusal(401, "TOKEN_MISSING", "send Authorization: Bearer <token>")


auth.on(refuse_the_rest)  # the most general: anything not named below
auth.on.threads(own_threads)
auth.on.assistants(own_assistants)
auth.on.crons(no_crons)
auth.on.store(own_store)
