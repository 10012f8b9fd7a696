"""Personal data in text a person wrote into a schema: found, named and masked.

`catalog import` and `init` copy a schema's comments and some of its SQL text into the
catalog, and the catalog goes into every tenant's prompt; a comment holding one customer's
e-mail would reach every other tenant. `find_personal_data` names what in a text looks like
personal data, by shapes every business has (no words of any business), each a pattern and,
where the shape alone would also match ordinary numbers, the check that python-stdnum (the
standard numbers' validators) makes of it:

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

from stdnum import iban, luhn
from stdnum.br import cnpj, cpf
from stdnum.us import ssn

__all__ = ["KINDS", "Found", "Kind", "find_personal_data", "masked"]


@dataclass(frozen=True)
class Found:
    """One value that looks like personal data: its kind and where it is in the text."""

    kind: str
    start: int
    end: int


def _digits(text: str) -> str:
    return "".join(c for c in text if c.isdigit())


def _real(check: Callable[[str], bool]) -> Callable[[str], bool]:
    """`check` (python-stdnum's validator), refusing a number of one repeated digit: in a
    description, "000.000.000-00" or "111.111.111-11" is a mask, not a person's number."""
    return lambda text: len(set(_digits(text))) > 1 and check(text)


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
        _real(cnpj.is_valid),
    ),
    Kind(
        "document number (CPF)",
        re.compile(_NO_DIGIT_BEFORE + r"(?:\d{3}\.\d{3}\.\d{3}-\d{2}|\d{11})" + _NO_DIGIT_AFTER),
        _real(cpf.is_valid),
    ),
    Kind(
        "document number (US SSN)",
        re.compile(_NO_DIGIT_BEFORE + r"\d{3}-\d{2}-\d{4}" + _NO_DIGIT_AFTER),
        ssn.is_valid,
    ),
    Kind(
        "payment card number",
        re.compile(_NO_DIGIT_BEFORE + r"[3-6]\d{3}(?:[ -]?\d{4}){2}[ -]?\d{1,7}" + _NO_DIGIT_AFTER),
        lambda text: 13 <= len(digits := _digits(text)) <= 19 and luhn.is_valid(digits),
    ),
    Kind(
        "bank account (IBAN)",
        re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b"),
        iban.is_valid,
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
