"""The "another supplier named" note over a real `orquestra serve`, as the probe met it: one
message that named hundreds of candidate names tested them all, the SQL told a supplier's
name (left out) from any other (a filter), and nothing throttled the guessing.

Now a message gets one note at most, the `sql` event reads a supplier's name exactly as a
made-up name of the same shape, and a person past `tenant_name_note.per_user` notes gets no
note at all — each message naming a supplier audited in the server's log. The default
offline model answers; the server counts the notes in its state database.
"""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import pytest

from tests.e2e.conftest import Server, start_server, stream, token

PER_USER = 2
LITERAL = re.compile(r"'[^']*'")
NOTE = {"pt": "Observação:", "en": "Note:"}


@pytest.fixture(scope="module")
def noting(data_dir: Path, demo_db) -> Iterator[Server]:
    """A server allowing each person two notes an hour."""
    running = start_server(data_dir, ORQUESTRA_TENANT_NAME_NOTE__PER_USER=str(PER_USER))
    yield running
    running.stop()


@pytest.fixture(scope="module")
def silent(data_dir: Path, demo_db) -> Iterator[Server]:
    """A server whose deployment turned the note off."""
    running = start_server(data_dir, ORQUESTRA_TENANT_NAME_NOTE__ENABLED="false")
    yield running
    running.stop()


@pytest.fixture(scope="module")
def others(db_url: str) -> list[str]:
    """The names people use for the suppliers other than 101 (the legal suffix dropped)."""

    async def fetch() -> list[asyncpg.Record]:
        conn = await asyncpg.connect(db_url)
        try:
            return await conn.fetch(
                "SELECT razao_social FROM fornecedores WHERE cod_fornecedor <> 101 ORDER BY 1"
            )
        finally:
            await conn.close()

    suffix = re.compile(r"\s+(ltda\.?|s\.?\s?a\.?|me|epp|eireli)$", re.IGNORECASE)
    return [suffix.sub("", r["razao_social"]).strip() for r in asyncio.run(fetch())]


def someone() -> str:
    return f"note-{uuid.uuid4().hex[:10]}"


class Asked:
    """One turn's events: its SQL, its result and the note its answer ends with, if any."""

    def __init__(self, events: list[dict]) -> None:
        self.events = events
        results = [e["data"] for e in events if e["event"] == "result"]
        assert results, [e["event"] for e in events]
        self.result = results[-1]
        self.sql = [e["data"]["sql"] for e in events if e["event"] == "sql"]

    @property
    def note(self) -> str:
        answer = self.result["answer"]
        marks = [answer.find(mark) for mark in NOTE.values() if mark in answer]
        return answer[min(marks) :] if marks else ""

    def shape(self) -> list[str]:
        """The SQL run, its literals blanked."""
        return [LITERAL.sub("'…'", sql) for sql in self.sql]


def ask(server: Server, message: str, user: str) -> Asked:
    return Asked(stream(server.url, message, bearer=token("101", user)))


def audits(server: Server, user: str) -> list[dict]:
    lines = [json.loads(line) for line in server.logs().splitlines() if line.startswith("{")]
    return [
        line
        for line in lines
        if line.get("logger") == "orquestra.audit"
        and line.get("event") == "message names another tenant"
        and line.get("user") == user
    ]


def test_a_message_naming_many_suppliers_notes_one_at_most(
    noting: Server, others: list[str]
) -> None:
    """The probe's shape: a few real names hidden among hundreds of guesses."""
    guesses = [f"Fornecedora {n} Ltda" for n in range(120)]
    message = "faturamento da " + ", ".join([*guesses[:60], *others, *guesses[60:]])
    assert len(message) <= 4_000
    asked = ask(noting, message, user := someone())
    named = [name for name in others if name.lower() in asked.note.lower()]
    assert named == [others[0]], asked.note  # the first one found, and only that one
    assert [a["named"] for a in audits(noting, user)] == [others[0]]


def test_a_suppliers_name_and_a_made_up_name_give_the_same_sql(
    noting: Server, others: list[str]
) -> None:
    """Before, a supplier's name was dropped from the SQL and any other name became a filter:
    the `sql` event told them apart, note or no note. Now both are read alike, within the
    allowance and past it: each is looked up in the asker's rows, found in none, and said so
    (no query guessed on a name no row has)."""
    supplier = others[0]
    made_up = "Xavante " + supplier.split()[-1]  # one word changed: the same shape
    user = someone()
    for _ in range(PER_USER + 1):  # the last past the limit
        real, invented = (ask(noting, f"faturamento da {n}", user) for n in (supplier, made_up))
        assert real.shape() == invented.shape() == [], (real.sql, invented.sql)
        assert real.result.get("rows") == invented.result.get("rows")
        said = real.result["answer"][: len(real.result["answer"]) - len(real.note)].rstrip()
        assert said.replace(supplier, made_up) == invented.result["answer"]
        assert not invented.note


def test_past_the_limit_no_more_notes(noting: Server, others: list[str]) -> None:
    user = someone()
    notes = [bool(ask(noting, f"revenue of {name}", user).note) for name in others]
    assert notes == [True] * PER_USER + [False] * (len(others) - PER_USER)
    outcomes = [(a["noted"], a["outcome"]) for a in audits(noting, user)]
    assert outcomes == [(True, "noted")] * PER_USER + [
        (False, "not noted: past the per-user limit")
    ] * (len(others) - PER_USER)
    assert ask(noting, f"revenue of {others[-1]}", someone()).note  # another person's own count


def test_a_deployment_can_turn_the_note_off(silent: Server, others: list[str]) -> None:
    user = someone()
    asked = ask(silent, f"faturamento da {others[0]}", user)
    assert not asked.note and others[0] in asked.result["answer"]  # found in none of its rows
    assert [(a["noted"], a["outcome"]) for a in audits(silent, user)] == [
        (False, "the note is off")
    ]
