"""Deterministic generator of the demo logistics data (same seed → identical rows).

`generate(seed, scale, reference_date)` returns every table's rows in catalog column order.
The passes run in business order (customers and products, orders, invoices, receivables,
blocking, loads, tracking) so the data holds together, and it carries the traps real data
has: invoice numbers that collide across tenants, tracking as a time series, blocked
invoices behind overdue receivables, late loads, seasonality over 24 months.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, timezone
from decimal import Decimal

from orquestra.ddl_catalog.demo import profiles as P
from orquestra.ddl_catalog.demo.logistics import ship_and_track

DATA_VERSION = 2
"""Bumped whenever a seed's rows change (2: a hub's tracking events name the hub's own
state), so that `db init` reloads a sample an older version loaded."""
BRT = timezone(timedelta(hours=-3))
CENT = Decimal("0.01")
MIN_ORDERS_PER_TENANT = 1300
"""Floor that keeps every tenant's série 1 covering notas 40001–41000 at any scale."""
BLOCK_WINDOW_DAYS = 20
"""Invoices this recent can still be blocked; payment terms are longer, so none is overdue."""

Row = tuple[object, ...]
"""One row of a table, in catalog column order (the database adapts each value)."""
Tables = dict[str, Sequence[Row]]
"""Rows per table."""
Product = tuple[int, Decimal, Decimal]
"""A product a tenant sells: code, price, kilograms."""
Order = tuple[int, int, int, datetime, str, str, Decimal]
"""A `pedidos` row: number, tenant, customer, moment, status, channel, total."""
Invoiced = tuple[int, "Customer", datetime, Decimal, Decimal]
"""An invoiced order: number, customer, issue moment, total, kilograms."""


@dataclass
class Customer:
    code: int
    tenant: int
    uf: str
    cidade: str
    region: str
    segment: str
    bad_payer: bool


@dataclass
class Nota:
    """An invoice under construction; the logistics passes read and update it."""

    tenant: int
    serie: int
    num: int
    order: int
    customer: Customer
    issued: datetime
    value: Decimal
    weight: Decimal
    status: str = "AUTORIZADA"
    reason: str | None = None
    delivered: bool | None = None
    """None: not shipped; False: on its way; True: delivered."""


@dataclass
class DemoData:
    """Rows per table, in catalog column order, plus facts the tests check."""

    tables: Tables = field(default_factory=dict)

    def row_counts(self) -> dict[str, int]:
        return {name: len(rows) for name, rows in self.tables.items()}

    def checksums(self) -> dict[str, str]:
        """SHA-256 of each table's rows, to prove determinism."""
        out = {}
        for name, rows in self.tables.items():
            digest = hashlib.sha256()
            for row in rows:
                digest.update(repr(row).encode())
            out[name] = digest.hexdigest()
        return out


def generate(seed: int, scale: float, reference_date: date) -> DemoData:
    """Every table of the demo catalog, from one seeded random stream."""
    rng = random.Random(seed)
    now = datetime.combine(reference_date, time(23, 59, 59), BRT)
    data = DemoData()
    data.tables["fornecedores"] = [
        (s.code, s.razao_social, s.cnpj, s.uf, s.cidade, True, s.criado_em) for s in P.SUPPLIERS
    ]
    data.tables["transportadoras"] = [(code, name, modal) for code, name, modal, _ in P.CARRIERS]
    customers = _customers(rng, scale, data)
    products = _products(rng, scale, data)
    orders, notas = _orders_and_invoices(rng, scale, now, customers, products, data)
    _receivables_and_blocks(rng, now, notas, data)
    ship_and_track(rng, now, notas, data.tables)
    _finish_orders(data, orders, notas)
    return data


def _count(base: int, scale: float, floor: int = 1) -> int:
    return max(floor, round(base * scale))


def _customers(rng: random.Random, scale: float, data: DemoData) -> dict[int, list[Customer]]:
    rows: list[Row] = []
    by_tenant: dict[int, list[Customer]] = {}
    seen: set[tuple[int, str]] = set()
    code = 1001
    for s in P.SUPPLIERS:
        by_tenant[s.code] = []
        home = [c for c in P.CITIES if c[1] == s.uf]
        for _ in range(_count(s.customers, scale, 30)):
            cidade, uf, region = rng.choice(home) if rng.random() < 0.35 else rng.choice(P.CITIES)
            segment = rng.choices(list(s.segments), weights=list(s.segments.values()))[0]
            name = " ".join(
                (
                    rng.choice(P.CUSTOMER_PREFIX[segment]),
                    rng.choice(P.CUSTOMER_CORE),
                    rng.choice(P.CUSTOMER_SUFFIX),
                )
            )
            if (s.code, name) in seen:
                name = f"{name} - {cidade}"
            seen.add((s.code, name))
            since = s.criado_em + timedelta(days=rng.randrange(0, 2000))
            since = min(since, date(2024, 6, 30))
            rows.append((code, s.code, name, cidade, uf, segment, since))
            bad = rng.random() < 0.12
            by_tenant[s.code].append(Customer(code, s.code, uf, cidade, region, segment, bad))
            code += 1
    data.tables["clientes"] = rows
    return by_tenant


