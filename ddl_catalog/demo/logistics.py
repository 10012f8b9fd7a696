"""Loads (cargas) and tracking events for the demo invoices.

Authorised invoices leave the day after issue, grouped per tenant, day and carrier into
loads of up to five invoices. Each invoice then gets a tracking series (collected, in
transit through the regional hub, out for delivery, delivered) cut at "now"; late loads
carry incidents, a few deliveries are refused and returned. Event ids follow arrival order,
which is not always time order: the current status is the latest `last_updated`.
"""

from __future__ import annotations

import random
from collections import defaultdict
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING

from orquestra.ddl_catalog.demo import profiles as P

if TYPE_CHECKING:
    from orquestra.ddl_catalog.demo.generator import Nota, Row, Tables

CARRIER = {code: (name, modal, late) for code, name, modal, late in P.CARRIERS}
REGION_ORDER = ("S", "SE", "CO", "NE", "N")
MAX_NOTAS_PER_LOAD = 5

Load = tuple[int, int, int, datetime, date, datetime | None, Decimal, Decimal, str]
"""A `cargas` row: code, tenant, carrier, departure, promised day, arrival, kg, freight, status."""
Event = tuple[int, int, int, int, str, str, str, str, datetime]
"""An `eventos_rastreamento` row before its id: tenant, série, nota, load, status, text, city,
state, moment."""


def ship_and_track(rng: random.Random, now: datetime, notas: list[Nota], tables: Tables) -> None:
    """Fill `cargas`, `carga_notas` and `eventos_rastreamento`; mark invoices delivered."""
    groups: dict[tuple[date, int, int], list[Nota]] = defaultdict(list)
    supplier = {s.code: s for s in P.SUPPLIERS}
    for nota in notas:
        if nota.status != "AUTORIZADA":
            continue
        prefs = supplier[nota.tenant].carriers
        carrier = rng.choices(list(prefs), weights=list(prefs.values()))[0]
        groups[(nota.issued.date() + timedelta(days=1), nota.tenant, carrier)].append(nota)
    loads: list[Load] = []
    links: list[Row] = []
    events: list[Event] = []
    code = 7001
    for (day, tenant, carrier), members in sorted(groups.items()):
        for start in range(0, len(members), MAX_NOTAS_PER_LOAD):
            chunk = members[start : start + MAX_NOTAS_PER_LOAD]
            if rng.random() < 0.01:  # a cancelled load, replaced by the next one
                loads.append(_cancelled_load(code, tenant, carrier, day, chunk))
                links.extend((code, n.tenant, n.serie, n.num) for n in chunk)
                code += 1
            load = _load(rng, code, tenant, carrier, day, chunk, now)
            loads.append(load)
            links.extend((code, n.tenant, n.serie, n.num) for n in chunk)
            if load[-1] != "PLANEJADA":
                for nota in chunk:
                    events.extend(_tracking(rng, nota, load, supplier[tenant], now))
            code += 1
    tables["cargas"] = loads
    tables["carga_notas"] = links
    tables["eventos_rastreamento"] = _number_events(rng, events)


def _load(
    rng: random.Random,
    code: int,
    tenant: int,
    carrier: int,
    day: date,
    chunk: list[Nota],
    now: datetime,
) -> Load:
    _, modal, late_rate = CARRIER[carrier]
    home = next(s for s in P.SUPPLIERS if s.code == tenant)
    departure = datetime.combine(day, time(rng.randrange(6, 11), rng.randrange(60)), now.tzinfo)
    lead = max(_lead_days(modal, home.uf, n.customer.region) for n in chunk)
    promised = (departure + timedelta(days=lead)).date()
    delay = rng.randint(1, 6) if rng.random() < late_rate else rng.choice((-1, 0, 0, 0))
    arrival = datetime.combine(
        promised + timedelta(days=delay), time(rng.randrange(8, 18), rng.randrange(60)), now.tzinfo
    )
    arrival = max(arrival, departure + timedelta(hours=6))
    weight = sum((n.weight for n in chunk), Decimal(0)).quantize(Decimal("0.001"))
    freight = (weight * Decimal(str(P.MODAL_FREIGHT_PER_KG[modal])) + Decimal(85)).quantize(
        Decimal("0.01")
    )
    arrived: datetime | None = arrival
    if departure > now:
        status, arrived = "PLANEJADA", None
    elif arrival > now:
        status, arrived = ("ATRASADA" if promised < now.date() else "EM_TRANSITO"), None
    else:
        status = "ENTREGUE"
    for nota in chunk:
        nota.delivered = None if status == "PLANEJADA" else status == "ENTREGUE"
    return (code, tenant, carrier, departure, promised, arrived, weight, freight, status)


