"""A tenant added to the data while the server runs is recognised by name without a restart.

Two suppliers are added to the tenants' table after `orquestra serve` started. The first one's
first question names the second: the server, not finding its asker among the names it read
at start-up, reads them again, and treats the other name as another tenant's (the audit line
and the answer's note say so), as it would for a tenant it knew from the start.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator

import asyncpg
import pytest

from tests.e2e.conftest import Server, stream, token

ADDED = {9_001: "Zephyr Quartzo Comercial Ltda", 9_002: "Yarrow Basalto Distribuidora Ltda"}
NOTE = ("Observação:", "Note:")


async def _execute(db_url: str, sql: str, *args: object) -> None:
    conn = await asyncpg.connect(db_url)
    try:
        await conn.execute(sql, *args)
    finally:
        await conn.close()


@pytest.fixture
def added_tenants(server: Server, db_url: str) -> Iterator[dict[int, str]]:
    """The two suppliers, inserted once the server is serving; removed afterwards."""
    remove = "DELETE FROM fornecedores WHERE cod_fornecedor = ANY($1::int[])"
    asyncio.run(_execute(db_url, remove, list(ADDED)))
    for code, name in ADDED.items():
        asyncio.run(
            _execute(
                db_url,
                "INSERT INTO fornecedores (cod_fornecedor, razao_social, cnpj, uf, cidade,"
                " ativo, criado_em) VALUES ($1, $2, $3, 'SP', 'Campinas', true, current_date)",
                code,
                name,
                f"{code:014d}",
            )
        )
    yield ADDED
    asyncio.run(_execute(db_url, remove, list(ADDED)))


def test_a_tenant_added_while_serving_is_known_by_name(
    server: Server, added_tenants: dict[int, str]
) -> None:
    asker, named = 9_001, "Yarrow Basalto Distribuidora"
    user = f"added-{uuid.uuid4().hex[:8]}"
    events = stream(server.url, f"faturamento da {named}", bearer=token(str(asker), user))
    assert events[-1]["event"] == "done", events
    audits = [
        line
        for line in map(json.loads, filter(None, server.logs().splitlines()))
        if line.get("event") == "message names another tenant" and line.get("user") == user
    ]
    assert [(a["tenant"], a["named"]) for a in audits] == [(str(asker), named)]
    answer = next(e["data"]["answer"] for e in events if e["event"] == "result")
    note = answer[min(answer.find(mark) for mark in NOTE if mark in answer) :]
    assert named in note, answer
