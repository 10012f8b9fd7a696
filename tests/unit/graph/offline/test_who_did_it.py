"""Who did something to one row, and when: the row's reference to a table of named rows
(shown by its name), and the date column the verb names; no count of rows in the verb's
state."""

from __future__ import annotations

import pytest

from tests.unit.graph.offline.offline_sql import sql_for


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
