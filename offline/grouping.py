"""Groupings a question asks for: a time grain ("por mês", "monthly"), a column after
"por"/"by" ("por canal"), a column of the table named with it ("por nome da transportadora"),
and the first table named when a ranking has no group of its own ("top 5 clientes por
valor")."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from orquestra.ddl_catalog.model import Catalog
from orquestra.offline.intent import Group, Intent
from orquestra.offline.lang import mapping, word_set, words
from orquestra.offline.lang.morphology import PARTICIPLES
from orquestra.offline.lexicon import (
    FUNCTION_WORDS,
    Meaning,
    display_column,
    is_measure,
    is_numeric,
)
from orquestra.offline.question import Question

GROUP_MARKERS = words("group_markers")
STEPS = words("grain_steps")
ALONE_GRAINS = tuple(mapping("grain_adjectives"))
"""Grains said by an adjective, which group alone ("custo mensal", "monthly")."""
GRAINS = {**mapping("grains"), **mapping("grain_adjectives")}
"""A time grain's words, singular and plural ("meses com mais pedidos"), -> the grain."""
WEEKDAY = words("weekday")
WEEKDAY_WORDS = {w for phrase in WEEKDAY if " " not in phrase for w in (phrase, phrase + "s")}
"""The day of the week said in one word ("by weekday", "weekdays")."""
WEEKDAY_ENDS = {phrase.split()[-1] for phrase in WEEKDAY if " " in phrase}
"""The last word of the day of the week said in words ("dia da semana": "semana")."""


def weekday_spots(tokens: Sequence[str]) -> set[int]:
    """Where a phrase naming the day of the week starts ("dia da semana", "weekday")."""
    return {
        index
        for index in range(len(tokens))
        for phrase in WEEKDAY
        if " ".join(tokens[index : index + len(phrase.split())]) in (phrase, phrase + "s")
    }


def groups(q: Question, intent: Intent) -> None:
    tokens, matches, catalog = q.tokens, q.found, q.catalog
    starts = {start: meanings for start, _end, meanings in matches}
    weekdays = weekday_spots(tokens)
    for index, token in enumerate(tokens):
        after_marker = index > 0 and tokens[index - 1] in GROUP_MARKERS
        if index in weekdays:  # "por dia da semana", "by weekday"
            if after_marker or token in WEEKDAY_WORDS:
                intent.groups.append(Group("", "", "weekday"))
            continue
        if weekdays and index - 2 in weekdays and token in WEEKDAY_ENDS:
            continue
        # "mês a mês", "month by month", "year over year": the grain said twice
        repeated = index > 1 and tokens[index - 1] in STEPS and tokens[index - 2] == token
        if token in GRAINS and (after_marker or repeated or token in ALONE_GRAINS):
            intent.groups.append(Group("", "", GRAINS[token]))
        elif token in BREAKDOWN and (group := _broken_down(index, tokens, starts, catalog)):
            if group not in intent.groups:  # "breakdown of task statuses": by the status
                intent.groups.append(group)
        elif token in GROUP_MARKERS and (named := _named_after(index, tokens, starts)):
            # "por mês" is a time grain, even where a column's synonym is "mês" too
            meanings = starts[named]
            ranked = _ranked_by_their_rows(index, meanings, matches, catalog)
            if ranked is not None:  # "ranking dos donos por tarefas": each owner's tasks
                group, counted = ranked
                intent.groups.append(group)
                if counted not in intent.subject.tables:  # the rows counted come first
                    intent.subject.tables.insert(0, counted)
                continue
            group = _owned_group(meanings, named, matches, tokens, catalog)
            referred = _referred_group(group, catalog) if group else None
            if group and referred:  # "each technician scan": the scans' technician, by name
                if group.table not in intent.subject.tables:
                    intent.subject.tables.insert(0, group.table)
                group = referred
            group = group or _group_of(meanings, catalog)
            if group and meanings[0].kind != "metric" and group not in intent.groups:
                intent.groups.append(group)


