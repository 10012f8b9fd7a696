"""Numbers as people write them, and whether each one stands on the evidence.

An answer writes `R$ 1.234,56` (pt) or `R$ 1,234.56` (en), `12,5%`, `1,2 mi`, `05/2026`
or `30/06/2026 14:30`; the evidence holds floats, dates and strings. A written number is
grounded when some evidence value rounds to it at the precision it was written with (a
percentage may also be a ratio ×100). A separator that could be either thousands or
decimals is read both ways.

>>> [n.value for n in written_numbers("Vendas: R$ 1.234,56 (12,5%)")]
[1234.56, 12.5]
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

DATE = re.compile(
    r"(?<![\w/.-])(?:\d{4}-\d{2}(?:-\d{2})?(?:[ T]\d{2}:\d{2}(?::\d{2})?)?|"
    r"\d{1,2}/\d{1,2}/\d{4}|\d{1,2}/\d{4}|\d{1,2}:\d{2}(?::\d{2})?)(?![\w/])"
)
NUMBER = re.compile(
    r"(?<![\w.,])-?\d+(?:[.,]\d{3})*(?:[.,]\d+)?(?:(?P<suffix>k|K|M|MM|mi|bi|bn|B)\b|(?![\w]))"
)
"""A number, with a scale letter attached ("10k", "1.2M", "3,4bi") or standing alone."""
SCALE = re.compile(
    r"^[ \t]*(mil|mi|milh[aã]o|milh[oõ]es|bi|bilh[aã]o|bilh[oõ]es|thousand|million|billion|bn|mm)"
    r"\b",
    re.IGNORECASE,
)
"""A scale word after the number, on the same line ("1,2 mi", "3 million")."""
SCALES = {
    "mil": 1e3,
    "mm": 1e6,
    "k": 1e3,
    "thousand": 1e3,
    "mi": 1e6,
    "m": 1e6,
    "million": 1e6,
    "bi": 1e9,
    "b": 1e9,
    "bn": 1e9,
    "billion": 1e9,
}
GROUPED = {".": r"\d{1,3}(?:\.\d{3})+", ",": r"\d{1,3}(?:,\d{3})+"}
DIGITS = re.compile(r"\d+")
PLAIN_NUMBER = re.compile(r"-?\d+(\.\d+)?")
ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
LIST_MARKER = re.compile(r"(?m)^\s*\d{1,2}[.)]\s")


@dataclass(frozen=True)
class Written:
    """A number as written: its possible values, the rounding it implies, and its text."""

    text: str
    readings: tuple[tuple[float, float], ...]
    """(value, tolerance) for each way the text can be read."""
    percent: bool = False

    @property
    def value(self) -> float:
        return self.readings[0][0]


def _scale(word: str) -> float:
    if not word:
        return 1.0
    folded = word.lower().replace("ã", "a").replace("õ", "o")
    if folded.startswith(("milhao", "milhoe")):
        return 1e6
    if folded.startswith(("bilhao", "bilhoe")):
        return 1e9
    return SCALES.get(folded, 1.0)


def _readings(token: str) -> list[tuple[float, int]]:
    """(value, decimals) for every plausible reading of `token` (`1.234` is 1234 or 1.234)."""
    digits = token.replace(" ", "")
    negative = digits.startswith("-")
    digits = digits.lstrip("-")
    out: list[tuple[float, int]] = []
    for decimal_mark, group_mark in ((",", "."), (".", ",")):
        head, mark, tail = digits.rpartition(decimal_mark)
        if mark and group_mark not in tail and decimal_mark not in head:
            whole = head.replace(group_mark, "")
            if whole.isdigit() and tail.isdigit():
                out.append((float(f"{whole}.{tail}"), len(tail)))
        whole = digits.replace(group_mark, "")
        if (
            decimal_mark not in digits
            and whole.isdigit()
            and (group_mark not in digits or re.fullmatch(GROUPED[group_mark], digits))
        ):
            out.append((float(whole), 0))
    unique = sorted(set(out), key=out.index)
    return [(-v if negative else v, d) for v, d in unique]


def written_numbers(text: str) -> list[Written]:
    """Every number in `text` outside dates, with its readings (list markers are skipped)."""
    text = LIST_MARKER.sub(" ", text)
    text = DATE.sub(" ", text)
    found = []
    for match in NUMBER.finditer(text):
        suffix = match.group("suffix")
        token = match.group()[: -len(suffix)] if suffix else match.group()
        rest = text[match.end() :]
        scale_match = None if suffix else SCALE.match(rest)
        scale = _scale(suffix or (scale_match.group(1) if scale_match else ""))
        percent = rest.lstrip().startswith("%")
        readings = tuple(
            (value * scale, 0.5 * 10 ** (-decimals) * scale) for value, decimals in _readings(token)
        )
        if readings:
            found.append(Written(match.group(), readings, percent))
    return found


def written_dates(text: str) -> list[tuple[str, list[int]]]:
    """Dates and times in `text`, each with its integer parts (`05/2026` → [5, 2026])."""
    found = DATE.finditer(text)
    return [(m.group(), [int(p) for p in re.findall(r"\d+", m.group())]) for m in found]


class Evidence:
    """Every number the answer may quote, sorted for range lookups."""

    def __init__(
        self,
        values: Iterable[Any] = (),
        texts: Iterable[str] = (),
        timezone: str = "",
        asked: Iterable[str] = (),
    ) -> None:
        """`texts`: the deployment's own words (glossary, documents), read through a cache
        since they repeat; `asked`: what the asker wrote, read anew and never kept, so that
        no tenant's question waits in a cache another tenant's turn could time."""
        self.zone = ZoneInfo(timezone) if timezone else None
        """Times are also read as people there read them (answers show local time)."""
        numbers: set[float] = set()
        self.parts: set[int] = set()
        for value in values:
            self._add(value, numbers)
        read = [_numbers_in(text) for text in texts] + [_read_numbers(text) for text in asked]
        for found, parts in read:
            numbers.update(found)
            self.parts.update(parts)
        self.numbers = sorted(numbers | {float(p) for p in self.parts})

    def _add(self, value: Any, numbers: set[float]) -> None:
        # Hot loop (every cell of up to hundreds of rows): exact-type checks first.
        kind = type(value)
        if kind is float or kind is int or kind is Decimal:
            numbers.add(abs(float(value)))
        elif kind is str:
            self._add_text(value, numbers)
        elif kind is list or kind is tuple:
            for item in value:
                self._add(item, numbers)
        elif value is None or kind is bool:
            return
        elif isinstance(value, datetime | date):
            self._add_moment(value)
        elif isinstance(value, dict):
            for item in value.values():
                self._add(item, numbers)
        elif isinstance(value, int | float | Decimal):  # subclasses (IntEnum, numpy scalars)
            numbers.add(abs(float(value)))
        elif isinstance(value, str):
            self._add_text(str(value), numbers)
        elif isinstance(value, list | tuple):
            for item in value:
                self._add(item, numbers)

    def _add_moment(self, value: date) -> None:
        self.parts.update((value.year, value.month, value.day))
        if isinstance(value, datetime):
            self.parts.update((value.hour, value.minute))
            if value.tzinfo is not None and self.zone is not None:
                local = value.astimezone(self.zone)
                self.parts.update((local.year, local.month, local.day, local.hour))

    def _add_text(self, value: str, numbers: set[float]) -> None:
        digits = DIGITS.findall(value)
        if not digits:
            return
        if PLAIN_NUMBER.fullmatch(value):
            numbers.add(abs(float(value)))
        elif ISO_DATE.match(value):
            with contextlib.suppress(ValueError):
                self._add_moment(datetime.fromisoformat(value))
        self.parts.update(int(d) for d in digits if len(d) <= 12)

    def has(self, value: float, tolerance: float) -> bool:
        low = bisect.bisect_left(self.numbers, abs(value) - tolerance - 1e-9)
        return low < len(self.numbers) and self.numbers[low] <= abs(value) + tolerance + 1e-9

    def grounds(self, written: Written) -> bool:
        for value, tolerance in written.readings:
            if self.has(value, tolerance):
                return True
            if written.percent and self.has(value / 100, tolerance / 100):
                return True
        return False


def _read_numbers(text: str) -> tuple[frozenset[float], frozenset[int]]:
    """Numbers and integer parts of an evidence text."""
    numbers = {abs(v) for written in written_numbers(text) for v, _ in written.readings}
    parts = {p for _, found in written_dates(text) for p in found}
    parts |= {int(d) for d in DIGITS.findall(text) if len(d) <= 12}
    return frozenset(numbers), frozenset(parts)


_numbers_in = functools.lru_cache(maxsize=256)(_read_numbers)
"""`_read_numbers` of the deployment's texts, remembered: the glossary repeats."""


def ungrounded(answer: str, evidence: Evidence) -> tuple[list[str], int]:
    """The numbers and dates of `answer` the evidence does not hold, and how many were checked."""
    missing = [w.text for w in written_numbers(answer) if not evidence.grounds(w)]
    checked = len(written_numbers(answer))
    for text, parts in written_dates(answer):
        checked += 1
        if not all(p in evidence.parts or evidence.has(p, 0) for p in parts):
            missing.append(text)
    return missing, checked
