"""Another tenant's name in a message: the SQL treats it as any unknown name (so the `sql`
event cannot tell a tenant's name from a made-up one), and the answer notes one such name at
most, while the person has notes left, each message audited.

Stages run alone on fakes holding only what they read; the count itself is the state
database's (`tests/integration/test_tenant_note.py`), here a stand-in keeping the same rule.
"""

from __future__ import annotations

import logging
import re
from types import SimpleNamespace
from typing import Any, cast

import pytest
from langgraph.runtime import Runtime

from orquestra.core.database import DatabaseUnavailable
from orquestra.core.settings import Settings
from orquestra.ddl_catalog import DEMO_CATALOG_DIR, load_catalog
from orquestra.graph.context import RunContext
from orquestra.graph.resources import Resources
from orquestra.graph.state import AgentState
from orquestra.graph.tenant_directory import TenantDirectory
from orquestra.guards.tenant_names import TenantNames
from orquestra.nodes.input_rails import other_tenant_named
from orquestra.nodes.sql_writer import sql_writer
from orquestra.nodes.streamer import not_yours

CATALOG = load_catalog(DEMO_CATALOG_DIR)
NAMES = TenantNames({"101": "Aurora Alimentos S.A.", "102": "Boreal Bebidas Ltda", "103": "Zeta"})
LITERAL = re.compile(r"'[^']*'")


class Allowance:
    """The state database's rule in memory: `per_user` notes for each (tenant, user)."""

    def __init__(self, per_user: int) -> None:
        self.per_user = per_user
        self.noted: dict[tuple[str, str], int] = {}
        self.calls: list[bool] = []

    async def take(self, tenant: str, user: str, *, named: bool) -> bool:
        self.calls.append(named)
        used = self.noted.get((tenant, user), 0)
        if named and used < self.per_user:
            self.noted[(tenant, user)] = used + 1
            return True
        return False


class Unavailable:
    async def take(self, tenant: str, user: str, *, named: bool) -> bool:
        raise DatabaseUnavailable("the database did not answer (counting tenant-name notes)")


def resources(allowance: object | None) -> Resources:
    tenants = TenantDirectory.fixed(NAMES)
    return cast(Resources, SimpleNamespace(tenants=tenants, note_allowance=allowance))


def audits(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    return [
        {k: getattr(r, k) for k in ("tenant", "user", "named", "noted", "outcome")}
        for r in caplog.records
        if r.name == "orquestra.audit" and r.getMessage() == "message names another tenant"
    ]


async def test_one_name_at_most_is_noted_and_audited(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, "orquestra.audit")
    context = RunContext(tenant="101", user="ana")
    message = "faturamento da Zeta, da Boreal Bebidas e da Aurora Alimentos"
    named = await other_tenant_named(message, context, resources(Allowance(3)))
    assert named == "Zeta"
    assert audits(caplog) == [
        {"tenant": "101", "user": "ana", "named": "Zeta", "noted": True, "outcome": "noted"}
    ]
    note = not_yours(cast(AgentState, {"other_tenants_named": [named], "lang": "pt"}))
    assert "“Zeta”" in note and "Boreal" not in note


async def test_past_the_limit_nothing_is_noted_and_the_audit_says_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, "orquestra.audit")
    allowance = Allowance(2)
    ana, bia = RunContext(tenant="101", user="ana"), RunContext(tenant="101", user="bia")
    said = [
        await other_tenant_named(f"faturamento da {name}", ana, resources(allowance))
        for name in ("Zeta", "Boreal Bebidas", "Zeta", "Boreal Bebidas")
    ]
    assert said == ["Zeta", "Boreal Bebidas", None, None]
    assert await other_tenant_named("e a Zeta?", bia, resources(allowance)) == "Zeta"  # her own
    outcomes = [(a["user"], a["noted"], a["outcome"]) for a in audits(caplog)]
    assert outcomes == [
        ("ana", True, "noted"),
        ("ana", True, "noted"),
        ("ana", False, "not noted: past the per-user limit"),
        ("ana", False, "not noted: past the per-user limit"),
        ("bia", True, "noted"),
    ]


async def test_every_message_is_counted_alike_and_only_names_are_audited(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The count runs for a message naming nobody too (the same statement, `named=False`):
    the stage's time, shown in its `node` event, does not say whether a name was found."""
    caplog.set_level(logging.WARNING, "orquestra.audit")
    allowance = Allowance(1)
    context = RunContext(tenant="101", user="ana")
    for message in ("faturamento da Xavante Bebidas", "faturamento da Aurora Alimentos"):
        assert await other_tenant_named(message, context, resources(allowance)) is None
    assert allowance.calls == [False, False] and audits(caplog) == []


async def test_off_or_uncounted_means_no_note_but_an_audit(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, "orquestra.audit")
    context = RunContext(tenant="101", user="ana")
    assert await other_tenant_named("e a Zeta?", context, resources(None)) is None
    assert await other_tenant_named("e a Zeta?", context, resources(Unavailable())) is None
    assert [(a["noted"], a["outcome"]) for a in audits(caplog)] == [
        (False, "the note is off"),
        (False, "not noted: the count is unavailable"),
    ]
    nobody = TenantDirectory.fixed(TenantNames({}))
    no_names = cast(Resources, SimpleNamespace(tenants=nobody, note_allowance=None))
    assert await other_tenant_named("e a Zeta?", context, no_names) is None


def test_the_note_is_off_in_the_settings() -> None:
    assert Settings().tenant_name_note.enabled and Settings().tenant_name_note.per_user == 3
    off = Settings(tenant_name_note={"enabled": False, "per_user": 0})
    assert not off.tenant_name_note.enabled


async def draft(question: str) -> str:
    """The offline SQL writer's draft for `question`, asked by tenant 101."""
    settings = Settings()
    fake = SimpleNamespace(
        settings=settings,
        catalog=CATALOG,
        examples=[],
        profile=settings.active_deployment.profile,
        tenants=TenantDirectory.fixed(NAMES),
    )

    async def nearest_examples(question: str, *_: object, **__: object) -> list[object]:
        return []

    fake.nearest_examples = nearest_examples
    fake.nearest_reviewed = nearest_examples  # none reviewed
    state = cast(
        AgentState,
        {"messages": [], "question": question, "route": "ANALYTICS", "schema_text": "(schema)"},
    )
    events: list[dict[str, Any]] = []
    runtime = Runtime(
        context=RunContext(tenant="101", today="2026-06-30"), stream_writer=events.append
    )
    update = await sql_writer(state, runtime, cast(Resources, fake))
    return str(update["draft_sql"])


@pytest.mark.parametrize(
    ("tenant_name", "made_up"),
    [
        ("Boreal Bebidas", "Xavante Bebidas"),
        ("Zeta", "Zuka"),
        ("BOREAL BEBIDAS LTDA", "XAVANTE REFRIGERANTES LTDA"),
        ("boreal bebidas", "xavante bebidas"),
    ],
)
async def test_another_tenants_name_is_read_as_any_unknown_name(
    tenant_name: str, made_up: str
) -> None:
    named = await draft(f"faturamento da {tenant_name}")
    invented = await draft(f"faturamento da {made_up}")
    assert LITERAL.sub("'…'", named) == LITERAL.sub("'…'", invented)
    assert (tenant_name in named) == (made_up in invented)  # a filter if, and as, any name is


async def test_the_askers_own_name_is_left_out_of_the_sql() -> None:
    own, plain = await draft("faturamento da Aurora Alimentos"), await draft("faturamento")
    assert own == plain and "Aurora" not in own