def _ranked_by_their_rows(
    index: int,
    meanings: list[Meaning],
    matches: Sequence[tuple[int, int, list[Meaning]]],
    catalog: Catalog,
) -> tuple[Group, str] | None:
    """ "ranking dos donos por tarefas feitas", "owners by tasks": the table named just
    before "por"/"by" is ranked by the rows of the table named after it that refer to it
    (not those rows grouped by it: "tarefas por dono" groups the tasks)."""
    before: list[Meaning] = next((found for _s, end, found in matches if end == index), [])
    subjects = [m.table for m in before if m.kind == "table"]
    counted = [m.table for m in meanings if m.kind == "table"]
    if len(subjects) != 1 or not counted or subjects[0] in counted:
        return None
    subject, rows = subjects[0], catalog.table(counted[0])
    refers = any(j.to == subject and len(j.on) == 1 for j in rows.meta.joins)
    back = any(j.to == rows.name for j in catalog.table(subject).meta.joins)
    if not refers or back:
        return None
    return Group(subject, display_column(catalog.table(subject)).name), rows.name


BREAKDOWN = word_set("breakdown")
"""Words that ask for a column's values side by side ("distribuição dos status")."""


def _broken_down(
    index: int, tokens: Sequence[str], starts: dict[int, list[Meaning]], catalog: Catalog
) -> Group | None:
    """The column named within three words after a breakdown word, not an amount ("by"
    right after it is the grouping's own marker)."""
    if index + 1 < len(tokens) and tokens[index + 1] in GROUP_MARKERS:
        return None
    for position in range(index + 1, min(index + 4, len(tokens))):
        found = starts.get(position, [])
        if any(m.kind == "table" for m in found):
            continue  # "distribuição das tarefas por status": the rows, not a column of them
        columns = [
            m
            for m in found
            if m.kind == "column" and not is_numeric(catalog.table(m.table).column(m.column))
        ]
        if columns:
            return Group(columns[0].table, columns[0].column)
    return None


SKIPPED = 2
"""Words a grouping may have between its marker and the catalog's word ("by type of
equipment", "per reviewed author"): at most two (`_passed_over`)."""


def _named_after(index: int, tokens: Sequence[str], starts: dict[int, list[Meaning]]) -> int | None:
    """Where the catalog's word after the grouping marker at `index` starts, past at most
    `SKIPPED` words it does not know; None when a time grain or a number comes first."""
    for position in range(index + 1, min(index + 2 + SKIPPED, len(tokens))):
        if tokens[position] in GRAINS or tokens[position].isdigit():
            return None
        if position in starts and not (
            tokens[position] in KINDS and _kind_of(position, tokens, starts)
        ):
            return position  # "por tipo de prioridade": the kind's column, not a "tipo"
        kind = position > index + 1 and tokens[position - 1] in KINDS
        if not (_passed_over(tokens[position]) or (kind and tokens[position] in FUNCTION_WORDS)):
            return None  # "por qual plano", "by the owner 7", "by data_x": no grouping
    return None


KINDS = word_set("kinds")


def _kind_of(position: int, tokens: Sequence[str], starts: dict[int, list[Meaning]]) -> bool:
    """ "tipo de prioridade": a kind word is followed by what it is a kind of."""
    after = position + 1
    while after < len(tokens) and tokens[after] in FUNCTION_WORDS:
        after += 1
    return after > position + 1 and after in starts


def _passed_over(token: str) -> bool:
    """A word between a grouping marker and what it groups by: a kind ("type of
    equipment", with its "of") or a participle ("reviewed author"); an article is not
    ("by the owner 7" names one row)."""
    return token in KINDS or (len(token) > 4 and token.endswith(PARTICIPLES))


COLUMN_OF_TABLE = word_set("column_of_table_links")
"""Words between a column and the table that has it ("nome da transportadora")."""
TABLE_FIRST = word_set("table_first_markers")
"""Markers after which the table comes before its column ("per product category")."""


def _owned_group(
    meanings: list[Meaning],
    start: int,
    matches: Sequence[tuple[int, int, list[Meaning]]],
    tokens: Sequence[str],
    catalog: Catalog,
) -> Group | None:
    """ "por nome da transportadora", "by carrier name": a column followed (or, in English,
    preceded) by the table that has it is that table's column."""
    end = next(e for s, e, _m in matches if s == start)
    while end < len(tokens) and tokens[end] in COLUMN_OF_TABLE:
        end += 1
    after: list[Meaning] = next((m for s, _e, m in matches if s == end), [])
    for table in (m.table for m in after if m.kind == "table"):
        for meaning in meanings:
            if meaning.kind == "column" and meaning.column in catalog.table(table).column_names:
                return Group(table, meaning.column)
    # "per product category": in English, the table named first, then its column
    table_first = start > 0 and tokens[start - 1] in TABLE_FIRST
    for table in (m.table for m in meanings if m.kind == "table" and table_first):
        for meaning in after:
            if meaning.kind == "column" and meaning.table == table:
                return Group(table, meaning.column)
    return None


