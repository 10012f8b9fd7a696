"""`db policies --print`'s index findings: comments only, so running the printed file never
builds an index, whatever a name in a finding holds."""

from __future__ import annotations

from typing import Any

import pytest

from orquestra.core import database
from orquestra.core.settings import Settings
from orquestra.server import db_policies
from orquestra.server.cli_data import _index_findings_sql
from orquestra.server.db_policies import Finding


class Closed:
    async def close(self) -> None:
        pass


def found(monkeypatch: pytest.MonkeyPatch, findings: list[Finding]) -> None:
    async def connect(url: str) -> Closed:
        return Closed()

    async def index_findings(conn: Any, catalog: Any) -> list[Finding]:
        return findings

    monkeypatch.setattr(database, "admin_url", lambda settings: "postgresql://h/d")
    monkeypatch.setattr(database, "connect", connect)
    monkeypatch.setattr(db_policies, "index_findings", index_findings)


@pytest.fixture
def company_settings() -> Settings:
    return Settings(database_url="postgresql://u@h/d")


def test_every_line_of_a_finding_is_a_comment(
    monkeypatch: pytest.MonkeyPatch, company_settings: Settings
) -> None:
    odd = Finding(
        "INDEX_NOT_STARTING_WITH_TENANT",
        'index "a\nDROP TABLE t; --" ...',
        'CREATE INDEX CONCURRENTLY ON public.t (s, "x\ry");',
    )
    found(monkeypatch, [odd])
    text = _index_findings_sql(None, company_settings, None)
    lines = [line for line in text.splitlines() if line]
    assert lines and all(line.startswith("-- ") for line in lines)
    assert '-- DROP TABLE t; --" ...' in lines


def test_nothing_found_and_nothing_checked_are_said(
    monkeypatch: pytest.MonkeyPatch, company_settings: Settings
) -> None:
    found(monkeypatch, [])
    assert "each starts with its tenant column" in _index_findings_sql(None, company_settings, None)
    elsewhere = _index_findings_sql(None, company_settings, "other")
    assert "not checked (--database other is not the settings' database)" in elsewhere

    async def unreachable(url: str) -> Closed:
        raise database.DatabaseUnavailable("cannot reach PostgreSQL\nat h")

    monkeypatch.setattr(database, "connect", unreachable)
    text = _index_findings_sql(None, company_settings, None)
    assert "not checked (DB_UNAVAILABLE: cannot reach PostgreSQL at h)" in text
    assert all(line.startswith("-- ") for line in text.splitlines() if line)