def _products(rng: random.Random, scale: float, data: DemoData) -> dict[int, list[Product]]:
    rows: list[Row] = []
    by_tenant: dict[int, list[Product]] = {}
    code = 5001
    for s in P.SUPPLIERS:
        by_tenant[s.code] = []
        for _ in range(_count(s.products, max(scale, 1.0) ** 0.5, 10)):
            cat = rng.choice(s.categories)
            desc = f"{rng.choice(cat.items)} {rng.choice(P.SIZES)}"
            price = Decimal(str(round(rng.uniform(*cat.price), 2))).quantize(CENT)
            weight = Decimal(str(round(rng.uniform(*cat.weight), 3)))
            rows.append((code, s.code, desc, cat.name, price, weight))
            by_tenant[s.code].append((code, price, weight))
            code += 1
    data.tables["produtos"] = rows
    return by_tenant


def _order_dates(rng: random.Random, n: int, now: datetime) -> list[datetime]:
    """`n` order timestamps over the 24 months ending `now`, with seasonality and growth."""
    first = date(now.year - 2, now.month, 1) + timedelta(days=32)
    first = first.replace(day=1)
    months, weights = [], []
    cursor = first
    while cursor <= now.date():
        years = (cursor - first).days / 365.0
        months.append(cursor)
        weights.append(P.SEASONALITY[cursor.month] * (1 + P.YEARLY_GROWTH * years))
        cursor = (cursor + timedelta(days=32)).replace(day=1)
    out = []
    for month in rng.choices(months, weights=weights, k=n):
        last = (month + timedelta(days=32)).replace(day=1) - timedelta(days=1)
        last = min(last, now.date())
        day = month + timedelta(days=rng.randrange((last - month).days + 1))
        moment = time(rng.randrange(8, 19), rng.randrange(60), rng.randrange(60))
        out.append(datetime.combine(day, moment, BRT))
    return out


def _orders_and_invoices(
    rng: random.Random,
    scale: float,
    now: datetime,
    customers: dict[int, list[Customer]],
    products: dict[int, list[Product]],
    data: DemoData,
) -> tuple[list[Order], list[Nota]]:
    """Orders with their items, and the invoices of the orders that were invoiced."""
    drafts = []
    for s in P.SUPPLIERS:
        for moment in _order_dates(rng, _count(s.orders, scale, MIN_ORDERS_PER_TENANT), now):
            drafts.append((moment, s.code, rng.choice(customers[s.code])))
    drafts.sort(key=lambda d: (d[0], d[1]))
    orders: list[Order] = []
    items: list[Row] = []
    invoiced: list[Invoiced] = []
    for num, (moment, tenant, customer) in enumerate(drafts, start=100001):
        total, weight = _order_items(rng, num, tenant, customer, products[tenant], items)
        channel = P.CHANNELS[customer.segment]
        canal = rng.choices(list(channel), weights=list(channel.values()))[0]
        issued = moment + timedelta(seconds=rng.randrange(2 * 3600, 40 * 3600))
        if rng.random() < 0.03:
            status = "CANCELADO"
        elif issued > now or (now - moment < timedelta(days=2) and rng.random() < 0.6):
            status = "ABERTO"
        else:
            status = "FATURADO"
            invoiced.append((num, customer, issued, total, weight))
        orders.append((num, tenant, customer.code, moment, status, canal, total))
    data.tables["pedidos"] = orders  # status refined once loads are known
    data.tables["itens_pedido"] = items
    return orders, _invoices(rng, now, invoiced, data)


def _order_items(
    rng: random.Random,
    num: int,
    tenant: int,
    customer: Customer,
    catalog: list[Product],
    out: list[Row],
) -> tuple[Decimal, Decimal]:
    total, weight = Decimal(0), Decimal(0)
    bulk = customer.segment in ("ATACADO", "INDUSTRIA")
    for item, (code, price, kg) in enumerate(rng.sample(catalog, rng.randint(1, 4)), start=1):
        quantity = rng.randint(10, 120) if bulk else rng.randint(1, 24)
        unit = (price * Decimal(str(rng.choice((1, 1, 0.97, 0.95, 0.9))))).quantize(CENT)
        out.append((num, item, tenant, code, quantity, unit))
        total += unit * quantity
        weight += kg * quantity
    return total.quantize(CENT), weight


