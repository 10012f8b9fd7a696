"""The clinics sample's people and their time: professionals, monthly schedules, shifts.

Professionals join during the history (new hires) and a few leave; a professional has a
schedule (escala) only for the months they worked, and the shifts (plantões) carry no unit
of their own, only the schedule's composite key, as a real roster system would.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING

from orquestra.ddl_catalog.demo import clinics_profiles as P

if TYPE_CHECKING:
    from orquestra.ddl_catalog.demo.generator import Row, Tables

SHIFT_HOURS = {"MANHA": Decimal("6.0"), "TARDE": Decimal("6.0"), "NOITE": Decimal("12.0")}


@dataclass
class Professional:
    code: int
    unit: int
    category: str
    specialty: int | None
    admitted: date
    left: date | None
    """First day no longer working, for the few who left."""
    speed: float
    """Multiplies report turnaround: above 1 is a slower physician."""
    slips: float
    """Chance a quality review of their report disagrees."""

    def works_on(self, day: date) -> bool:
        return self.admitted <= day and (self.left is None or day < self.left)


def month_starts(first: date, last: date) -> list[date]:
    """First days of every month from `first`'s month to `last`'s month."""
    out, cursor = [], first.replace(day=1)
    while cursor <= last:
        out.append(cursor)
        cursor = (cursor + timedelta(days=32)).replace(day=1)
    return out


def professionals(
    rng: random.Random, history_start: date, today: date, tables: Tables
) -> list[Professional]:
    """Every unit's staff; physicians get specialties their unit's modalities need."""
    rows, staff, code = [], [], 3001
    for unit in P.UNITS:
        needed = sorted({t[3] for t in P.EXAM_TYPES if t[2] in unit.modalities})
        for category, count in unit.staff.items():
            for index in range(count):
                female = rng.random() < 0.55
                first = rng.choice(P.FIRST_NAMES_F if female else P.FIRST_NAMES_M)
                nome = f"{first} {rng.choice(P.SURNAMES)} {rng.choice(P.SURNAMES)}"
                specialty = needed[index % len(needed)] if category == "MEDICO" else None
                admitted = _admission(rng, unit.opened, history_start, today)
                left = None
                if index == count - 1 and count >= 4:  # the larger teams lost someone
                    left = today - timedelta(days=rng.randrange(60, 300))
                    left = max(left, admitted + timedelta(days=120))
                registro = f"{P.COUNCIL[category]}-{unit.uf} {rng.randrange(100000, 199999)}"
                speed = rng.choice((0.8, 0.9, 1.0, 1.0, 1.1, 1.6))
                slips = rng.choice((0.08, 0.1, 0.12, 0.15, 0.3))
                rows.append(
                    (code, unit.code, nome, registro, category, specialty, left is None, admitted)
                )
                staff.append(
                    Professional(code, unit.code, category, specialty, admitted, left, speed, slips)
                )
                code += 1
    tables["profissionais"] = rows
    return staff


def _admission(rng: random.Random, opened: date, history_start: date, today: date) -> date:
    if rng.random() < 0.8:  # most of the team predates the history
        span = max((history_start - opened).days, 1)
        return opened + timedelta(days=rng.randrange(span))
    return history_start + timedelta(days=rng.randrange((today - history_start).days - 90))


def schedules(
    rng: random.Random, staff: list[Professional], first: date, today: date, tables: Tables
) -> None:
    """A monthly schedule per professional per month worked, and its shifts; the current
    month is published, the next one still a draft, earlier ones closed."""
    units = {u.code: u for u in P.UNITS}
    current = today.replace(day=1)
    following = (current + timedelta(days=32)).replace(day=1)
    escalas, plantoes = [], []
    for person in staff:
        unit = units[person.unit]
        for month in month_starts(first, following):
            month_end = (month + timedelta(days=32)).replace(day=1) - timedelta(days=1)
            if not (person.works_on(month) or person.works_on(month_end)):
                continue
            status = (
                "FECHADA" if month < current else "PUBLICADA" if month == current else "RASCUNHO"
            )
            hours = rng.choice(P.CONTRACT_HOURS[person.category])
            escalas.append(
                (person.code, month, person.unit, P.SECTOR[person.category], hours, status)
            )
            plantoes.extend(_shifts(rng, person, unit, month, month_end, hours, today))
    tables["escalas"] = escalas
    tables["plantoes"] = plantoes


def _shifts(
    rng: random.Random,
    person: Professional,
    unit: P.Unit,
    month: date,
    month_end: date,
    hours: int,
    today: date,
) -> list[Row]:
    days = [
        month + timedelta(days=i)
        for i in range((month_end - month).days + 1)
        if (month + timedelta(days=i)).weekday() < 6 and person.works_on(month + timedelta(days=i))
    ]
    slots = [(d, t) for d in days for t in ("MANHA", "TARDE")]
    rng.shuffle(slots)
    night = unit.night_shifts and person.category in ("TECNICO", "ENFERMEIRO")
    chosen: list[tuple[date, str, str]] = []
    owed = Decimal(hours)
    for day, turno in slots:
        if owed <= 0:
            break
        if night and rng.random() < 0.15:
            turno = "NOITE"
        if any(c[0] == day for c in chosen):
            continue
        chosen.append((day, turno, "REGULAR"))
        owed -= SHIFT_HOURS[turno]
    busy = {c[0] for c in chosen}
    free = [d for d in days if d not in busy]
    rng.shuffle(free)
    # understaffed small units and busy months lean on overtime
    extras = rng.choices((0, 1, 2, 3), weights=(5, 3, 2, 1 + (person.unit >= 204) * 2))[0]
    chosen += [(d, "TARDE", "EXTRA") for d in free[:extras]]
    if person.category == "MEDICO":
        chosen += [(d, "NOITE", "SOBREAVISO") for d in free[extras : extras + rng.randrange(3)]]
    rows: list[Row] = []
    for day, turno, kind in sorted(chosen):
        rows.append(
            (
                person.code,
                month,
                day,
                turno,
                kind,
                SHIFT_HOURS[turno],
                _shift_status(rng, day, today),
            )
        )
    return rows


def _shift_status(rng: random.Random, day: date, today: date) -> str:
    if day > today:
        return "PREVISTO"
    return rng.choices(("CUMPRIDO", "FALTA", "TROCADO"), weights=(93, 3, 4))[0]
