"""Which date places a question's rows in time: its metric's; a date the question names; the
one whose verb the question or a chosen state uses ("tarefas concluídas" → the conclusion
date); the date a state's own glossary metric places it by; else the rows' first date, or
that of a row they refer to.
"""

from __future__ import annotations

import re

from orquestra.ddl_catalog.model import Catalog, Column, Table, per_catalog
from orquestra.ddl_catalog.text import fold, words
from orquestra.offline import lang
from orquestra.offline.intent import Intent
from orquestra.offline.joins import Joins, join_path
from orquestra.offline.lang.morphology import LENGTHS, NEGATING_PREFIXES, REGULAR_PAST_ENDINGS
from orquestra.offline.lexicon import (
    DATE_TYPES,
    EVENT_VERBS,
    FINITE_PAST,
    NEGATIONS,
    date_column,
    shares_root,
    spelling,
)
from orquestra.offline.periods import either
from orquestra.offline.question import Question


def rows_date(intent: Intent, catalog: Catalog, joins: Joins, base: str) -> str | None:
    """The qualified column that places the base's rows in time: its own, else the date of
    a row it refers to (an order's items are placed by their order's date)."""
    stated = _state_dated(intent, catalog)
    if stated is not None:  # "tarefas devolvidas no ano passado": when they were returned
        return f"{joins.alias(stated[0])}.{stated[1]}"
    acting = _rows_in_a_state_of_theirs(intent, catalog, base)
    if acting is not None:  # "donos que faltaram em maio": when they missed, not born
        name = time_column(intent, catalog, acting)
        if name is not None:
            return f"{joins.alias(acting)}.{name}"
    name = time_column(intent, catalog, base)
    if name is not None and not _date_said(intent, catalog, base, name):
        acting = _acting_rows(intent, catalog, joins, base)
        if acting is not None:  # "each seller's customers in 1998": when they sold, not born
            return rows_date(intent, catalog, joins, acting)
    parts = date_parts(catalog.table(base), joins.alias(base))
    if parts is not None and (name is None or not _date_said(intent, catalog, base, name)):
        return parts  # the calendar date the table states, not a timestamp's in some zone
    if name is not None:
        return f"{joins.alias(base)}.{name}"
    table = catalog.table(base)
    for join in table.meta.joins:
        if set(join.on) == {table.tenant_column}:
            continue
        referred = date_column(catalog.table(join.to))
        if referred is not None:
            return f"{joins.alias(join.to)}.{referred.name}"
    return None


INTEGER_TYPES = ("int", "smallint", "bigint")
"""PostgreSQL's integer types, as their names start."""
DATE_PARTS = ("year_noun", "month_noun", "day_noun")
"""The words for a year, a month and a day: the names of the columns of a date kept in parts."""


def date_parts(table: Table, alias: str) -> str | None:
    """The calendar date a table keeps in a year, a month and a day column (integers named by
    the languages' words for them): `make_date` of the three. None when one is missing."""
    found = []
    for concept in DATE_PARTS:
        said = lang.word_set(concept)
        named = [
            c.name for c in table.columns if c.name in said and c.type_sql.startswith(INTEGER_TYPES)
        ]
        if not named:
            return None
        found.append(f"{alias}.{named[0]}")
    return f"make_date({', '.join(found)})"


@per_catalog
def _tables_words(catalog: Catalog) -> frozenset[str]:
    """The words the catalog's tables are named with, one and many ("shipper", "shippers"):
    the name of a thing, not a verb saying when something happened."""
    named = {w for t in catalog.tables for w in words(t.replace("_", " "))}
    return frozenset(named | {w.removesuffix("s") for w in named})


def _date_said(intent: Intent, catalog: Catalog, base: str, name: str) -> bool:
    """The date column `name` is the one the question or its metric asks by: named, the
    metric's own, or a verb's (not merely the table's first)."""
    first = date_column(catalog.table(base))
    asked = {intent.time.date_column, _metric_date(intent)}
    return (
        name in asked
        or (base, name) in intent.subject.columns
        or first is None
        or name != first.name
    )


