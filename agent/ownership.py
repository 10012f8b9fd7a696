"""Who sees what through LangGraph Server: every thread, run and assistant carries its owner
(`tenant`, `owner`) in its metadata, written here over anything the client sent, and every
read, search, update, delete and run is filtered by it, so one tenant's or user's resources
are invisible to the others (LangGraph Server answers 404). A run or assistant whose context
names another tenant than the token's is refused with 403 `TENANT_MISMATCH`; the graph would
ignore it anyway (`agent.studio.caller_context`). Scheduled runs (crons) are refused: they
would start without the caller's token. The long-term store is open only under the caller's
own `(tenant, user)` namespace. Anything else is refused.

These are the handlers `agent.auth` registers with LangGraph's `Auth`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph_sdk import Auth

from orquestra.agent.doorkeeper import TENANT, claim, current_doorkeeper, refusal
from orquestra.guards.tenant_key import InvalidTenant, TenantKey

OWNER = "owner"
"""Metadata key naming the user who owns a resource (with `tenant`)."""


def owner_of(ctx: Auth.types.AuthContext) -> dict[str, str]:
    """The caller's owner metadata, `{"tenant", "owner"}`; a user this handler did not
    authenticate (LangSmith's Studio user, say) owns nothing and is refused."""
    user = ctx.user
    tenant = claim(user, TENANT)
    name = claim(user, "user")
    if not tenant or not name:
        raise refusal(403, "FORBIDDEN", "only callers with an Orquestra token may use this API")
    return {TENANT: tenant, OWNER: name}


def _stamp(value: dict[str, Any], owner: dict[str, str]) -> None:
    """Write the owner into a resource's metadata, over anything the client put there (in
    place: LangGraph Server keeps the dict it handed the handler)."""
    metadata = value.get("metadata")
    if not isinstance(metadata, dict):
        metadata = value["metadata"] = {}
    metadata.update(owner)


def refuse_other_tenant(owner: dict[str, str], key: TenantKey, *carriers: Any) -> None:
    """403 `TENANT_MISMATCH` when a run's or assistant's context (or configurable) names a
    tenant other than the token's; the token's own (however spelt: "0101" is 101), or none,
    is accepted."""
    for carrier in carriers:
        named = carrier.get(TENANT) if isinstance(carrier, Mapping) else None
        if named in (None, "") or _canonical(key, named) == owner[TENANT]:
            continue
        raise refusal(
            403,
            "TENANT_MISMATCH",
            f"the context names tenant {named!r}, the token tenant {owner[TENANT]!r}: the"
            " tenant comes only from the token; leave it out of the context",
        )


def _canonical(key: TenantKey, named: object) -> str | None:
    try:
        return key.canonical(named)
    except InvalidTenant:
        return None


def _contexts(payload: Mapping[str, Any]) -> tuple[Any, Any]:
    config = payload.get("config") or {}
    return payload.get("context"), config.get("configurable") if isinstance(
        config, Mapping
    ) else None


async def refuse_the_rest(ctx: Auth.types.AuthContext, value: Any) -> bool:
    """Anything without a handler of its own (a resource or action added later) is refused."""
    raise refusal(403, "FORBIDDEN", f"{ctx.resource}.{ctx.action} is not allowed")


async def own_threads(ctx: Auth.types.AuthContext, value: Any) -> dict[str, str]:
    """Threads and their runs: created with the owner, every other action filtered by it."""
    owner = owner_of(ctx)
    if ctx.action in ("create", "update", "create_run"):
        _stamp(value, owner)
    if ctx.action == "create_run":
        keeper = await current_doorkeeper()
        refuse_other_tenant(owner, keeper.tenant_key, *_contexts(value.get("kwargs") or {}))
    return owner


async def own_assistants(ctx: Auth.types.AuthContext, value: Any) -> dict[str, Any]:
    """Assistants: one's own, plus the graph's system assistant (read and run only)."""
    owner = owner_of(ctx)
    if ctx.action in ("create", "update"):
        if (value.get("metadata") or {}).get("created_by") == "system":
            raise refusal(403, "FORBIDDEN", "created_by 'system' is the server's own")
        keeper = await current_doorkeeper()
        refuse_other_tenant(owner, keeper.tenant_key, *_contexts(value))
        _stamp(value, owner)
    if ctx.action in ("read", "search"):
        return {"$or": [{"created_by": "system"}, owner]}
    return owner


async def no_crons(ctx: Auth.types.AuthContext, value: Any) -> dict[str, str]:
    """Scheduled runs start without the caller's token (LangGraph Server keeps only its
    identity), so they could not read the caller's tenant: none may be created."""
    owner = owner_of(ctx)
    if ctx.action == "create":
        raise refusal(403, "FORBIDDEN", "scheduled runs are not available through this API")
    return owner


async def own_store(ctx: Auth.types.AuthContext, value: Any) -> None:
    """The long-term store: only namespaces under the caller's own `(tenant, user)`."""
    owner = owner_of(ctx)
    prefix = (owner[TENANT], owner[OWNER])
    namespace = tuple(value.get("namespace") or ())
    if ctx.action == "list_namespaces" and not namespace:
        value["namespace"] = prefix
    elif namespace[:2] != prefix:
        raise refusal(403, "FORBIDDEN", "the store's namespace must start with (tenant, user)")
