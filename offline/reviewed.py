"""A reviewed example's SQL, reused for a question that means the same, with its own values.

A reviewer approved a question and its SQL (`server.review`); its template
(`guards.example_literals`) has the approving tenant's names as slots and keeps the
numbers and years the question wrote. A new question is answered from it when:

- it names the same data (`graph.reviewed_examples.asks_the_same_data`; the SQL writer passes
  only those examples): every table the example's question names, no table the example
  neither names nor reads, and the same listed values;
- it is nearest to the example's template question by meaning (`hints.reviewed`, the
  embeddings' cosine of the question with its found names masked as the same slots), at
  least `SIMILAR`, and by `MARGIN` more than the next example of other SQL: two examples that
  both fit leave the question to the model's own reading;
- every name it writes that was found in the data fills a slot of the same column, and every
  slot is filled; every name it writes was found (one looked up and found nowhere is said
  so, not answered from an example);
- it writes as many numbers and years as the example's question, which replace them in
  order (a year also moves the period's dates: `'2023-01-01'`, and `'2024-01-01'` where the
  period ends).

Anything less and the offline model reads the question itself. The thresholds were set on
the demo's paraphrase sets (a paraphrase against its source among 112 questions), never on a
set the loop is measured with.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from orquestra.ddl_catalog.data_values import FoundValue
from orquestra.graph.reviewed_examples import ReviewedExample
from orquestra.guards.example_literals import NUMBER, SLOT, filled

SIMILAR = 0.86
MARGIN = 0.02
YEAR = re.compile(r"^(?:19|20)\d{2}$")
DATE_YEAR = re.compile(r"'((?:19|20)\d{2})(-\d{2}-\d{2}[^']*)'")


def reuse(
    candidates: Sequence[tuple[ReviewedExample, float]],
    question: str,
    found: Sequence[FoundValue],
    searched: Sequence[str],
) -> tuple[str, ReviewedExample] | None:
    """The SQL of the reviewed example `question` means, with its own values; None when no
    example is clearly the one (see the module)."""
    if not candidates:
        return None
    ranked = sorted(candidates, key=lambda pair: -pair[1])
    best, score = ranked[0]
    rival = next((s for e, s in ranked[1:] if e.template_sql != best.template_sql), None)
    if score < SIMILAR or (rival is not None and score - rival < MARGIN):
        return None
    found_names = {f.said.casefold() for f in found}
    if any(s.casefold() not in found_names for s in searched):
        return None  # a name found nowhere: said so by the model's own reading
    values = _slot_values(best, found)
    if values is None:
        return None
    sql = _with_numbers(filled(best.template_sql, values), best.template_question, question)
    return (sql, best) if sql is not None else None


def _slot_values(example: ReviewedExample, found: Sequence[FoundValue]) -> dict[str, str] | None:
    """Each slot's value from the names found in the question, by column; None unless every
    slot is filled and every found name fills one."""
    by_column: dict[str, list[str]] = {}
    for value in found:
        for column, text in value.parts:
            by_column.setdefault(column, []).append(text)
    values: dict[str, str] = {}
    for slot in example.slots:
        taken = by_column.get(slot.column or "", [])
        if slot.kind != "text" or not taken:
            return None
        values[slot.name] = taken.pop(0)
    if any(by_column.values()):
        return None  # a name the example has no place for: it asks something else
    return values


def _with_numbers(sql: str, example_question: str, question: str) -> str | None:
    """`sql` with the example question's numbers replaced by the new question's, in order
    (years in dates too); None when they do not pair up."""
    old = NUMBER.findall(SLOT.sub(" ", example_question))
    new = NUMBER.findall(question)
    pairs = list(zip(old, new, strict=False))
    if len(old) != len(new) or any(bool(YEAR.match(a)) != bool(YEAR.match(b)) for a, b in pairs):
        return None
    years = {int(a): int(b) for a, b in pairs if YEAR.match(a)}
    numbers = {a: b for a, b in pairs if not YEAR.match(a)}

    def date(match: re.Match[str]) -> str:
        year = int(match.group(1))
        if year in years:
            return f"'{years[year]}{match.group(2)}'"
        if year - 1 in years and match.group(2).startswith("-01-01"):
            return f"'{years[year - 1] + 1}{match.group(2)}'"
        return match.group(0)

    sql = DATE_YEAR.sub(date, sql)

    def number(match: re.Match[str]) -> str:
        text = match.group(0)
        if text.isdigit() and int(text) in years:
            return str(years[int(text)])
        return str(numbers.get(text, text))

    return _outside_strings(sql, number)


def _outside_strings(sql: str, replace: Callable[[re.Match[str]], str]) -> str:
    """`sql` with `replace` applied to the numbers outside its string literals."""
    parts = re.split(r"('(?:[^']|'')*')", sql)
    return "".join(part if part.startswith("'") else NUMBER.sub(replace, part) for part in parts)
