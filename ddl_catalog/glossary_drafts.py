"""The glossary `orquestra init` drafts from a profiled schema, for the owner to confirm.

A sum for every column profiling read as an amount (`total unit price`: `sum(unit_price)`,
placed in time by the table's first date column when it has one) and a count for every
table keyed by one column (`customer count`: `count(*)`), at most `MAX_DRAFTS`, in the
deployment's language (`ddl_catalog/lang/<code>.yaml`, concept `draft_terms`). Each is
written with `draft: true`: the loader reads and `catalog check` verifies it like any term,
and no stage uses it until its owner deletes that line — a definition guessed from a name
(is `unit_price` summed per line the revenue?) must not answer a question on its own.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import yaml

from orquestra.ddl_catalog.naming import name_words, vocabulary
from orquestra.ddl_catalog.profiling import SchemaProfile

__all__ = ["MAX_DRAFTS", "draft_terms", "drafts_text"]

MAX_DRAFTS = 40
"""Drafts written at most (sums first): enough to start from, few enough to review."""
PLAIN_NAME = re.compile(r"[a-z_][a-z0-9_]*")

HEADER = """\
# The terms below are DRAFTS `orquestra init` wrote from the schema: a sum of each column
# read as an amount, a count of each table keyed by one column. A draft (`draft: true`) is
# checked like any term but used by no stage: confirm each by deleting its `draft: true`
# line (and correcting what it says), or delete the term.
"""


def draft_terms(profile: SchemaProfile) -> list[dict[str, Any]]:
    """The draft terms for a profiled schema, sums of amounts first, then counts."""
    lang = profile.language
    sums = [
        (table, column)
        for (table, column), found in profile.columns.items()
        if found.kind == "amount"
    ]
    named = Counter(name_words(column, lang) for _, column in sums)
    terms = []
    for table, column in sums:
        what = name_words(column, lang)
        if named[what] > 1:  # the same column name in several tables: say whose
            what = f"{_table_words(table, profile)} {what}"
        terms.append(_term(profile, "sum", what, table, f"sum({_identifier(column)})", column))
    for table in profile.entities:
        terms.append(_term(profile, "count", _table_words(table, profile), table, "count(*)"))
    return terms[:MAX_DRAFTS]


def drafts_text(profile: SchemaProfile) -> str:
    """The drafts as glossary YAML under a comment saying what they are; empty if none."""
    terms = draft_terms(profile)
    if not terms:
        return ""
    body: str = yaml.safe_dump({"terms": terms}, sort_keys=False, allow_unicode=True, width=100)
    return HEADER + body


def _term(
    profile: SchemaProfile, kind: str, what: str, table: str, expression: str, column: str = ""
) -> dict[str, Any]:
    date_column = next(
        (c for (t, c), found in profile.columns.items() if t == table and found.kind == "date"),
        None,
    )
    fill = {"what": what, "table": table, "column": column, "date_column": date_column or ""}
    name = _said(profile.language, kind, fill)
    if len(set(name.split())) < len(name.split()):  # "total total": the column says it
        name = f"{_table_words(table, profile)} {what}"
    term: dict[str, Any] = {
        "term": name,
        "draft": True,
        "definition": _definition(profile.language, kind, fill),
    }
    if profile.language != "en":
        term["definition_en"] = _definition("en", kind, fill)
    term["tables"] = [table]
    metric = {"expression": expression, "table": table}
    if date_column:
        metric["date_column"] = date_column
    term["metric"] = metric
    return term


def _definition(lang: str, kind: str, fill: dict[str, str]) -> str:
    dated = _said(lang, "dated", fill) if fill["date_column"] else ""
    return _said(lang, f"{kind}_definition", {**fill, "dated": dated})


def _said(lang: str, template: str, fill: dict[str, str]) -> str:
    return vocabulary(lang).maps["draft_terms"][template].format(**fill)


def _table_words(table: str, profile: SchemaProfile) -> str:
    return profile.tables.get(table) or name_words(table, profile.language)


def _identifier(name: str) -> str:
    """A column as SQL names it: quoted unless plain lower case."""
    return name if PLAIN_NAME.fullmatch(name) else '"' + name.replace('"', '""') + '"'
