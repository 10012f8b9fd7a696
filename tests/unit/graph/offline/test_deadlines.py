"""Readings about a row's deadline (offline/deadlines.py): done on time or late, both
counted apart when both are asked, and past the deadline while still not done (in the
glossary definition's own words); a share metric's rows counted ("how many no-shows"); and
periods longer than a month compared side by side, a column each. Both languages, both
sample deployments."""

from __future__ import annotations

import pytest

from tests.unit.graph.offline.offline_sql import sql_for

ON_TIME_AND_LATE = [
    (
        "logistics",
        "no 1º semestre, qtd de cargas entregues dentro do prazo e qtd entregues fora do prazo",
        [
            "count(*) FILTER (WHERE CAST(c.data_entrega AS date) <= c.previsao_entrega)",
            "count(*) FILTER (WHERE CAST(c.data_entrega AS date) > c.previsao_entrega)",
            "c.data_saida >= DATE '2026-01-01'",  # placed in time as OTIF places its rows
        ],
    ),
    (
        "logistics",
        "in 2025, how many shipments arrived on time and how many arrived late?",
        [
            "FILTER (WHERE CAST(c.data_entrega AS date) <= c.previsao_entrega)",
            "FILTER (WHERE CAST(c.data_entrega AS date) > c.previsao_entrega)",
            "c.data_saida >= DATE '2025-01-01'",
        ],
    ),
    (
        "clinics",
        "no primeiro trimestre, quantos laudos foram assinados dentro do prazo e quantos fora?",
        [
            "count(*) FILTER (WHERE l.assinado_em <= l.prazo_em)",
            "count(*) FILTER (WHERE l.assinado_em > l.prazo_em)",
            "l.criado_em >= DATE '2026-01-01'",
        ],
    ),
    (
        "clinics",
        "in May, how many reports were signed on time and how many late?",
        ["FILTER (WHERE l.assinado_em <= l.prazo_em)", "FILTER (WHERE l.assinado_em > l.prazo_em)"],
    ),
]


@pytest.mark.parametrize(("deployment", "question", "fragments"), ON_TIME_AND_LATE)
def test_on_time_and_late_counted_apart(deployment: str, question: str, fragments: list[str]):
    sql = sql_for(deployment, question)
    for fragment in fragments:
        assert fragment in sql, f"{fragment!r} not in {sql}"
    assert "status" not in sql, sql  # the verb's state ("entregues") is the compared date


@pytest.mark.parametrize(
    ("deployment", "question", "fragment"),
    [
        (
            "logistics",
            "quantas cargas chegaram atrasadas em 2025?",
            "WHERE CAST(c.data_entrega AS date) > c.previsao_entrega AND (c.data_saida",
        ),
        (
            "logistics",
            "how many shipments were delivered on time in May?",
            "WHERE CAST(c.data_entrega AS date) <= c.previsao_entrega AND (c.data_saida",
        ),
        (
            "clinics",
            "quantos laudos assinados fora do prazo em maio?",
            "WHERE l.assinado_em > l.prazo_em AND (l.criado_em >= DATE '2026-05-01'",
        ),
        (
            "clinics",
            "how many reports were signed late in May?",
            "WHERE l.assinado_em > l.prazo_em AND (l.criado_em >= DATE '2026-05-01'",
        ),
    ],
)
def test_done_late_or_on_time(deployment: str, question: str, fragment: str) -> None:
    sql = sql_for(deployment, question)
    assert fragment in sql, sql
    assert "IS NULL" not in sql, sql  # done late: not the ones still open


@pytest.mark.parametrize(
    ("deployment", "question", "fragment"),
    [
        (
            "logistics",
            "how many loads are past their promised date and still not delivered?",
            "(c.data_entrega IS NULL AND c.status <> 'CANCELADA' AND c.previsao_entrega < CAST(",
        ),
        (
            "logistics",
            "how many shipments are past their due date and still haven't arrived?",
            "(c.data_entrega IS NULL AND c.status <> 'CANCELADA' AND c.previsao_entrega < CAST(",
        ),
        (
            "logistics",
            "quantas cargas estão com a data prometida vencida e ainda não foram entregues?",
            "(c.data_entrega IS NULL AND c.status <> 'CANCELADA' AND c.previsao_entrega < CAST(",
        ),
        (
            "clinics",
            "quantos laudos estão com o prazo estourado e ainda sem assinatura?",
            "(l.assinado_em IS NULL AND l.status <> 'CANCELADO' AND l.prazo_em < CAST(",
        ),
        (
            "clinics",
            "how many reports are past their deadline and still unsigned?",
            "(l.assinado_em IS NULL AND l.status <> 'CANCELADO' AND l.prazo_em < CAST(",
        ),
    ],
)
def test_past_the_deadline_and_still_open(deployment: str, question: str, fragment: str) -> None:
    sql = sql_for(deployment, question)
    assert sql.startswith("SELECT count(*) AS quantidade"), sql
    assert fragment in sql, sql