def _rows_in_a_state_of_theirs(intent: Intent, catalog: Catalog, base: str) -> str | None:
    """The dated rows that refer to the base's and whose state the question names ("clientes
    com pedidos cancelados em maio"): the period is when those happened. None when the base's
    own date is asked, or no such table is dated."""
    if intent.measures.metric is not None or intent.time.date_column:
        return None
    table = catalog.table(base)
    own = {c.name for c in table.columns if c.type_sql.startswith(DATE_TYPES)}
    if any(t == base and c in own for t, c in intent.subject.columns):
        return None
    for other, _column in intent.where.filters:
        if other == base:
            continue
        refers = any(j.to == base for j in catalog.table(other).meta.joins)
        dated = any(c.type_sql.startswith(DATE_TYPES) for c in catalog.table(other).columns)
        if refers and dated:
            return other
    return None


def _acting_rows(intent: Intent, catalog: Catalog, joins: Joins, base: str) -> str | None:
    """The dated rows, on the way from the base's to another table the question names, that
    refer to the base's ("how many customers did each employee sell to in 1998": the orders
    between them). When the base's own date is not said, a period is when those happened: the
    base's rows are what is counted or grouped, the others are what was done."""
    for named in intent.subject.tables:
        path = join_path(joins.graph, {base}, named) if named != base else None
        for _left, right, _pairs in path or []:
            table = catalog.table(right)
            refers = any(j.to == base for j in table.meta.joins)
            if refers and any(c.type_sql.startswith(DATE_TYPES) for c in table.columns):
                return right
    return None


def _state_dated(intent: Intent, catalog: Catalog) -> tuple[str, str] | None:
    """A state the question names that is exactly a glossary metric's condition ("status =
    'X'") is placed in time as that metric places it, on the table of the state."""
    if intent.measures.metric is not None:
        return None
    for term in catalog.glossary:
        rule = term.metric
        if rule is None or not rule.date_column:
            continue
        found = rule.shape.state
        if found and intent.where.filters.get((rule.table, found[0])) == [found[1]]:
            return rule.table, rule.date_column
    return None


UNDONE = re.compile(
    rf"^(?:{'|'.join(map(re.escape, NEGATING_PREFIXES))})\w{{3,}}"
    rf"(?:{'|'.join(map(re.escape, REGULAR_PAST_ENDINGS))})$"
)
"""A participle negated by a prefix ("unsigned"; "unpaid" is "un" + "paid")."""


def time_column(intent: Intent, catalog: Catalog, base: str) -> str | None:
    """The column that places the question's rows in time: the metric's own; a date column
    the question names; the one whose verb the question or a chosen state uses ("tarefas
    concluídas" → `data_conclusao`, "cadastramos" → `cadastrado_em`); else the first."""
    if _metric_date(intent):
        return _metric_date(intent)
    implied = intent.measures.implied[0].metric if len(intent.measures.implied) == 1 else None
    if implied is not None and implied.table == base and implied.date_column:
        return implied.date_column  # "total billed to plan X": placed as revenue is
    if intent.time.date_column and intent.time.date_column in catalog.table(base).column_names:
        return intent.time.date_column
    table = catalog.table(base)
    # a date said not to have happened ("never reviewed") places no row in time
    dated = [
        c
        for c in table.columns
        if c.type_sql.startswith(DATE_TYPES) and (base, c.name) not in intent.where.unset
    ]
    named = [c for t, c in intent.subject.columns if t == base and c in {d.name for d in dated}]
    if named:
        return named[0]
    states = [
        word
        for (owner, _column), values in intent.where.filters.items()
        if owner == base
        for value in values
        for word in words(value.replace("_", " "))
    ]
    # a verb said not to have happened ("unsigned", "não assinados") names no date to place
    # the rows by: they have none
    question = words(intent.question)
    things = _tables_words(catalog)
    said = [
        *states,
        *(
            w
            for i, w in enumerate(question)
            if not (i and question[i - 1] in NEGATIONS)
            and not UNDONE.match(w)
            and w not in things  # "which shipper": a table's name, no verb of its date
        ),
    ]
    # "quantas tarefas chegaram", "eu fiz": the event an everyday verb names, spelled as the
    # date is (not when a state of the rows is said: "fizeram falta" is the state's date)
    stated = any(owner == base for owner, _column in intent.where.filters)
    said_words = words(intent.question)
    events = (
        []
        if stated
        else [
            EVENT_VERBS[w]
            for i, w in enumerate(said_words)
            if w in EVENT_VERBS and not (i and said_words[i - 1] in NEGATIONS)  # not "not paid"
        ]
    )
    # "how many reports did she sign": an English verb's past form spells the date ("signed at"),
    # as a whole word
    pasts = (
        []
        if stated
        else [
            f"{w}{ending}"
            for w in words(intent.question)
            if len(w) >= 4
            for ending in REGULAR_PAST_ENDINGS
        ]
    )
    spelled = {column.name: spelling(column) for column in dated}
    verb_dated = [
        column
        for column in dated
        if any(shares_root(word, spelled[column.name]) for word in said)
        or any(e in spelled[column.name] or shares_root(e, spelled[column.name]) for e in events)
        or any(p in spelled[column.name] for p in pasts)
    ]
    # of the dates a verb names, the one that records it happening (it may be empty)
    verb_dated.sort(key=lambda column: column.not_null)
    if verb_dated:
        return verb_dated[0].name
    if intent.ordering.recency:  # "a tarefa concluída mais recentemente": by when it was done
        state_dated = [c for c in dated if any(_spelled_alike(w, c) for w in states)]
        state_dated.sort(key=lambda column: column.not_null)  # the one that records it happening
        if state_dated:
            return state_dated[0].name
    if NEW.search(fold(intent.question)):  # "clientes novos em junho": registered then
        created = [c for c in dated if _records_creation(c)]
        if created:
            return created[0].name
    return dated[0].name if dated else None


