"""What the question names that its SQL does not use: then the SQL answers something else.

A reading may recognise a table, a column, a period or a number and still build a query that
leaves it out ("quantas unidades … de cada categoria em 1998" counted categories, with no
year; "tracks longer than 10 minutes" counted every track). The query is checked against
what was recognised: the tables and columns it names are read (unless a row named or a
metric decides the rows), every period said places its rows, every number said is in it, a
percentage asked is a ratio, and a comparison said ("below", "more than") compares.
What it leaves out is said instead of answering (`sql.build_sql` raises `LeftOut`).

>>> from orquestra.offline.intent import Intent
>>> from orquestra.ddl_catalog.model import Catalog
>>> said = "tracks longer than 10 minutes".split()
>>> nothing = Catalog(systems=(), tables={})
>>> left_out(Intent(" ".join(said)), "SELECT count(*) FROM track AS t", said, nothing)
['10']
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import sqlglot
from sqlglot import expressions as exp
from sqlglot.errors import SqlglotError

from orquestra.ddl_catalog.model import Catalog, Table
from orquestra.ddl_catalog.text import fold, words
from orquestra.offline.intent import Intent
from orquestra.offline.joins import Unmappable
from orquestra.offline.lang import alternation
from orquestra.offline.lexicon import is_measure
from orquestra.offline.unread import described_words

NUMBER = re.compile(r"(?<![\w.,/:])\d+(?:[.,]\d+)?(?![\w/:])")
"""A number said on its own (not part of a date, a code or a word)."""
PERCENT = re.compile(rf"%|\b{alternation('percent')}\b")
"""Words asking a percentage ("what %", "qual o percentual")."""
RATIO = re.compile(r"/|\bavg\s*\(\s*CASE\b", re.IGNORECASE)
"""What computes a share: a division, or the average of a case (a rate)."""
COMPARED = re.compile(rf"\b{alternation('thresholds')}\b")
"""Words that compare a value with another ("below", "more than")."""
LIMIT = re.compile(r"\bLIMIT\s+\d+", re.IGNORECASE)
SUMMED = re.compile(r"\b(?:sum|avg)\s*\(", re.IGNORECASE)
"""What adds an amount up (or averages it)."""


class LeftOut(Unmappable):
    """The query leaves out what the question says (`words`, as said or as named)."""

    def __init__(self, words: list[str]) -> None:
        super().__init__(f"not used by the query: {', '.join(words)}")
        self.words = words


def _used(sql: str) -> exp.Expr | None:
    """`sql` parsed, or None when it does not parse (nothing is then said of it)."""
    try:
        return sqlglot.parse_one(sql, read="postgres")
    except SqlglotError:
        return None


def _dated(intent: Intent) -> set[str]:
    """The numbers a period said holds: its words', its years (in four digits and two: "maio
    26"), its months' and days'."""
    said = {w for p in intent.time.periods for w in words(p.phrase)}
    for period in intent.time.periods:
        for day in (period.start, period.end):
            said |= {str(day.year), f"{day.year % 100:02d}", str(day.month), str(day.day)}
            said |= {f"{day.month:02d}", f"{day.day:02d}"}
    return said


def _named_but_unread(intent: Intent, sql: str, catalog: Catalog) -> list[str]:
    """The tables the question names that the query does not read, when nothing else decides
    which rows are read: no row named by its number, no glossary metric (whose definition
    reads its own tables), no rows counted by another table's key; nor a table the
    descriptions of what is read name ("a data combinada com o cliente"); and the columns of
    the rows the query is about (its first table) it names and does not read, keys aside (a
    table's word often names another table's column too: only the base's are checked)."""
    if intent.subject.entity or intent.measures.metric or intent.subject.distinct_table:
        return []
    needed = intent.subject.tables or intent.subject.columns
    tree = _used(sql) if needed else None  # parsed only when there is a need
    if tree is None:
        return []
    tables = {t.name for t in tree.find_all(exp.Table)}
    # "a data combinada com o cliente": a table the descriptions of what is read name
    described = described_words(intent, catalog)
    missing = [
        t
        for t in dict.fromkeys(intent.subject.tables)
        if t not in tables and t in catalog.tables and not _said_in(catalog.table(t), described)
    ]
    # a column of the rows the query is about, named and not read ("com nome de empresa")
    first = tree.find(exp.From)
    base = first.find(exp.Table) if first else None
    columns = {c.name for c in tree.find_all(exp.Column)}
    for table, column in dict.fromkeys(intent.subject.columns):
        if base is None or table != base.name or column in columns:
            continue
        if not _is_key(catalog.table(table), column):
            missing.append(column.replace("_", " "))
    return missing


def _is_key(table: Table, column: str) -> bool:
    """`column` identifies rows (its table's or another's): a key, a join's, a code."""
    joined = {c for join in table.meta.joins for c in join.on}
    kind = table.column(column).meta.kind
    return column in table.primary_key or column in joined or kind == "identifier"


def _said_in(table: Table, described: set[str]) -> bool:
    """One of the words the table is called by is among `described`."""
    said = [table.name.replace("_", " "), *table.meta.synonyms.all()]
    return any(w in described for phrase in said for w in words(phrase))


def left_out(intent: Intent, sql: str, tokens: Sequence[str], catalog: Catalog) -> list[str]:
    """What the question says that `sql` does not use: a table or a column it names (see
    `_named_but_unread`), the numbers said outside its periods, a period (its year), a
    percentage (no ratio computed), a comparison's word."""
    missing = _named_but_unread(intent, sql, catalog)
    said = " ".join(tokens)
    # a row cap is no number said, unless it is the ranking's size ("top 5")
    literals = set(re.findall(r"\d+", LIMIT.sub("", sql))) | {str(intent.ordering.top)}
    missing += [
        n
        for n in dict.fromkeys(NUMBER.findall(said))
        if n not in _dated(intent) and n.replace(",", ".").split(".")[0] not in literals
    ]
    for period in intent.time.periods:  # placed in time: the period's year is in the query
        if not {str(period.start.year), str(period.end.year)} & literals:
            missing.append(period.phrase)
    share = PERCENT.search(fold(intent.question))
    if share and not RATIO.search(sql):  # a percentage asked, and no ratio computed
        missing.append(share.group(0))
    found = COMPARED.search(said)
    ranked = intent.ordering.top or intent.ordering.sorted  # "a maior": a ranking's word
    if found and not ranked and not re.search(r"[<>]", sql):
        missing.append(found.group(0))
    measures = intent.measures
    asked = measures.amount_asked and not (measures.metric or intent.subject.entity)
    if asked and not SUMMED.search(sql) and not _amount_listed(sql, catalog):
        missing.append(measures.amount_asked)  # "quanto gastaram": an amount, rows counted
    return missing


def _amount_listed(sql: str, catalog: Catalog) -> bool:
    """Whether the query lists an amount of each row it lists ("quais títulos vencem e de
    quanto são"), rather than counting them."""
    if re.search(r"\bcount\s*\(", sql, re.IGNORECASE):
        return False
    head = re.split(r"\bFROM\b", sql, maxsplit=1, flags=re.IGNORECASE)[0]
    shown = {column for _alias, column in re.findall(r"\b(\w+)\.(\w+)\b", head)}
    return any(
        name in shown and is_measure(table, name)
        for table in catalog.tables.values()
        for name in table.column_names
    )
