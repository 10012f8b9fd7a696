"""Reports (laudos) of the clinics sample, their findings, and their quality reviews.

Every performed exam gets a report numbered per unit from 5001, so report numbers collide
across units. Turnaround depends on the deadline, the priority and the physician (a few
are slow); some reports are signed late, a few are forgotten unsigned, a review with a
major discrepancy amends its report (RETIFICADO), and a few critical findings are
communicated late or never.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from orquestra.ddl_catalog.demo import clinics_profiles as P
from orquestra.ddl_catalog.demo.clinics_staff import Professional

if TYPE_CHECKING:
    from orquestra.ddl_catalog.demo.clinics import Exam
    from orquestra.ddl_catalog.demo.generator import Row, Tables

FIRST_REPORT_NUMBER = 5001
URGENT_HOURS = 4
TYPES = {t[0]: t for t in P.EXAM_TYPES}


@dataclass
class Report:
    id: int
    unit: int
    number: int
    exam: int
    physician: int
    priority: str
    status: str
    opened: datetime
    due: datetime
    signed: datetime | None
    modality: str


def reports_and_reviews(
    rng: random.Random,
    now: datetime,
    exams: list[Exam],
    staff: list[Professional],
    tables: Tables,
) -> None:
    """Fill laudos, laudo_achados, revisoes_qualidade and apontamentos_revisao."""
    people = {p.code: p for p in staff}
    reports: list[Report] = []
    for unit in P.UNITS:
        doctors = [p for p in staff if p.unit == unit.code and p.category == "MEDICO"]
        done = sorted(
            (e for e in exams if e.unit == unit.code and e.status == "REALIZADO"),
            key=lambda e: (e.done, e.code),
        )
        for number, exam in enumerate(done, start=FIRST_REPORT_NUMBER):
            doctor = _physician(rng, doctors, exam)
            reports.append(_report(rng, now, len(reports) + 1, exam, doctor, number))
    tables["laudo_achados"] = [row for r in reports for row in _findings(rng, r)]
    _reviews(rng, now, reports, people, staff, tables)
    tables["laudos"] = [
        (r.id, r.unit, r.number, r.exam, r.physician, r.priority, r.status, r.opened, r.due,
         r.signed)
        for r in reports
    ]  # fmt: skip


def _physician(rng: random.Random, doctors: list[Professional], exam: Exam) -> Professional:
    assert exam.done is not None  # only performed exams get a report
    day = exam.done.date()
    specialty = TYPES[exam.type_code][3]
    working = [d for d in doctors if d.works_on(day)] or doctors
    fit = [d for d in working if d.specialty == specialty]
    return rng.choice(fit or working)


def _report(
    rng: random.Random, now: datetime, ident: int, exam: Exam, doctor: Professional, number: int
) -> Report:
    kind = TYPES[exam.type_code]
    urgent = rng.random() < (0.2 if kind[2] == "TC" else 0.06)
    hours = URGENT_HOURS if urgent else kind[4]
    opened = exam.done
    assert opened is not None  # only performed exams get a report
    due = opened + timedelta(hours=hours)
    if rng.random() < 0.1:  # late whatever the physician
        spent = hours * rng.uniform(1.05, 2.5)
    else:
        spent = hours * rng.uniform(0.12, 0.85) * doctor.speed
    signing = opened + timedelta(hours=spent)
    signed: datetime | None = signing
    status = "ASSINADO"
    if signing > now:
        elapsed = (now - opened) / (signing - opened)
        status = (
            "AGUARDANDO" if elapsed < 0.3 else "EM_ELABORACAO" if elapsed < 0.7
            else "AGUARDANDO_ASSINATURA"
        )  # fmt: skip
        signed = None
    elif now - opened < timedelta(days=120) and rng.random() < 0.004:
        status, signed = "AGUARDANDO_ASSINATURA", None  # forgotten in the signature queue
    elif rng.random() < 0.005:
        status, signed = "CANCELADO", None
    elif rng.random() < 0.01:
        status = "RETIFICADO"
    priority = "URGENTE" if urgent else "ROTINA"
    return Report(
        ident, exam.unit, number, exam.code, doctor.code, priority, status, opened, due,
        signed, kind[2],
    )  # fmt: skip


def _findings(rng: random.Random, report: Report) -> list[Row]:
    if report.status == "AGUARDANDO":
        return []
    critical_chance = 0.06 if report.priority == "URGENTE" else 0.012
    rows: list[Row] = []
    for item in range(1, rng.choice((1, 1, 2, 2, 3)) + 1):
        if item == 1 and rng.random() < critical_chance:
            rows.append((report.id, item, P.CRITICAL_FINDINGS[report.modality], "CRITICO",
                         _communicated(rng, report.opened)))  # fmt: skip
        elif rng.random() < 0.45:
            text = rng.choice(P.ALTERED_FINDINGS[report.modality])
            rows.append((report.id, item, text, "ALTERADO", None))
        else:
            rows.append((report.id, item, P.NORMAL_FINDING, "NORMAL", None))
    return rows


def _communicated(rng: random.Random, opened: datetime) -> datetime | None:
    roll = rng.random()
    if roll < 0.05:
        return None  # never communicated: what a quality manager looks for
    minutes = rng.randrange(120, 360) if roll < 0.17 else rng.randrange(15, 55)
    return opened + timedelta(minutes=minutes)


def _reviews(
    rng: random.Random,
    now: datetime,
    reports: list[Report],
    people: dict[int, Professional],
    staff: list[Professional],
    tables: Tables,
) -> None:
    reviews: list[Row] = []
    notes: list[Row] = []
    for report in reports:
        signed = report.signed  # set on every ASSINADO report
        if report.status != "ASSINADO" or signed is None or signed + timedelta(days=3) > now:
            continue
        roll = rng.random()
        motive = (
            "AMOSTRAGEM" if roll < 0.04 else "RECLAMACAO" if roll < 0.044
            else "SOLICITACAO_MEDICA" if roll < 0.048 else None
        )  # fmt: skip
        if motive is None:
            continue
        day = min(signed.date() + timedelta(days=rng.randrange(2, 26)), now.date())
        peers = [
            p for p in staff
            if p.unit == report.unit and p.category == "MEDICO" and p.code != report.physician
        ]  # fmt: skip
        reviewer = rng.choice([p for p in peers if p.works_on(day)] or peers)
        slips = people[report.physician].slips * (1 if motive == "AMOSTRAGEM" else 2.5)
        result = "CONCORDANTE"
        if rng.random() < slips:
            result = "DISCORDANCIA_MAIOR" if rng.random() < 0.3 else "DISCORDANCIA_MENOR"
        code = len(reviews) + 1
        reviews.append((code, report.id, reviewer.code, day, motive, result))
        if result == "DISCORDANCIA_MAIOR":
            report.status = "RETIFICADO"
        notes.extend(_review_notes(rng, code, result))
    tables["revisoes_qualidade"] = reviews
    tables["apontamentos_revisao"] = notes


def _review_notes(rng: random.Random, review: int, result: str) -> list[Row]:
    if result == "CONCORDANTE":
        return []
    major = result == "DISCORDANCIA_MAIOR"
    rows: list[Row] = []
    for seq in range(1, rng.randrange(1, 4 if major else 3) + 1):
        category = rng.choice(list(P.REVIEW_NOTES))
        severity = "GRAVE" if major and seq == 1 else rng.choice(("LEVE", "MODERADA"))
        rows.append((review, seq, category, severity, P.REVIEW_NOTES[category]))
    return rows