def _cancelled_load(code: int, tenant: int, carrier: int, day: date, chunk: list[Nota]) -> Load:
    departure = datetime.combine(day - timedelta(days=1), time(7, 0), chunk[0].issued.tzinfo)
    weight = sum((n.weight for n in chunk), Decimal(0)).quantize(Decimal("0.001"))
    return (code, tenant, carrier, departure, day, None, weight, Decimal("0.00"), "CANCELADA")


def _lead_days(modal: str, origin_uf: str, region: str) -> int:
    origin = next(r for _, uf, r in P.CITIES if uf == origin_uf)
    hops = abs(REGION_ORDER.index(origin) - REGION_ORDER.index(region))
    return P.MODAL_LEAD_DAYS[modal] + (hops if modal == "RODOVIARIO" else hops // 2)


def _tracking(
    rng: random.Random, nota: Nota, load: Load, home: P.SupplierProfile, now: datetime
) -> list[Event]:
    """The tracking series of one invoice on one load, cut at `now`."""
    code, _, _, departure, promised, arrival, *_ = load
    dest, uf = nota.customer.cidade, nota.customer.uf
    end = arrival or datetime.combine(promised, time(17), now.tzinfo) + timedelta(days=3)
    span = end - departure
    series = [
        (
            departure + timedelta(minutes=rng.randint(20, 90)),
            "COLETADO",
            f"Mercadoria coletada em {home.cidade}",
            home.cidade,
            home.uf,
        )
    ]
    hub, hub_uf = P.HUBS[nota.customer.region]  # the hub's own state, not the destination's
    for step in range(1, rng.randint(2, 3)):
        moment = departure + span * (0.25 * step + rng.uniform(0, 0.1))
        series.append((moment, "EM_TRANSITO", f"Em trânsito, passagem por {hub}", hub, hub_uf))
    if arrival is None or arrival.date() > promised:
        moment = departure + span * rng.uniform(0.55, 0.7)
        series.append((moment, "OCORRENCIA", rng.choice(P.INCIDENTS), hub, hub_uf))
    delivery_day = datetime.combine(end.date(), time(7, rng.randrange(60)), now.tzinfo)
    series.append(
        (
            max(delivery_day, departure + span * 0.8),
            "EM_ROTA_DE_ENTREGA",
            f"Saiu para entrega em {dest}",
            dest,
            uf,
        )
    )
    if rng.random() < 0.015:
        series.append((end, "OCORRENCIA", "Recusa do destinatário", dest, uf))
        series.append(
            (end + timedelta(days=1), "DEVOLVIDO", "Mercadoria devolvida ao remetente", dest, uf)
        )
    else:
        series.append((end, "ENTREGUE", "Entregue ao destinatário", dest, uf))
    return [
        (
            nota.tenant,
            nota.serie,
            nota.num,
            code,
            status,
            text,
            city,
            state,
            moment.replace(microsecond=0),
        )
        for moment, status, text, city, state in series
        if moment <= now
    ]


def _number_events(rng: random.Random, events: list[Event]) -> list[Row]:
    """Give ids in arrival order: mostly time order, but carriers report some late."""
    keyed = []
    for event in events:
        lag = timedelta(hours=rng.choice((0, 0, 0, 0, 0, 2, 30)))
        keyed.append((event[-1] + lag, event))
    keyed.sort(key=lambda pair: (pair[0], pair[1][0], pair[1][1], pair[1][2]))
    return [(number, *event) for number, (_, event) in enumerate(keyed, start=1)]