def test_past_due_rows_listed() -> None:
    sql = sql_for("clinics", "list the reports that are past due and still unsigned")
    assert "(l.assinado_em IS NULL AND l.status <> 'CANCELADO' AND l.prazo_em <" in sql


def test_the_rows_compared_with_their_deadline_are_counted() -> None:
    """Of the tables named, the one whose dates are compared is the one counted."""
    sql = sql_for(
        "clinics",
        "dos exames de 2025, quantos laudos foram assinados dentro do prazo e quantos passaram"
        " do prazo",
    )
    assert "FROM laudos AS l WHERE (l.criado_em >= DATE '2025-01-01'" in sql, sql
    assert "FILTER (WHERE l.assinado_em > l.prazo_em)" in sql, sql


@pytest.mark.parametrize(
    ("question", "fragment"),
    [
        (
            "how many exams were scheduled in June and how many of them were no-shows?",
            "count(*) FILTER (WHERE e.status = 'FALTOU') AS quantidade_absenteismo",
        ),
        ("quantos no-shows tivemos em maio?", "WHERE e.status = 'FALTOU' AND (e.data_agendada"),
        ("how many on-time reports in May?", "(l.assinado_em <= l.prazo_em)"),
    ],
)
def test_a_shares_rows_counted(question: str, fragment: str) -> None:
    """Counting a share metric's rows counts those where its condition holds (the clinics
    glossary has the shares with a condition of their own)."""
    sql = sql_for("clinics", question)
    assert fragment in sql, sql
    assert "avg(" not in sql.lower(), sql


@pytest.mark.parametrize(
    ("deployment", "question", "first", "second"),
    [
        (
            "logistics",
            "compara o valor vendido no 1º tri de 2026 com o do 1º tri de 2025",
            "sum(p.valor_total) FILTER (WHERE p.data_pedido >= DATE '2026-01-01' AND "
            "p.data_pedido < DATE '2026-04-01')",
            "sum(p.valor_total) FILTER (WHERE p.data_pedido >= DATE '2025-01-01'",
        ),
        (
            "logistics",
            "revenue in 2025 vs 2024",
            "sum(nf.valor_nota) FILTER (WHERE nf.data_emissao >= DATE '2025-01-01'",
            "sum(nf.valor_nota) FILTER (WHERE nf.data_emissao >= DATE '2024-01-01'",
        ),
        (
            "clinics",
            "receita de 2025 comparada com a de 2024",
            "sum(e.valor) FILTER (WHERE e.data_realizacao >= DATE '2025-01-01'",
            "sum(e.valor) FILTER (WHERE e.data_realizacao >= DATE '2024-01-01'",
        ),
        (
            "clinics",
            "how many exams in Q1 2026 vs Q1 2025?",
            "count(*) FILTER (WHERE e.data_agendada >= DATE '2026-01-01'",
            "count(*) FILTER (WHERE e.data_agendada >= DATE '2025-01-01'",
        ),
    ],
)
def test_longer_periods_side_by_side(deployment: str, question: str, first: str, second: str):
    sql = sql_for(deployment, question)
    assert first in sql and second in sql, sql
    assert "GROUP BY" not in sql, sql


@pytest.mark.parametrize(
    ("deployment", "question"),
    [
        ("logistics", "compare o faturamento deste mês com o do mês passado"),
        ("clinics", "revenue this month vs last month"),
    ],
)
def test_months_compared_a_row_each(deployment: str, question: str) -> None:
    sql = sql_for(deployment, question)
    assert "date_trunc('month'" in sql and "GROUP BY 1" in sql, sql
