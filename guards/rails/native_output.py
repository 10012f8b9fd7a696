"""Native output rail: personal data (PII) masked in answers, when the tenant asks for it.

CPF (formatted, or 11 digits with valid check digits), e-mail addresses and phone numbers
(Brazilian and international) are masked, keeping just enough to recognise them:
`123.456.789-09` → `***.***.***-09`, `ana.souza@acme.com.br` → `a***@acme.com.br`,
`(11) 98765-4321` → `(**) *****-4321`. Which kinds are masked is the entry's `kinds` option.
"""

from __future__ import annotations

import re

from stdnum.br import cpf

from orquestra.guards.rails.config import Entry
from orquestra.guards.rails.contracts import RailCheck, RailResult
from orquestra.guards.rails.native_input import Toolkit

CPF = re.compile(r"(?<![\d.])(\d{3})\.?(\d{3})\.?(\d{3})-?(\d{2})(?![\d])")
EMAIL = re.compile(r"(?<![\w.+-])([\w.+-])[\w.+-]*@([\w-]+(?:\.[\w-]+)+)")
PHONE = re.compile(
    r"(?<![\w+])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,3}\)\s?|\d{2,3}[\s.-])9?\d{4}[\s.-]?\d{4}(?!\d)"
)
KINDS = ("cpf", "email", "phone")


def valid_cpf(digits: str) -> bool:
    """The two check digits of a CPF (so order or document numbers are never masked as CPFs),
    by python-stdnum; one digit repeated is a placeholder, not a person's number."""
    return len(digits) == 11 and len(set(digits)) > 1 and cpf.is_valid(digits)


def _cpf(match: re.Match[str]) -> str:
    written = match.group()
    digits = "".join(match.groups())
    formatted = "." in written or "-" in written
    formatted = formatted and bool(re.fullmatch(r"\d{3}\.\d{3}\.\d{3}-\d{2}", written))
    if not (valid_cpf(digits) or formatted):
        return written
    return f"***.***.***-{digits[-2:]}"


def _phone(match: re.Match[str]) -> str:
    written = match.group()
    keep = 4
    digits_seen = 0
    out = []
    total_digits = sum(ch.isdigit() for ch in written)
    for ch in written:
        if ch.isdigit():
            digits_seen += 1
            out.append(ch if digits_seen > total_digits - keep else "*")
        else:
            out.append(ch)
    return "".join(out)


def mask(text: str, kinds: tuple[str, ...] = KINDS) -> str:
    """`text` with the personal data of `kinds` masked."""
    if "email" in kinds:
        text = EMAIL.sub(lambda m: f"{m.group(1)}***@{m.group(2)}", text)
    if "cpf" in kinds:
        text = CPF.sub(_cpf, text)
    if "phone" in kinds:
        text = PHONE.sub(_phone, text)
    return text


class PersonalData:
    """PII: mask CPF, e-mail and phone numbers in the answer (tenants that ask for it)."""

    def __init__(self, entry: Entry, toolkit: Toolkit) -> None:
        del toolkit
        kinds = entry.setting("kinds", list(KINDS))
        if isinstance(kinds, str):  # `ORQUESTRA_RAIL_PII_KINDS=email,cpf`
            kinds = [k.strip() for k in kinds.split(",") if k.strip()]
        unknown = set(kinds) - set(KINDS)
        if unknown:
            raise ValueError(f"PII kinds must be among {KINDS}, not {sorted(unknown)}")
        self.kinds = tuple(kinds)

    def applies(self, check: RailCheck) -> bool:
        return check.mask_personal_data

    async def evaluate(self, check: RailCheck) -> RailResult:
        if not check.mask_personal_data:
            return RailResult(allowed=True)
        masked = mask(check.text, self.kinds)
        if masked == check.text:
            return RailResult(allowed=True)
        return RailResult(allowed=True, text=masked, reason="personal data masked")
