"""LangGraph Server as a user meets it: `langgraph dev` serves the repository's
`langgraph.json` (the graph, the start-up app, the custom auth) in a real process, and the
SDK talks to it. One server for the module: the default offline model (no key, no model
configured), the blocking-call detector on (no `--allow-blocking`), no dev mode.

What holds: data and knowledge turns pass the detector; the resources open at start-up; no
token, a forged or an expired one is refused; the tenant comes only from the token (a
context naming another is refused, and the rows are the token tenant's, checked against the
database); one tenant or user cannot list, read, change or continue another's threads or
assistants."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import jwt
import pytest
import yaml
from langgraph_sdk import get_client
from langgraph_sdk.errors import NotFoundError, PermissionDeniedError

from orquestra.core.settings import DEV_SECRET, Settings
from orquestra.graph.context import ROLES
from tests.integration.graph.langgraph_servers import (
    DevServer,
    bearer,
    langgraph_dev,
    money,
    rows_as,
    server_env,
)
from tests.integration.graph.scripts import REVENUE_2026, data_turn

REVENUE = "faturamento por mês em 2026"
USER_MESSAGE = {"messages": [{"role": "user", "content": REVENUE}]}


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, data_dir: Path, demo_db
) -> Iterator[DevServer]:
    log = tmp_path_factory.mktemp("langgraph_dev") / "server.log"
    with langgraph_dev(log, server_env(data_dir)) as running:
        yield running
    assert "BlockingError" not in running.log_text()


def client(server: DevServer, tenant: str | None = "101", user: str = "ana"):
    return get_client(url=server.url, headers=bearer(tenant, user) if tenant else None)


async def test_data_and_knowledge_turns_pass_the_blocking_detector(
    server: DevServer, settings: Settings
) -> None:
    ana = client(server)
    thread = await ana.threads.create()
    data = await ana.runs.wait(thread["thread_id"], "orquestra", input=USER_MESSAGE)
    assert data["route"] == "ANALYTICS" and data["result"]["row_count"] == 6, data
    assert "$1" in data["sql"]  # the guard's tenant parameter
    rows = data["result"]["rows"]
    assert money(rows) == money(await rows_as(settings, data["sql"], "101"))
    knowledge = await ana.runs.wait(
        thread["thread_id"],
        "orquestra",
        input={"messages": [{"role": "user", "content": "o que é nota bloqueada?"}]},
    )
    assert knowledge["route"] == "KNOWLEDGE" and "BLOQUEADA" in knowledge["answer"]
    runs = await ana.runs.list(thread["thread_id"])
    assert [r["status"] for r in runs] == ["success", "success"]
    assert "BlockingError" not in server.log_text()
    assert "--allow-blocking" not in server.log_text()  # the detector was on


async def test_resources_open_at_start_up(server: DevServer) -> None:
    """The app's lifespan (`agent.studio`) opened them before the server answered `/ok`
    (uvicorn serves nothing until the lifespan has started), so no run waits for them."""
    log = server.log_text()
    assert log.count("resources opened at start-up") == 1, log[-3000:]
    assert log.index("resources opened at start-up") < log.index("Starting background run")


async def test_a_scripted_model_in_the_context_runs_a_thread(
    server: DevServer, tmp_path: Path
) -> None:
    script = tmp_path / "studio.yaml"
    answer = "Faturamento de 2026."
    script.write_text(yaml.safe_dump({"roles": data_turn(REVENUE, REVENUE_2026, answer=answer)}))
    ana = client(server)
    assistants = await ana.assistants.search(graph_id="orquestra")
    assert assistants, "the graph of langgraph.json is served"
    thread = await ana.threads.create()
    output = await ana.runs.wait(
        thread["thread_id"],
        "orquestra",
        input=USER_MESSAGE,
        context={"models": {role: f"scripted:{script}" for role in ROLES}},
    )
    assert output["answer"] == answer
    assert output["route"] == "ANALYTICS" and output["result"]["row_count"] == 6
    state = await ana.threads.get_state(thread["thread_id"])
    assert state["values"]["messages"][-1]["content"] == answer


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer not-a-token"},
        {"Authorization": "Basic YW5hOnNlY3JldA=="},
        {"X-Auth-Scheme": "langsmith"},  # LangSmith's Studio login: no bypass here
        {"Authorization": "Bearer " + jwt.encode({"sub": "ana", "tenant": "101"}, DEV_SECRET)},
        {
            "Authorization": "Bearer "
            + jwt.encode({"sub": "ana", "tenant": "101", "exp": int(time.time()) - 120}, DEV_SECRET)
        },
        {
            "Authorization": "Bearer "
            + jwt.encode(
                {"sub": "ana", "tenant": "101", "exp": int(time.time()) + 600},
                "another-secret-that-is-32-bytes-or-more",
            )
        },
    ],
    ids=["none", "garbage", "basic", "studio-login", "no-expiry", "expired", "forged"],
)
def test_a_request_without_a_valid_token_is_refused(server: DevServer, headers: dict) -> None:
    for method, path, body in (
        ("POST", "/threads", {}),
        ("POST", "/threads/search", {}),
        ("POST", "/assistants/search", {}),
        ("POST", "/runs/wait", {"assistant_id": "orquestra", "input": USER_MESSAGE}),
    ):
        response = httpx.request(method, server.url + path, json=body, headers=headers)
        assert response.status_code == 401, (path, response.text)
    control = httpx.post(server.url + "/threads/search", json={}, headers=bearer("101"))
    assert control.status_code == 200


def test_its_metrics_route_is_not_served_without_a_metrics_token(server: DevServer) -> None:
    """LangGraph Server's own `/metrics` holds Orquestra's counters: with no operator token
    configured, nobody reads it, a tenant's valid token included (`agent.metrics_gate`)."""
    for headers in ({}, bearer("101")):
        for path in ("/metrics", "/metrics?format=json"):
            response = httpx.get(server.url + path, headers=headers, timeout=10)
            assert response.status_code == 404, (path, response.text)


