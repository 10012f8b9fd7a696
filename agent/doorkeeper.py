"""The doorkeeper of LangGraph Server (`langgraph dev`, Studio, the SDK, the Platform): what
verifying a request needs, read once, and the local Studio mode.

Tokens are verified as `orquestra serve` verifies them (`guards.tokens.verify_token`); the
doorkeeper holds the settings and the deployment's tenant type they need, read off the event
loop on first use (or at start-up, `agent.studio`). `ORQUESTRA_STUDIO_DEV_TENANT=101` turns
on the local Studio mode: a request without a token, made on this machine, reads as that
tenant. It is read from the environment only (never from a configuration file a deployment
could ship with it on), and refused in production mode.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any
from urllib.parse import urlsplit

from langgraph_sdk import Auth

from orquestra.core.errors import OrquestraError
from orquestra.core.settings import Settings
from orquestra.ddl_catalog import load_catalog
from orquestra.guards.tenant_key import NO_TENANT, InvalidTenant, TenantKey, deployment_key
from orquestra.guards.tokens import Caller

log = logging.getLogger("orquestra.auth")

DEV_TENANT_ENV = "ORQUESTRA_STUDIO_DEV_TENANT"
"""Names the tenant Studio reads as on a developer's machine; unset (the default): off."""
DEV_USER = "studio-dev"
LOOPBACK = frozenset({"127.0.0.1", "::1", "localhost"})
STUDIO_ORIGINS = frozenset({"https://smith.langchain.com", "https://eu.smith.langchain.com"})
"""LangSmith Studio's pages, which call a local `langgraph dev` from the browser."""
PROXY_HEADERS = (b"x-forwarded-for", b"forwarded", b"x-real-ip")
TENANT = "tenant"
"""The authenticated user's claim naming its tenant (and the metadata key of an owner)."""


class DevModeRefused(OrquestraError):
    """The local Studio mode asked for where it must never run."""


@dataclass(frozen=True)
class Doorkeeper:
    """What verifying a request needs, read once: the settings, the tenant's type, and the
    dev tenant when the local Studio mode is on."""

    settings: Settings
    tenant_key: TenantKey
    dev_tenant: str | None

    @classmethod
    def load(cls) -> Doorkeeper:
        """Read the settings and the catalog (files: call off the event loop)."""
        settings = Settings()
        key = deployment_key(
            load_catalog(settings.catalog_folder), settings.active_deployment.profile
        )
        return cls(settings, key, dev_tenant(settings, key))


def dev_tenant(settings: Settings, key: TenantKey) -> str | None:
    """The local Studio mode's tenant (canonical), `None` when off; refused in production."""
    named = os.environ.get(DEV_TENANT_ENV, "").strip()
    if not named:
        return None
    if settings.mode == "production":
        raise DevModeRefused(
            "STUDIO_DEV_MODE_REFUSED",
            f"{DEV_TENANT_ENV} lets requests without a token in; it is refused in production",
        )
    try:  # without tenants, `-` (NO_TENANT) turns the mode on
        tenant = key.canonical(None if named == NO_TENANT and not key.has_tenants else named)
    except InvalidTenant as exc:
        raise DevModeRefused("STUDIO_DEV_MODE_REFUSED", f"{DEV_TENANT_ENV}: {exc}") from None
    log.warning(
        "Studio dev mode: requests without a token from this machine read tenant %s", tenant
    )
    return tenant


@cache
def doorkeeper() -> Doorkeeper:
    """The doorkeeper, loaded on first use (in a thread: it reads files)."""
    return Doorkeeper.load()


async def current_doorkeeper() -> Doorkeeper:
    """The doorkeeper, read in a thread the first time (the app's start-up does it first)."""
    if doorkeeper.cache_info().currsize:
        return doorkeeper()
    return await asyncio.to_thread(doorkeeper)


def refusal(status: int, code: str, message: str) -> Auth.exceptions.HTTPException:
    """The error LangGraph Server answers with: `status`, and `CODE: message` as detail."""
    challenge = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return Auth.exceptions.HTTPException(status, detail=f"{code}: {message}", headers=challenge)


def from_this_machine(scope: Mapping[str, Any], headers: Mapping[bytes, bytes]) -> bool:
    """A request made on this machine, not relayed: the peer is a loopback address, no proxy
    header says otherwise, the Host is a loopback name, and a page calling from a browser is
    local or LangSmith's Studio (a site the developer merely visits is not let in)."""
    client = scope.get("client") or ("", 0)
    if client[0] not in LOOPBACK or any(h in headers for h in PROXY_HEADERS):
        return False
    host = urlsplit(f"//{headers.get(b'host', b'').decode('latin-1')}").hostname or ""
    if host not in LOOPBACK:
        return False
    origin = headers.get(b"origin", b"").decode("latin-1")
    return not origin or origin in STUDIO_ORIGINS or (urlsplit(origin).hostname or "") in LOOPBACK


def user_of(caller: Caller) -> Auth.types.MinimalUserDict:
    """The authenticated user LangGraph Server hands the graph (`langgraph_auth_user`)."""
    user: dict[str, Any] = {
        "identity": f"{caller.tenant}:{caller.user}",
        "display_name": caller.user,
        "is_authenticated": True,
        "permissions": [],
        TENANT: caller.tenant,
        "user": caller.user,
    }
    return user  # type: ignore[return-value]  # the extra claims travel with the user


def claim(user: Any, key: str) -> str:
    """The string claim `key` of an authenticated user (a dict or a LangGraph user object);
    empty when absent."""
    try:
        value = user[key]
    except (KeyError, TypeError):
        return ""
    return value if isinstance(value, str) else ""
