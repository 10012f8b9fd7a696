"""LangGraph Server's custom auth alone: who the local Studio mode lets in, whose resources a
caller owns, which contexts are refused, and the run context a caller's run gets."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import pytest
from langgraph.runtime import Runtime, ServerInfo
from langgraph_sdk import Auth
from langgraph_sdk.auth.types import StudioUser

from orquestra.agent.doorkeeper import DevModeRefused, claim, dev_tenant, from_this_machine, user_of
from orquestra.agent.ownership import own_assistants, own_threads, owner_of, refuse_other_tenant
from orquestra.agent.studio import caller_context
from orquestra.agent.wiring import after_executor, after_guard, bind_router, build_graph
from orquestra.core.settings import Caps, Settings
from orquestra.graph.context import RunContext
from orquestra.guards.tenant_key import TenantKey
from orquestra.guards.tokens import Caller

KEY = TenantKey("integer", 2**31 - 1)
ANA = user_of(Caller(user="ana", tenant="101"))
STRONG = "a-production-secret-of-at-least-32-bytes!"


def request(client: str = "127.0.0.1", **headers: str) -> tuple[dict, dict[bytes, bytes]]:
    sent = {"host": "127.0.0.1:2024", **{k.replace("_", "-"): v for k, v in headers.items()}}
    return {"client": (client, 5555)}, {k.lower().encode(): v.encode() for k, v in sent.items()}


@pytest.mark.parametrize(
    ("client", "headers", "local"),
    [
        ("127.0.0.1", {}, True),
        ("::1", {"host": "[::1]:2024"}, True),
        ("127.0.0.1", {"host": "localhost:2024", "origin": "http://localhost:3000"}, True),
        ("127.0.0.1", {"origin": "https://smith.langchain.com"}, True),
        ("192.0.2.2", {}, False),
        ("127.0.0.1", {"x_forwarded_for": "203.0.113.9"}, False),
        ("127.0.0.1", {"x_real_ip": "203.0.113.9"}, False),
        ("127.0.0.1", {"forwarded": "for=203.0.113.9"}, False),
        ("127.0.0.1", {"host": "orquestra.example.com"}, False),
        ("127.0.0.1", {"origin": "https://evil.example"}, False),
        ("127.0.0.1", {"origin": "https://smith.langchain.com.evil.example"}, False),
    ],
)
def test_only_a_request_made_on_this_machine_counts_as_local(
    client: str, headers: dict[str, str], local: bool
) -> None:
    scope, sent = request(client, **headers)
    assert from_this_machine(scope, sent) is local


def test_the_dev_tenant_is_off_unless_named_and_never_in_production(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ORQUESTRA_STUDIO_DEV_TENANT", raising=False)
    assert dev_tenant(Settings(), KEY) is None
    monkeypatch.setenv("ORQUESTRA_STUDIO_DEV_TENANT", "0101")
    assert dev_tenant(Settings(), KEY) == "101"
    with pytest.raises(DevModeRefused) as refused:
        dev_tenant(Settings(mode="production", jwt_secret=STRONG), KEY)
    assert refused.value.code == "STUDIO_DEV_MODE_REFUSED"
    monkeypatch.setenv("ORQUESTRA_STUDIO_DEV_TENANT", "not-a-tenant")
    with pytest.raises(DevModeRefused):
        dev_tenant(Settings(), KEY)


def context_for(user: Any, resource: str = "threads", action: str = "create") -> Any:
    return Auth.types.AuthContext(user=user, permissions=[], resource=resource, action=action)


class ServerUser(dict):
    """What LangGraph Server hands the handlers and the graph: a user with an identity that
    reads its claims like a dict."""

    @property
    def identity(self) -> str:
        return str(self["identity"])

    @property
    def is_authenticated(self) -> bool:
        return True


def test_only_a_caller_with_a_token_owns_anything() -> None:
    assert owner_of(context_for(ServerUser(ANA))) == {"tenant": "101", "owner": "ana"}
    for stranger in (StudioUser("langgraph-studio-user"), ServerUser(identity="x")):
        with pytest.raises(Auth.exceptions.HTTPException) as refused:
            owner_of(context_for(stranger))
        assert refused.value.status_code == 403


async def test_a_thread_is_stamped_with_its_owner_and_filtered_by_it() -> None:
    value: dict[str, Any] = {"metadata": {"tenant": "102", "owner": "bia", "topic": "x"}}
    created = value["metadata"]
    found = await own_threads(context_for(ServerUser(ANA)), value)
    assert found == {"tenant": "101", "owner": "ana"}
    assert created == {"tenant": "101", "owner": "ana", "topic": "x"}  # in place
    run = {"kwargs": {"context": {"tenant": "102"}}, "metadata": {}}
    with pytest.raises(Auth.exceptions.HTTPException, match="TENANT_MISMATCH"):
        await own_threads(context_for(ServerUser(ANA), action="create_run"), run)


async def test_the_system_assistant_is_readable_but_not_writable() -> None:
    user = ServerUser(ANA)
    readable = await own_assistants(context_for(user, "assistants", "search"), {})
    assert readable == {"$or": [{"created_by": "system"}, {"tenant": "101", "owner": "ana"}]}
    writable = await own_assistants(context_for(user, "assistants", "update"), {"metadata": {}})
    assert writable == {"tenant": "101", "owner": "ana"}
    with pytest.raises(Auth.exceptions.HTTPException):
        await own_assistants(
            context_for(user, "assistants", "create"), {"metadata": {"created_by": "system"}}
        )


@pytest.mark.parametrize(
    ("context", "refused"),
    [
        ({}, False),
        ({"tenant": ""}, False),
        ({"tenant": "101"}, False),
        ({"tenant": "0101"}, False),
        ({"tenant": 101}, False),
        ({"tenant": "102"}, True),
        ({"tenant": "x"}, True),
    ],
)
def test_a_context_may_name_only_the_tokens_tenant(context: dict, refused: bool) -> None:
    owner = {"tenant": "101", "owner": "ana"}
    if refused:
        with pytest.raises(Auth.exceptions.HTTPException, match="TENANT_MISMATCH"):
            refuse_other_tenant(owner, KEY, context)
    else:
        refuse_other_tenant(owner, KEY, context)


def test_a_run_reads_as_its_authenticated_caller_whatever_the_context_says() -> None:
    settings = Settings(tenants={"101": {"mask_personal_data": True}})
    asked = RunContext(tenant="102", user="mallory", mask_personal_data=False)
    run = caller_context(asked, ServerUser(ANA), settings)
    assert (run.tenant, run.user, run.mask_personal_data) == ("101", "ana", True)
    nobody = caller_context(asked, None, settings)
    assert (nobody.tenant, nobody.user) == ("", "")  # no caller: no tenant, no data
    assert claim(StudioUser("langgraph-studio-user"), "tenant") == ""


def test_in_production_the_models_caps_and_limits_are_the_servers() -> None:
    asked = RunContext(models={"sql_writer": "scripted:/etc/passwd"})
    asked.limits.statement_timeout_ms = 600_000
    demo = caller_context(asked, ServerUser(ANA), Settings())
    assert demo.models and demo.limits.statement_timeout_ms == 600_000  # Studio may, in demo
    settings = Settings(mode="production", jwt_secret=STRONG)
    production = caller_context(asked, ServerUser(ANA), settings)
    assert production.models == {}
    assert production.limits == settings.limits and production.caps == settings.caps


async def test_in_production_the_routers_caps_are_the_servers_too() -> None:
    """The routers that enforce the repair and retry caps read the caller's context, as the
    stages do: a client's context cannot lift a cap under LangGraph Server in production."""
    settings = Settings(mode="production", jwt_secret=STRONG)

    async def opened() -> Any:
        return SimpleNamespace(settings=settings)  # the routers read only the settings

    asked = RunContext(caps=Caps(max_fix_attempts=10, max_sql_attempts=10))
    runtime = Runtime(context=asked, server_info=ServerInfo("a", "orquestra", ServerUser(ANA)))
    repaired_once = {"fix_attempts": settings.caps.max_fix_attempts}
    assert after_guard(repaired_once, runtime) == "fixer"  # the client's caps, unbound
    guard_route = bind_router(after_guard, opened, caller_context)
    assert await guard_route(repaired_once, runtime) == "cap_reached"
    retried = {"result": {"rows": []}, "sql_attempt": settings.caps.max_sql_attempts}
    executor_route = bind_router(after_executor, opened, caller_context)
    assert await executor_route(retried, runtime) == "cap_reached"
    demo = bind_router(after_guard, opened, None)  # `orquestra serve` binds no identity
    assert demo is after_guard


def test_the_bound_routers_keep_their_edges() -> None:
    """LangGraph draws a router's edges from its return type: binding keeps them."""
    drawn = build_graph(cast(Any, None), identity=caller_context).compile().get_graph()
    ends = {(e.source, e.target) for e in drawn.edges if e.source in ("tenant_guard", "executor")}
    assert ends == {
        ("tenant_guard", "executor"),
        ("tenant_guard", "fixer"),
        ("tenant_guard", "cap_reached"),
        ("executor", "analyzer"),
        ("executor", "fixer"),
        ("executor", "zero_row_retry"),
        ("executor", "cap_reached"),
    }