async def test_a_context_naming_another_tenant_is_refused(server: DevServer) -> None:
    ana = client(server, "101")
    thread = await ana.threads.create()
    for extra in ({"context": {"tenant": "102"}}, {"config": {"configurable": {"tenant": "102"}}}):
        with pytest.raises(httpx.HTTPStatusError) as refused:
            await ana.runs.wait(thread["thread_id"], "orquestra", input=USER_MESSAGE, **extra)
        assert refused.value.response.status_code == 403
        assert "TENANT_MISMATCH" in refused.value.response.text
    with pytest.raises(PermissionDeniedError, match="TENANT_MISMATCH"):
        await ana.assistants.create("orquestra", context={"tenant": "102"})
    assert await ana.runs.list(thread["thread_id"]) == []  # nothing ran
    same = await ana.runs.wait(
        thread["thread_id"], "orquestra", input=USER_MESSAGE, context={"tenant": "0101"}
    )
    assert same["result"]["row_count"] == 6  # the token's own tenant, however spelt


async def test_the_rows_are_the_token_tenants(server: DevServer, settings: Settings) -> None:
    """The same request, no tenant in the context: each token reads its own tenant's rows,
    as the database gives them for that tenant (and not for the other)."""
    answers = {}
    for tenant in ("101", "102"):
        caller = client(server, tenant)
        thread = await caller.threads.create()
        answers[tenant] = await caller.runs.wait(
            thread["thread_id"], "orquestra", input=USER_MESSAGE
        )
    for tenant, other in (("101", "102"), ("102", "101")):
        out = answers[tenant]
        figures = money(out["result"]["rows"])
        assert figures == money(await rows_as(settings, out["sql"], tenant))
        assert figures != money(await rows_as(settings, out["sql"], other))


async def test_another_tenant_or_user_cannot_reach_a_thread(server: DevServer) -> None:
    ana = client(server, "101", "ana")
    thread = await ana.threads.create()
    thread_id = thread["thread_id"]
    assert thread["metadata"] | {"tenant": "101", "owner": "ana"} == thread["metadata"]
    await ana.runs.wait(thread_id, "orquestra", input=USER_MESSAGE)
    mine = await ana.assistants.create("orquestra", name="ana's")
    for outsider in (client(server, "102", "ana"), client(server, "101", "bruno")):
        assert thread_id not in [t["thread_id"] for t in await outsider.threads.search()]
        assert "ana's" not in [a["name"] for a in await outsider.assistants.search()]
        for attempt in (
            outsider.threads.get(thread_id),
            outsider.threads.get_state(thread_id),
            outsider.threads.get_history(thread_id),
            outsider.threads.update(thread_id, metadata={"tenant": "102"}),
            outsider.runs.list(thread_id),
            outsider.runs.wait(thread_id, "orquestra", input=USER_MESSAGE),
            outsider.threads.delete(thread_id),
            outsider.assistants.get(mine["assistant_id"]),
            outsider.assistants.update(mine["assistant_id"], name="taken"),
        ):
            with pytest.raises((NotFoundError, httpx.HTTPStatusError)) as refused:
                await attempt
            assert getattr(refused.value, "response", None) is None or (
                refused.value.response.status_code in (403, 404)
            )
    # the owner still sees all of it, unchanged (the control)
    assert (await ana.threads.get(thread_id))["metadata"]["tenant"] == "101"
    assert len(await ana.runs.list(thread_id)) == 1
    assert (await ana.assistants.get(mine["assistant_id"]))["name"] == "ana's"


async def test_crons_and_other_namespaces_are_refused(server: DevServer) -> None:
    ana = client(server)
    with pytest.raises(PermissionDeniedError):
        await ana.crons.create("orquestra", schedule="0 * * * *", input=USER_MESSAGE)
    with pytest.raises(PermissionDeniedError):
        await ana.store.put_item(("102", "ana"), "note", {"v": 1})
    await ana.store.put_item(("101", "ana"), "note", {"v": 1})
    assert (await ana.store.get_item(("101", "ana"), "note"))["value"] == {"v": 1}
    with pytest.raises(PermissionDeniedError):
        await client(server, "102").store.get_item(("101", "ana"), "note")


async def test_only_its_owner_deletes_a_thread(server: DevServer) -> None:
    """LangGraph Server's own `DELETE /threads/{id}` goes through the same owner filter: for
    another tenant or user the thread does not exist (404); its owner deletes it, runs and
    checkpoints with it."""
    ana = client(server, "103", "ana")
    thread_id = (await ana.threads.create())["thread_id"]
    await ana.runs.wait(thread_id, "orquestra", input=USER_MESSAGE)
    for outsider in (client(server, "102", "ana"), client(server, "103", "bruno")):
        with pytest.raises(NotFoundError):
            await outsider.threads.delete(thread_id)
    assert (await ana.threads.get_state(thread_id))["values"]["messages"]
    await ana.threads.delete(thread_id)
    with pytest.raises(NotFoundError):
        await ana.threads.get(thread_id)
    assert thread_id not in [t["thread_id"] for t in await ana.threads.search()]