def _referred_group(group: Group, catalog: Catalog) -> Group | None:
    """A group by a column that refers to one row of another table (alone) is by that row's
    name; the rows grouped stay those of the column's own table."""
    joins = catalog.table(group.table).meta.joins
    to = next((j.to for j in joins if list(j.on) == [group.column] and j.to != group.table), None)
    return Group(to, display_column(catalog.table(to)).name) if to else None


def _group_of(meanings: list[Meaning], catalog: Catalog) -> Group | None:
    things = any(m.kind == "table" for m in meanings)
    for meaning in meanings:
        column = catalog.table(meaning.table).column(meaning.column) if meaning.column else None
        if meaning.kind != "column" or column is None:
            continue
        if not is_numeric(column):
            return Group(meaning.table, meaning.column)
        # "por série": a key's part; not when the word names a table too ("por item")
        if not things and _part_of_a_code(catalog, meaning.table, column.name):
            return Group(meaning.table, meaning.column)
    for meaning in meanings:  # "por revisor": a reference to another table's row, by its name
        if meaning.kind != "column" or not meaning.column:
            continue
        joins = catalog.table(meaning.table).meta.joins
        to = next((j.to for j in joins if meaning.column in j.on and j.to != meaning.table), None)
        if to is not None:
            return Group(to, display_column(catalog.table(to)).name)
    for meaning in meanings:
        if meaning.kind == "table":
            return Group(meaning.table, display_column(catalog.table(meaning.table)).name)
    return None


def _part_of_a_code(catalog: Catalog, table: str, name: str) -> bool:
    """ "por série": a number that is part of a key, not an amount and not a reference to
    one other row on its own (those group by the referred row's name, "por dono")."""
    found = catalog.table(table)
    joins = [j.on for j in found.meta.joins if j.to != table]
    alone = any(name in on and len(on) == 1 for on in joins)
    keys = [list(found.primary_key), *joins]
    part = any(name in key and len(key) > 1 for key in keys)
    return part and not alone and not is_measure(found, name)


def ranked_by_count(q: Question, intent: Intent) -> None:
    """ "top 3 tipos de tarefa por volume", "the 5 busiest kinds this year": a ranking of
    rows nothing measures, whose rows other rows in play refer to, counts those rows per
    ranked row (its name shown), not the ranked rows' own columns."""
    catalog = q.catalog
    if not intent.ordering.top or intent.groups or intent.subject.entity or intent.ordering.recency:
        return
    if intent.measures.metric or intent.measures.measure or not intent.subject.tables:
        return
    named = intent.subject.tables[0]
    in_play = [t for t, _c in intent.where.filters if t != named] + intent.subject.tables[1:]
    refer = [
        t for t in dict.fromkeys(in_play) if any(j.to == named for j in catalog.table(t).meta.joins)
    ]
    if len(refer) != 1:
        return
    intent.groups.append(Group(named, display_column(catalog.table(named)).name))
    intent.measures.aggregate = "count"
    intent.subject.tables = [refer[0], *(t for t in intent.subject.tables if t != refer[0])]


def ranked_group(q: Question, intent: Intent) -> None:
    """ "top 5 clientes por valor": rank the first table named by the measure; so too
    "projetos por custo", "owners by spend" (a table, then "por"/"by" and a metric): each
    row of the table with its figure, the whole list."""
    tokens, matches, catalog = q.tokens, q.matches, q.catalog
    if intent.groups or intent.subject.entity or intent.ordering.recency:
        return  # "a última tarefa": a row in date order, not a ranking
    if not (intent.measures.metric or intent.measures.measure):
        return
    # ("quantos donos por custo" asks a count, not each owner's cost)
    by_metric = intent.measures.aggregate != "count" and _ranked_by_metric(tokens, matches)
    if not (intent.ordering.top or by_metric):
        return
    for _start, _end, meanings in matches:
        table = next((m.table for m in meanings if m.kind == "table"), None)
        if table:
            intent.groups.append(Group(table, display_column(catalog.table(table)).name))
            return


RANKED_BY = word_set("ranked_by")
"""The marker between a table and the measure it is ranked by ("projetos por custo")."""


def _ranked_by_metric(
    tokens: Sequence[str], matches: Sequence[tuple[int, int, list[Meaning]]]
) -> bool:
    """A table named, then "por"/"by", then a metric ("projetos por custo"); not "per"
    ("frete por kg" is a metric per unit, "por" before a unit is no table's)."""
    starts = {start: meanings for start, _end, meanings in matches}
    for _start, end, meanings in matches:
        if not any(m.kind == "table" for m in meanings):
            continue
        if end < len(tokens) and tokens[end] in RANKED_BY:
            after = starts.get(end + 1, [])
            return any(m.kind == "metric" for m in after)
        return False  # only the first table named
    return False


