"""A reviewed example's literals, told apart: the catalog's and the question's own, kept; the
tenant's, replaced by slots.

An example approved from tenant A's turn holds A's data in its literals: a customer's name,
a code, an id looked up in A's rows. Before it may reach another tenant's prompt (design §5),
each such literal becomes a named slot in the SQL, `'{first_name}'`, and the same text in
the question becomes `{first_name}`. What is kept:

- a value the catalog lists for a column (`values:`), which every tenant's prompt already
  shows (a status, a category);
- a number or a year the question itself writes ("top 5", "em 2023": the question, not A's
  rows, said it), and the dates of a year it writes (up to the next year's first day, where
  a period written as a range ends);
- a number that is not compared with a column (arithmetic, rounding, a limit), 0, 1 and
  100, and interval texts (`'1 month'`).

The template is `shareable` only when every slot's value was found in the question (or never
written there) and nothing else in the question reads as a name (`value_spans`): a question
naming something the SQL does not (an id asked by name) stays A's own.

The same template lets the offline model reuse the example for a question that means the
same with its own values (`offline.reviewed`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

import sqlglot
from sqlglot import exp

from orquestra.ddl_catalog.data_values import value_spans
from orquestra.ddl_catalog.model import Catalog
from orquestra.ddl_catalog.selection_words import Vocabulary
from orquestra.ddl_catalog.text import fold

SlotKind = Literal["text", "number"]

STRUCTURAL_NUMBERS = frozenset({"0", "1", "100"})
INTERVAL = re.compile(
    r"^\s*\d+\s*(year|month|week|day|hour|minute|second|ano|mes|mês|semana|dia)s?\s*$", re.I
)
DATE = re.compile(r"^(\d{4})-\d{2}-\d{2}([ T][\d:.]+)?$")
YEAR = re.compile(r"\b(?:19|20)\d{2}\b")
NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)?(?![\w])")
SLOT = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


@dataclass(frozen=True)
class Slot:
    """A literal of the tenant's rows, replaced in the template."""

    name: str
    kind: SlotKind
    column: str | None
    """The column it was compared with, when the SQL says (`first_name`)."""
    value: str
    """The tenant's value: never shown to another tenant."""


@dataclass(frozen=True)
class Template:
    """An example with its tenant's literals as slots."""

    question: str
    sql: str
    slots: tuple[Slot, ...]
    shareable: bool
    """Nothing of the tenant's own is left in the question or the SQL."""


class NotParsed(ValueError):
    """The SQL could not be read, so nothing of it can be shown to another tenant."""


def template_of(question: str, sql: str, catalog: Catalog, vocabulary: Vocabulary) -> Template:
    """`question` and `sql` with the tenant's literals replaced by slots (see the module)."""
    try:
        tree = sqlglot.parse_one(sql, read="postgres")
    except sqlglot.errors.ParseError as exc:
        raise NotParsed(str(exc)) from None
    listed = {fold(v) for t in catalog.tables.values() for c in t.columns for v in c.meta.values}
    said_numbers = {_number(n) for n in NUMBER.findall(question)}
    said_years = set(YEAR.findall(question))
    slots: dict[tuple[SlotKind, str], Slot] = {}
    names: dict[str, int] = {}
    for literal in list(tree.find_all(exp.Literal)):
        text = literal.this
        if literal.is_string:
            core = text.strip("%")
            date = DATE.match(core)
            if (
                fold(core) in listed
                or INTERVAL.match(core)
                or isinstance(literal.parent, exp.Interval)
                or (date and _in_said_period(core, said_years))
                or not core.strip()
            ):
                continue
            kind: SlotKind = "text"
        column = _compared_column(literal)
        if not literal.is_string:
            if column is None or _number(text) in said_numbers or text in STRUCTURAL_NUMBERS:
                continue  # arithmetic, rounding, a limit; or the question's own number
            kind = "number"
        key = (kind, fold(text.strip("%")))
        slot = slots.get(key)
        if slot is None:
            base = column or ("value" if kind == "text" else "number")
            names[base] = names.get(base, 0) + 1
            name = base if names[base] == 1 else f"{base}_{names[base]}"
            slot = slots[key] = Slot(name, kind, column, text.strip("%"))
        placeholder = text.replace(slot.value, "{" + slot.name + "}")
        literal.replace(
            exp.Literal.string(placeholder) if kind == "text" else exp.var("{" + slot.name + "}")
        )
    shown = question
    for slot in slots.values():
        shown = _replace_words(shown, slot.value, "{" + slot.name + "}")
    leftover = [s.text for s in value_spans(SLOT.sub(" ", shown), vocabulary) if s.text.strip()]
    return Template(
        question=shown,
        sql=tree.sql(dialect="postgres"),
        slots=tuple(slots.values()),
        shareable=not leftover and not _values_left(shown, slots.values()),
    )


def filled(template_sql: str, values: dict[str, str]) -> str:
    """The template's SQL with each slot's value (quotes doubled inside string literals)."""

    def value(match: re.Match[str]) -> str:
        return values[match.group(1)].replace("'", "''")

    return SLOT.sub(value, template_sql)


def _in_said_period(date: str, said_years: set[str]) -> bool:
    """A date in a year the question writes, or the first day of the year after one."""
    year = date[:4]
    return year in said_years or (date[5:10] == "01-01" and str(int(year) - 1) in said_years)


def _values_left(shown: str, slots: Iterable[Slot]) -> bool:
    """A slot's value still written in the question (a form the replacement missed)."""
    folded = fold(shown)
    return any(s.kind == "text" and fold(s.value) in folded for s in slots)


def _compared_column(literal: exp.Literal) -> str | None:
    """The column a literal is compared with (`=`, `<>`, `IN`, `LIKE`, …), if any."""
    node = literal.parent
    while isinstance(node, exp.Cast | exp.Paren | exp.Tuple):
        node = node.parent
    if isinstance(node, exp.In):
        column = node.this
    elif isinstance(node, exp.Binary):
        column = node.left if node.right is literal or literal in node.right.walk() else node.right
    else:
        return None
    return column.name if isinstance(column, exp.Column) else None


def _replace_words(text: str, value: str, by: str) -> str:
    """`text` with `value` replaced where it is written as whole words, ignoring case and
    accents; `text` itself when it is not."""
    folded, target = fold(text), fold(value)
    if not target or len(folded) != len(text):
        return text
    found = re.search(rf"(?<!\w){re.escape(target)}(?!\w)", folded)
    if found is None:
        return text
    return text[: found.start()] + by + _replace_words(text[found.end() :], value, by)


def _number(text: str) -> str:
    """A number as written, compared without thousands separators or trailing zeros."""
    cleaned = text.replace(",", ".")
    return cleaned.rstrip("0").rstrip(".") if "." in cleaned else cleaned