def _invoices(
    rng: random.Random, now: datetime, invoiced: list[Invoiced], data: DemoData
) -> list[Nota]:
    """Number invoices per tenant and série so série 1 covers 40001–41000 for every tenant."""
    invoiced.sort(key=lambda inv: (inv[2], inv[0]))
    per_tenant: dict[int, list[Invoiced]] = {}
    for inv in invoiced:
        per_tenant.setdefault(inv[1].tenant, []).append(inv)
    notas: list[Nota] = []
    for tenant, invs in per_tenant.items():
        two_series = len(invs) > 3000
        series = [2 if two_series and rng.random() < 0.12 else 1 for _ in invs]
        n1 = series.count(1)
        next_num = {1: 40001 - int(0.4 * max(0, n1 - 1000)), 2: 1}
        for (order, customer, issued, total, weight), serie in zip(invs, series, strict=True):
            nota = Nota(tenant, serie, next_num[serie], order, customer, issued, total, weight)
            next_num[serie] += 1
            if rng.random() < 0.015:
                nota.status = "CANCELADA"
            elif now - issued < timedelta(hours=20) and rng.random() < 0.5:
                nota.status = "EMITIDA"
            notas.append(nota)
    notas.sort(key=lambda n: (n.issued, n.tenant))
    return notas


def _receivables_and_blocks(
    rng: random.Random, now: datetime, notas: list[Nota], data: DemoData
) -> None:
    """Receivables of authorised invoices, then recent invoices blocked behind overdue ones."""
    today = now.date()
    overdue_customers = set()
    titles = []
    window = now - timedelta(days=BLOCK_WINDOW_DAYS)
    for number, nota in enumerate(notas, start=900001):
        if nota.status != "AUTORIZADA":
            continue
        issued = nota.issued.date()
        due = issued + timedelta(days=rng.choice(P.PAYMENT_TERMS[nota.customer.segment]))
        paid, status = _payment(rng, nota.customer.bad_payer, due, today)
        if status == "VENCIDO" and nota.issued < window:
            overdue_customers.add(nota.customer.code)
        titles.append((number, nota, issued, due, paid, status))
    blocked = set()
    for nota in notas:
        if nota.status != "AUTORIZADA" or nota.issued < window:
            continue
        if nota.customer.code in overdue_customers and rng.random() < 0.6:
            nota.status, nota.reason = "BLOQUEADA", P.BLOCK_REASON_OVERDUE
        elif rng.random() < 0.006:
            nota.status, nota.reason = "BLOQUEADA", rng.choice(P.OTHER_BLOCK_REASONS)
        if nota.status == "BLOQUEADA":
            blocked.add(id(nota))
    data.tables["titulos"] = [
        (num, n.tenant, n.customer.code, n.serie, n.num, issued, due, n.value, paid, status)
        for num, n, issued, due, paid, status in titles
        if id(n) not in blocked
    ]


def _payment(
    rng: random.Random, bad_payer: bool, due: date, today: date
) -> tuple[date | None, str]:
    """When a receivable was paid (if by `today`) and its status on `today`."""
    if bad_payer:
        if rng.random() < 0.45:
            return None, ("NEGOCIADO" if due < today and rng.random() < 0.2 else _open(due, today))
        paid = due + timedelta(days=rng.randint(3, 60))
    elif rng.random() < 0.04:
        paid = due + timedelta(days=rng.randint(1, 20))
    else:
        paid = due + timedelta(days=rng.randint(-6, 1))
    if paid > today:
        return None, _open(due, today)
    return paid, "PAGO"


def _open(due: date, today: date) -> str:
    return "VENCIDO" if due < today else "ABERTO"


def _finish_orders(data: DemoData, orders: list[Order], notas: list[Nota]) -> None:
    """Order status follows its invoice and load."""
    by_order = {n.order: n for n in notas}
    rows = []
    for row in orders:
        status = row[4]
        nota = by_order.get(row[0])
        if nota is not None:
            if nota.status == "CANCELADA":
                status = "CANCELADO"
            elif nota.delivered is True:
                status = "ENTREGUE"
            elif nota.delivered is False:
                status = "EM_TRANSPORTE"
        rows.append((*row[:4], status, *row[5:]))
    data.tables["pedidos"] = rows
    data.tables["notas_fiscais"] = [
        (n.tenant, n.serie, n.num, n.order, n.issued, n.value, _cfop(n), n.status, n.reason)
        for n in notas
    ]


def _cfop(nota: Nota) -> str:
    home = next(s.uf for s in P.SUPPLIERS if s.code == nota.tenant)
    if nota.customer.uf == home:
        return "5102"
    return "6108" if nota.customer.segment == "ECOMMERCE" else "6102"
