"""Every trap of design §4 is present in the loaded demo data, one query per trap."""

from __future__ import annotations

from datetime import date

import asyncpg

from orquestra.ddl_catalog.demo import profiles as P

TENANTS = [101, 102, 103, 104, 105]


async def test_nota_numbers_collide_across_tenants(demo_db, conn: asyncpg.Connection) -> None:
    rows = await conn.fetch(
        """SELECT cod_fornecedor, count(DISTINCT num_nota) AS n, min(num_nota), max(num_nota)
           FROM notas_fiscais WHERE serie = 1 AND num_nota BETWEEN 40001 AND 41000
           GROUP BY cod_fornecedor ORDER BY 1"""
    )
    assert [r["cod_fornecedor"] for r in rows] == TENANTS
    assert all(r["n"] == 1000 for r in rows)  # 40001–41000 fully covered by every tenant
    owners = await conn.fetchval(
        """SELECT count(DISTINCT cod_fornecedor) FROM notas_fiscais
           WHERE serie = 1 AND num_nota = 40908"""
    )
    assert owners == 5


async def test_tracking_is_a_series_and_current_status_is_the_latest(
    demo_db, conn: asyncpg.Connection
) -> None:
    stats = await conn.fetchrow(
        """WITH per_nota AS (
             SELECT cod_fornecedor, serie, num_nota, count(*) AS events,
                    (array_agg(status ORDER BY last_updated DESC))[1] AS current_status,
                    (array_agg(status ORDER BY id DESC))[1] AS highest_id_status,
                    (array_agg(status ORDER BY id))[1] AS first_row_status
             FROM eventos_rastreamento GROUP BY 1, 2, 3)
           SELECT count(*) AS notas,
                  count(*) FILTER (WHERE events >= 3) AS series,
                  count(*) FILTER (WHERE current_status <> highest_id_status) AS id_misleads,
                  count(*) FILTER (WHERE current_status <> first_row_status) AS any_row_misleads
           FROM per_nota"""
    )
    assert stats["series"] > 0.8 * stats["notas"]
    assert stats["id_misleads"] > 50  # the highest id is not always the latest event
    assert stats["any_row_misleads"] > 0.9 * stats["notas"]


async def test_blocked_notas_mostly_have_an_overdue_titulo_of_the_same_customer(
    demo_db, conn: asyncpg.Connection
) -> None:
    rows = await conn.fetch(
        """SELECT n.cod_fornecedor, count(*) AS blocked,
                  count(*) FILTER (WHERE EXISTS (
                      SELECT 1 FROM titulos t
                      WHERE t.cod_fornecedor = n.cod_fornecedor AND t.cod_cliente = p.cod_cliente
                        AND t.status = 'VENCIDO')) AS with_overdue,
                  count(*) FILTER (WHERE n.motivo_bloqueio IS NULL) AS without_reason
           FROM notas_fiscais n
           JOIN pedidos p ON p.num_pedido = n.num_pedido AND p.cod_fornecedor = n.cod_fornecedor
           WHERE n.status = 'BLOQUEADA' GROUP BY 1 ORDER BY 1"""
    )
    assert [r["cod_fornecedor"] for r in rows] == TENANTS
    total = sum(r["blocked"] for r in rows)
    assert total >= 20
    assert sum(r["with_overdue"] for r in rows) > 0.6 * total
    assert all(r["without_reason"] == 0 for r in rows)
    unblocked_with_reason = await conn.fetchval(
        """SELECT count(*) FROM notas_fiscais
           WHERE status <> 'BLOQUEADA' AND motivo_bloqueio IS NOT NULL"""
    )
    assert unblocked_with_reason == 0


async def test_some_cargas_are_late(demo_db, conn: asyncpg.Connection) -> None:
    late = await conn.fetchrow(
        """SELECT count(*) FILTER (WHERE data_entrega::date > previsao_entrega) AS delivered_late,
                  count(*) FILTER (WHERE data_entrega IS NOT NULL) AS delivered,
                  count(*) FILTER (WHERE data_entrega IS NULL AND status <> 'CANCELADA'
                                     AND previsao_entrega < $1) AS open_late,
                  count(*) FILTER (WHERE status = 'ATRASADA') AS marked_late
           FROM cargas""",
        date(2026, 6, 30),
    )
    assert 0.05 * late["delivered"] < late["delivered_late"] < 0.4 * late["delivered"]
    assert late["open_late"] > 0
    assert late["marked_late"] == late["open_late"]


async def test_24_months_of_seasonal_history(demo_db, conn: asyncpg.Connection) -> None:
    span = await conn.fetchrow(
        """SELECT min(data_pedido)::date AS first, max(data_pedido)::date AS last,
                  count(DISTINCT date_trunc('month', data_pedido)) AS months FROM pedidos"""
    )
    assert span["first"] >= date(2024, 7, 1) and span["first"] <= date(2024, 7, 3)
    assert span["last"] <= date(2026, 6, 30) and span["last"] >= date(2026, 6, 28)
    assert span["months"] == 24
    by_month = dict(
        await conn.fetch(
            """SELECT to_char(data_pedido, 'YYYY-MM'), count(*) FROM pedidos
               WHERE cod_fornecedor = 101 GROUP BY 1"""
        )
    )
    assert by_month["2025-11"] > 1.25 * by_month["2025-02"]  # Black Friday vs. Carnival
    assert by_month["2026-05"] > by_month["2025-05"]  # year-on-year growth


async def test_transportadoras_are_shared_and_every_row_has_a_known_tenant(
    demo_db, conn: asyncpg.Connection
) -> None:
    columns = await conn.fetchval(
        """SELECT count(*) FROM information_schema.columns
           WHERE table_name = 'transportadoras' AND column_name = 'cod_fornecedor'"""
    )
    assert columns == 0
    used = await conn.fetchval("SELECT count(DISTINCT cod_fornecedor) FROM cargas")
    assert used == 5
    strays = await conn.fetchval(
        """SELECT count(*) FROM eventos_rastreamento
           WHERE cod_fornecedor NOT IN (101, 102, 103, 104, 105)"""
    )
    assert strays == 0


async def test_every_place_is_a_real_city_of_its_state(demo_db, conn: asyncpg.Connection) -> None:
    """Tracking events name a city and its state: a hub is in its own state, not in the
    destination's (Curitiba/RS was shown)."""
    known = {(city, uf) for city, uf, _region in P.CITIES} | set(P.HUBS.values())
    places = {
        (r["cidade"], r["uf"])
        for r in await conn.fetch("SELECT DISTINCT cidade, uf FROM eventos_rastreamento")
    }
    assert places and places <= known, sorted(places - known)[:5]
