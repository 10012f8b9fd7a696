"""Deterministic generator of the clinics sample deployment (same seed → identical rows).

`generate(seed, scale, reference_date)` returns every table of deployments/clinics in
catalog column order: units, specialties and exam types, staff and their schedules,
patients and 24 months of booked exams ending at the reference date (plus three weeks of
future bookings), the reports of the performed exams, and their quality reviews. Traps
real data has: report numbers that restart in every unit (each unit has its own laudo
5012), reports signed late or forgotten unsigned, slower physicians, no-shows, critical
findings communicated late or never, units without an MRI scanner.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from decimal import Decimal

from orquestra.ddl_catalog.demo import clinics_profiles as P
from orquestra.ddl_catalog.demo.clinics_reports import reports_and_reviews
from orquestra.ddl_catalog.demo.clinics_staff import (
    Professional,
    month_starts,
    professionals,
    schedules,
)
from orquestra.ddl_catalog.demo.generator import DemoData, Row, Tables

DATA_VERSION = 1
"""Bumped whenever a seed's rows change, so that `db init` reloads an older sample."""
BRT = timezone(timedelta(hours=-3))
CENT = Decimal("0.01")
BOOKING_HORIZON_DAYS = 21
"""Exams are booked up to three weeks past the reference date."""
MIN_EXAMS_PER_MONTH = 6
"""Floor that keeps every unit past laudo 5012 at any scale."""


@dataclass
class Exam:
    """An exam under construction; the report pass reads it."""

    unit: int
    patient: int
    type_code: int
    booked: datetime
    done: datetime | None = None
    status: str = "AGENDADO"
    technician: int | None = None
    plan: str = "PARTICULAR"
    value: Decimal = Decimal(0)
    code: int = 0


def generate(seed: int, scale: float, reference_date: date) -> DemoData:
    """Every table of the clinics catalog, from one seeded random stream."""
    rng = random.Random(seed)
    now = datetime.combine(reference_date, time(23, 59, 59), BRT)
    first = month_starts(reference_date - timedelta(days=700), reference_date)[0]
    data = DemoData()
    tables = data.tables
    tables["unidades"] = [(u.code, u.nome, u.cidade, u.uf, True, u.opened) for u in P.UNITS]
    tables["especialidades"] = list(P.SPECIALTIES)
    tables["tipos_exame"] = [
        (code, desc, mod, spec, hours, Decimal(price))
        for code, desc, mod, spec, hours, price, _, _ in P.EXAM_TYPES
    ]
    staff = professionals(rng, first, reference_date, tables)
    schedules(rng, staff, first, reference_date, tables)
    exams = _patients_and_exams(rng, scale, first, now, staff, tables)
    reports_and_reviews(rng, now, exams, staff, tables)
    return data


def _patients_and_exams(
    rng: random.Random,
    scale: float,
    first: date,
    now: datetime,
    staff: list[Professional],
    tables: Tables,
) -> list[Exam]:
    horizon = now.date() + timedelta(days=BOOKING_HORIZON_DAYS)
    patients: list[Row] = []
    exams: list[Exam] = []
    for unit in P.UNITS:
        pool: list[tuple[int, str]] = []
        team = [p for p in staff if p.unit == unit.code]
        for when in _booking_times(rng, unit, scale, first, horizon):
            patient, sex = _patient_for(rng, unit, when.date(), pool, patients)
            exam = Exam(unit.code, patient, _exam_type(rng, unit, sex), when)
            _settle(rng, exam, now, team)
            exams.append(exam)
    exams.sort(key=lambda e: (e.booked, e.unit))
    for code, exam in enumerate(exams, start=700001):
        exam.code = code
    tables["pacientes"] = patients
    tables["exames"] = [
        (e.code, e.unit, e.patient, e.type_code, e.technician, e.booked, e.done, e.status,
         e.plan, e.value)
        for e in exams
    ]  # fmt: skip
    return exams


def _booking_times(
    rng: random.Random, unit: P.Unit, scale: float, first: date, horizon: date
) -> list[datetime]:
    """Booked slots (Monday to Saturday, 7:00 to 18:45), growing ~1% a month, seasonal."""
    out = []
    for index, month in enumerate(month_starts(first, horizon)):
        nxt = (month + timedelta(days=32)).replace(day=1)
        workdays = [
            month + timedelta(days=i)
            for i in range((nxt - month).days)
            if (month + timedelta(days=i)).weekday() < 6
        ]
        days = [d for d in workdays if d <= horizon]
        wanted = unit.exams_per_month * scale * P.MONTH_WEIGHT[month.month] * (1 + 0.01 * index)
        count = max(MIN_EXAMS_PER_MONTH, round(wanted))
        count = round(count * len(days) / len(workdays))  # the future month is partial
        for _ in range(count):
            day = rng.choice(days)
            slot = time(7 + rng.randrange(12), 15 * rng.randrange(4))
            out.append(datetime.combine(day, slot, BRT))
    out.sort()
    return out


def _patient_for(
    rng: random.Random, unit: P.Unit, day: date, pool: list[tuple[int, str]], patients: list[Row]
) -> tuple[int, str]:
    """A returning patient of the unit, or a new one registered that day."""
    if pool and rng.random() < 0.55:
        return rng.choice(pool)
    code = 100001 + len(patients)
    sex = "F" if rng.random() < 0.58 else "M"
    names = P.FIRST_NAMES_F if sex == "F" else P.FIRST_NAMES_M
    nome = f"{rng.choice(names)} {rng.choice(P.SURNAMES)} {rng.choice(P.SURNAMES)}"
    age = min(95, max(0, int(rng.gauss(48, 18))))
    born = day - timedelta(days=age * 365 + rng.randrange(365))
    cidade = unit.cidade if rng.random() < 0.8 else rng.choice(unit.nearby)
    patients.append((code, unit.code, nome, born, sex, cidade, unit.uf, day))
    pool.append((code, sex))
    return code, sex


def _exam_type(rng: random.Random, unit: P.Unit, sex: str) -> int:
    allowed = [t for t in P.EXAM_TYPES if t[2] in unit.modalities and (sex == "F" or not t[7])]
    return rng.choices(allowed, weights=[t[6] for t in allowed])[0][0]


def _settle(rng: random.Random, exam: Exam, now: datetime, team: list[Professional]) -> None:
    """Status, technician, plan and amount of a booked exam."""
    kind = next(t for t in P.EXAM_TYPES if t[0] == exam.type_code)
    exam.plan = rng.choices(list(P.PLANS), weights=[w for w, _ in P.PLANS.values()])[0]
    factor = Decimal(P.PLANS[exam.plan][1])
    exam.value = (Decimal(kind[5]) * factor).quantize(CENT)
    if exam.booked > now:
        return
    monday_morning = exam.booked.weekday() == 0 and exam.booked.hour < 10
    no_show = 0.11 if monday_morning else 0.07
    roll = rng.random()
    if roll < 0.05:
        exam.status = "CANCELADO"
    elif roll < 0.05 + no_show:
        exam.status = "FALTOU"
    else:
        exam.status = "REALIZADO"
        exam.done = exam.booked + timedelta(minutes=rng.randrange(0, 45))
        category = "MEDICO" if kind[2] == "US" else "TECNICO"
        on_duty = [p for p in team if p.category == category and p.works_on(exam.booked.date())]
        exam.technician = rng.choice(on_duty).code if on_duty else None
