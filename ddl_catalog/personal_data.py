"""Personal data in text a person wrote into a schema: found, named and masked.

`catalog import` and `init` copy a schema's comments and some of its SQL text into the
catalog, and the catalog goes into every tenant's prompt; a comment holding one customer's
e-mail would reach every other tenant. `find_personal_data` names what in a text looks like
personal data, by shapes every business has (no words of any business), each a pattern and,
where the shape alone would also match ordinary numbers, a check digit:

>>> [f.kind for f in find_personal_data("Escalations: ana@example.com, +55 11 98765-4321")]
['e-mail address', 'phone number']
>>> masked("Escalations: ana@example.com, +55 11 98765-4321")
'Escalations: <e-mail address>, <phone number>'
>>> find_personal_data("CFOP 5102, since 2024-01-15, R$ 1.234,56, 10% in 2023")
()

A number is never taken from inside a longer one (a date, an amount, a code): every pattern
is bounded by what may not touch it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["KINDS", "Found", "Kind", "find_personal_data", "masked"]


@dataclass(frozen=True)
class Found:
    """One value that looks like personal data: its kind and where it is in the text."""

    kind: str
    start: int
    end: int


def _digits(text: str) -> list[int]:
    return [int(c) for c in text if c.isdigit()]


def _mod11_checks(digits: list[int], weights: list[int]) -> bool:
    """The two check digits of a CPF (weights 10..2, then 11..2) or a CNPJ (5..2 9..2, then
    6..2 9..2): each is 11 minus the weighted sum modulo 11, 0 when that is 10 or 11."""
    if len(set(digits)) == 1:
        return False  # "000.000.000-00" is a mask in a description, not a person's number
    for position in (len(weights), len(weights) + 1):
        total = sum(d * w for d, w in zip(digits, weights, strict=False))
        if digits[position] != (0 if total % 11 < 2 else 11 - total % 11):
            return False
        weights = [weights[0] + 1, *weights]
    return True


def _cpf(text: str) -> bool:
    return _mod11_checks(_digits(text), list(range(10, 1, -1)))


def _cnpj(text: str) -> bool:
    return _mod11_checks(_digits(text), [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2])


def _luhn(text: str) -> bool:
    digits = _digits(text)[::-1]
    doubled = [d * 2 - 9 if d * 2 > 9 else d * 2 for d in digits[1::2]]
    return 13 <= len(digits) <= 19 and (sum(digits[::2]) + sum(doubled)) % 10 == 0


def _iban(text: str) -> bool:
    compact = re.sub(r"\s", "", text)
    rotated = compact[4:] + compact[:4]
    return int("".join(str(int(c, 36)) for c in rotated)) % 97 == 1


@dataclass(frozen=True)
class Kind:
    """A kind of personal data: its name, its shape, and the check a match must pass."""

    name: str
    pattern: re.Pattern[str]
    check: Callable[[str], bool] = lambda _: True


_NO_DIGIT_BEFORE = r"(?<![\w.,/+-])"
_NO_DIGIT_AFTER = r"(?![\w/-]|[.,]\d)"

KINDS: tuple[Kind, ...] = (
    Kind("e-mail address", re.compile(r"[\w.+%-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}")),
    Kind(
        "document number (CNPJ)",
        re.compile(
            _NO_DIGIT_BEFORE + r"(?:\d{2}\.\d{3}\.\d{3}/\d{4}-\d{2}|\d{14})" + _NO_DIGIT_AFTER
        ),
        _cnpj,
    ),
    Kind(
        "document number (CPF)",
        re.compile(_NO_DIGIT_BEFORE + r"(?:\d{3}\.\d{3}\.\d{3}-\d{2}|\d{11})" + _NO_DIGIT_AFTER),
        _cpf,
    ),
    Kind(
        "document number (US SSN)",
        re.compile(
            _NO_DIGIT_BEFORE + r"(?!000|666|9)\d{3}-(?!00)\d{2}-(?!0000)\d{4}" + _NO_DIGIT_AFTER
        ),
    ),
    Kind(
        "payment card number",
        re.compile(_NO_DIGIT_BEFORE + r"[3-6]\d{3}(?:[ -]?\d{4}){2}[ -]?\d{1,7}" + _NO_DIGIT_AFTER),
        _luhn,
    ),
    Kind(
        "bank account (IBAN)",
        re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b"),
        _iban,
    ),
    Kind(
        "phone number",
        re.compile(
            _NO_DIGIT_BEFORE
            + r"(?:\+\d{10,15}"  # international, written without separators
            + r"|(?:\+\d{1,3}[ .-]?)?(?:\(\d{2,3}\) ?|\d{2,3}[ .-])\d{3,5}[ .-]?\d{4}"  # area code
            + r"|9\d{4}-\d{4})"  # a mobile number without its area code
            + _NO_DIGIT_AFTER
        ),
    ),
)
"""In order: a span a kind takes is not looked at again (a CPF is not also a phone number)."""


def find_personal_data(text: str) -> tuple[Found, ...]:
    """Every value in `text` that looks like personal data, in the order they appear."""
    found: list[Found] = []
    for kind in KINDS:
        for match in kind.pattern.finditer(text):
            taken = any(f.start < match.end() and match.start() < f.end for f in found)
            if not taken and kind.check(match.group()):
                found.append(Found(kind.name, match.start(), match.end()))
    return tuple(sorted(found, key=lambda f: f.start))


def masked(text: str, found: tuple[Found, ...] | None = None) -> str:
    """`text` with each personal value replaced by its kind in angle brackets."""
    for item in sorted(
        find_personal_data(text) if found is None else found, key=lambda f: -f.start
    ):
        text = text[: item.start] + f"<{item.kind}>" + text[item.end :]
    return text