def groups_of_other_rows(q: Question, intent: Intent) -> None:
    """ "tarefas canceladas por motivo": a column after "por"/"by" found only on a table
    whose rows refer to the rows asked (many of them per row, none for most) does not
    group those rows. The same word's column on the rows asked or on a row they refer to
    groups instead; else the word is one the rows asked do not have (`intent.elsewhere`),
    which is said rather than answered with another table's column."""
    tokens, matches, catalog = q.tokens, q.matches, q.catalog
    base = _rows_asked(intent)
    if base is None:
        return
    starts = {start: meanings for start, _end, meanings in matches}
    for index, token in enumerate(tokens[:-1]):
        meanings = starts.get(index + 1, []) if token in GROUP_MARKERS else []
        for group in [g for g in intent.groups if g.grain is None and g.table != base]:
            said = [m for m in meanings if m.kind == "column"]
            if (group.table, group.column) not in {(m.table, m.column) for m in said}:
                continue
            if group.table in intent.subject.tables or not _refers_to(catalog, group.table, base):
                continue
            reached = {base, *(j.to for j in catalog.table(base).meta.joins)}
            instead = [m for m in said if m.table in reached and m.column]
            position = intent.groups.index(group)
            if instead:
                intent.groups[position] = Group(instead[0].table, instead[0].column)
            else:
                del intent.groups[position]
                intent.unread.elsewhere.append((tokens[index + 1], group.table, group.column))


def _rows_asked(intent: Intent) -> str | None:
    """The table whose rows the question counts or measures."""
    if intent.measures.metric and intent.measures.metric.metric:
        return intent.measures.metric.metric.table
    if intent.measures.measure:
        return intent.measures.measure[0]
    return intent.subject.tables[0] if intent.subject.tables else None


def _refers_to(catalog: Catalog, table: str, other: str) -> bool:
    """`table`'s rows point at `other`'s rows (a join from it to `other`)."""
    return any(j.to == other for j in catalog.table(table).meta.joins)


AGAINST = words("versus")
COMPARED = (*words("and_words"), *AGAINST)
PLACES = words("value_prepositions")
"""The words before each value of a list that says the values are apart ("no X e no Y",
"pelo X e pelo Y", "for X and for Y")."""
TOGETHER = words("together")
"""Words that ask one measure of the values together ("EDI e portal juntos", "ao todo",
"no total", "in total", "qual o total do X e do Y")."""


def values_compared(q: Question, intent: Intent) -> None:
    """ "peso médio no rodoviário e no aéreo", "receita A vs B": a measure of two values of
    one column, each said with its own preposition or set against the other, is a measure
    of each — grouped by that column, its filter kept. A list said once ("pedidos A e B")
    stays one measure of both. ("por tarefa" is no grouping: a measure per row.)"""
    tokens, matches, catalog = q.tokens, q.matches, q.catalog
    per_row = [
        g for g in intent.groups if g.table and g.column in catalog.table(g.table).primary_key
    ]
    if (
        intent.groups != per_row
        or intent.subject.entity
        or intent.measures.also
        or intent.measures.apart
    ):
        return
    if set(tokens) & set(TOGETHER):
        return
    if not (intent.measures.aggregate or intent.measures.metric or intent.measures.measure):
        return
    if intent.measures.aggregate in ("sum", "total") and not (
        intent.measures.measure or intent.measures.metric
    ):
        return  # "soma do X e do Y": one amount, read elsewhere
    for (table, column), values in intent.where.filters.items():
        if len(values) < 2:
            continue
        spans = sorted(
            (start, end)
            for start, end, meanings in matches
            if any(
                m.kind == "value" and (m.table, m.column) == (table, column) and m.value in values
                for m in meanings
            )
        )
        if len(spans) < 2:
            continue
        first = tokens[max(0, spans[0][0] - 1)] if spans[0][0] else ""
        apart = True
        for (_s, end), (start, _e) in pairwise(spans):
            between = tokens[end:start]
            against = bool(between) and between[0] in AGAINST
            repeated = first in PLACES and between[1:] == (first,) and between[0] in COMPARED
            apart = apart and (against or repeated)
        if apart:
            intent.groups.append(Group(table, column))
            return
