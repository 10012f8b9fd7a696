"""Who did something to one row, and when: the row's reference to a table of named rows
(shown by its name), and the date column the verb names; no count of rows in the verb's
state."""

from __future__ import annotations

from datetime import date

import pytest

from orquestra.core.deployment import load_deployment
from orquestra.ddl_catalog import load_catalog
from orquestra.guards import GuardPolicy, guard_sql
from orquestra.offline.lexicon import lexicon_for
from orquestra.offline.parser import parse
from orquestra.offline.sql import build_sql

TODAY = date(2026, 6, 30)
CATALOGS = {
    name: load_catalog(load_deployment(name).catalog_dir) for name in ("logistics", "clinics")
}


def sql_for(deployment: str, question: str) -> str:
    catalog = CATALOGS[deployment]
    intent = parse(question, catalog, lexicon_for(catalog), TODAY)
    sql = " ".join(build_sql(intent, catalog, TODAY.isoformat()).split())
    guard_sql(sql, GuardPolicy.from_catalog(catalog), "101")
    return sql


@pytest.mark.parametrize(
    ("deployment", "question", "fragments"),
    [
        ("clinics", "quem assinou o laudo 7001 e quando?", ["p.nome", "l.assinado_em"]),
        ("clinics", "who signed report 7001, and when?", ["p.nome", "l.assinado_em"]),
        ("clinics", "quem assinou o laudo 7001?", ["p.nome", "l.num_laudo = 7001"]),
        ("logistics", "quem fez o pedido 120001?", ["c.nome", "p.num_pedido = 120001"]),
    ],
)
def test_who_did_it_is_the_rows_named_reference(
    deployment: str, question: str, fragments: list[str]
) -> None:
    sql = sql_for(deployment, question)
    assert all(f in sql for f in fragments), sql
    assert "count(" not in sql, sql