PLANNED = lang.words("planning_roots")
"""Starts of the verbs of planning: what was planned may lie after today."""
PAST_FORMS = lang.word_set("irregular_pasts")
"""Pasts that do not end in a past ending ("left", "paid")."""


def said_in_the_past(question: str) -> bool:
    """A verb in the past ("saiu", "chegaram", "pagou", "shipped", "left"): what is asked
    happened already."""
    said = words(question)
    if any(w.startswith(PLANNED) for w in said):
        return False  # "a última tarefa que agendou": a booking may be for later
    for word in said:
        if word in PAST_FORMS:
            return True
        if len(word) >= 4 and word.endswith(FINITE_PAST):  # "saiu", "chegaram"
            return True
        if len(word) >= 5 and word.endswith(REGULAR_PAST_ENDINGS):  # "shipped", "arrived"
            return True
    return False


SAME_START = LENGTHS.shared_prefix
"""Letters a state's word and a date column's word share when they name one event
("entregue", "data_entrega"): irregular participles have no verb ending to strip."""


def _spelled_alike(word: str, column: Column) -> bool:
    spelled = spelling(column)
    return len(word) >= SAME_START and any(w[:SAME_START] == word[:SAME_START] for w in spelled)


NEW = re.compile(rf"\b({either('new_words')})\b")
CREATION_ROOTS = lang.words("creation_roots")
"""How a date column that records a row's creation is spelled, in either language."""


def _records_creation(column: Column) -> bool:
    said = spelling(column)
    return any(w.startswith(CREATION_ROOTS) for w in said)


def _metric_date(intent: Intent) -> str | None:
    metric = intent.measures.metric.metric if intent.measures.metric else None
    return metric.date_column if metric else None


def undated_kinds_in_time(q: Question, intent: Intent) -> None:
    """ "quantos equipamentos do tipo X usamos em maio": rows that have no date of their own
    nor refer to a dated row (a kind, a catalogue entry), counted or listed in a period, are
    the rows that refer to them and have a date, when exactly one table does; otherwise the
    period would be silently dropped."""
    catalog = q.catalog
    if (
        not intent.time.periods
        or intent.measures.metric
        or intent.measures.measure
        or intent.subject.entity
    ):
        return
    named = [*intent.subject.tables, *(t for t, _c in intent.where.filters)]
    if not named:
        return
    first = catalog.table(named[0])
    if date_column(first) is not None:
        return
    if any(date_column(catalog.table(j.to)) for j in first.meta.joins if j.to != first.name):
        return  # placed by the row it refers to (`rows_date`)
    referring = [
        table.name
        for table in catalog.tables.values()
        if table.name != first.name
        and any(j.to == first.name for j in table.meta.joins)
        and date_column(table) is not None
    ]
    if len(referring) == 1:
        intent.subject.tables = [
            referring[0],
            *(t for t in intent.subject.tables if t != referring[0]),
        ]
