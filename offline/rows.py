"""SQL about one row the question names ("tarefa 12"): its columns, the rows tied to it,
the columns asked of it that another table holds, and its events (the tracking rule: the
latest event of its series by timestamp)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from orquestra.ddl_catalog.model import Catalog, JoinMeta, Table
from orquestra.ddl_catalog.text import fold, words
from orquestra.offline.dating import time_column
from orquestra.offline.intent import Intent
from orquestra.offline.joins import Joins, Unmappable, in_values, join_path
from orquestra.offline.lang import alternation, word_set
from orquestra.offline.lang import words as said_as
from orquestra.offline.lexicon import (
    DATE_TYPES,
    FUNCTION_WORDS,
    display_column,
    key_column,
    spelling,
)

CODE_AFFIXES = said_as("code_affixes")
WHEN = re.compile(rf"\b({alternation('when', 'which_dates')})\b")
"""The languages' "when" (of one row, or of the rows tied to it)."""
DATE_WORDS = {*said_as("date_words"), *said_as("when")}
"""Words any date column is spelled with: they name no one date."""
WHERE_WORDS = said_as("where")
"""The languages' "where": a question with one asks for the columns whose synonyms say it
(a city "onde está", "current location")."""
LOCATION_WORDS = said_as("location_words")
"""Words of a column that says where a row is ("localização atual"), besides "where"."""


def asked_elsewhere(intent: Intent, catalog: Catalog) -> list[tuple[str, str]]:
    """Columns asked of one row that only other tables have ("em que cidade" of a row with
    no city): none when the row's own table has one of the asked columns. A state asked
    ("status") is the state rule's, whichever tables have a column spelled so."""
    entity_table = intent.row[0]
    columns = [
        (t, c)
        for t, c in intent.subject.columns
        if not (intent.asked.wants_status and catalog.table(t).column(c).meta.values)
    ]
    if any(t == entity_table for t, _c in columns):
        return []
    # "quem é o dono da tarefa 7 e de que cidade ele é": the city of the row named
    named = [(t, c) for t, c in columns if t in intent.subject.tables and t != entity_table]
    return named or [(t, c) for t, c in columns if t != entity_table]


def joined_details(intent: Intent, catalog: Catalog, asked: list[tuple[str, str]]) -> str:
    """The row and the asked column of the nearest table that has it, joined."""
    entity_table, key, number = intent.row
    joins = Joins(catalog, entity_table)
    reachable = [
        (len(path), t, c)
        for t, c in asked
        if (path := join_path(joins.graph, {entity_table}, t)) is not None
    ]
    if not reachable:
        raise Unmappable(f"{entity_table} has none of the asked columns")
    nearest = min(length for length, _t, _c in reachable)
    chosen = [(t, c) for length, t, c in reachable if length == nearest]
    alias = joins.alias(entity_table)
    shown = [f"{alias}.{key}", *(f"{joins.alias(t)}.{c}" for t, c in chosen)]
    return (
        f"SELECT DISTINCT {', '.join(dict.fromkeys(shown))} FROM {joins.sql()} "
        f"WHERE {alias}.{key} = {number}"
    )


def referred_paths(catalog: Catalog, name: str) -> dict[str, list[tuple[str, JoinMeta]]]:
    """The rows one row refers to, directly or through its references (a bill's order, the
    order's customer): each table's shortest path of references from `name`. One row each:
    following references never multiplies the row. The tenant's own table is left out."""
    paths: dict[str, list[tuple[str, JoinMeta]]] = {name: []}
    queue = [name]
    while queue:
        current = catalog.table(queue.pop(0))
        for join in current.meta.joins:
            if join.to in paths or set(join.on) <= {current.tenant_column}:
                continue
            paths[join.to] = [*paths[current.name], (current.name, join)]
            queue.append(join.to)
    del paths[name]
    return paths


def reference_said(joins: Joins, catalog: Catalog, base: str, target: str, question: str) -> None:
    """ "qual médico tem a maior taxa de discordância" (of reviews, which name two people: the
    report's doctor and the reviewer): the rows grouped are reached through the reference
    the question calls by name, when exactly one of those the base reaches is said."""
    if target in joins.aliases:
        return
    text = f" {' '.join(words(question))} "
    references = [
        (name, join)
        for name in [base, *referred_paths(catalog, base)]
        for join in catalog.table(name).meta.joins
        if join.to == target and len(join.on) == 1
    ]
    if len(references) < 2:  # one way to the grouped rows: nothing to choose
        return
    said = []
    for name, join in references:
        ((local, remote),) = join.on.items()
        spelled = catalog.table(name).column(local).meta.synonyms.all()
        if any(p and f" {p} " in text for p in (" ".join(words(s)) for s in spelled)):
            said.append((name, local, remote))
    if len(said) == 1:
        name, local, remote = said[0]
        optional = not catalog.table(name).column(local).not_null
        joins.aliases[target] = joins.refer(joins.alias(name), [(local, remote)], target, optional)


def _refers(catalog: Catalog, table: str, column: str, target: str) -> bool:
    """`column` of `table` is a reference to a row of `target`."""
    return any(j.to == target and column in j.on for j in catalog.table(table).meta.joins)


def follow(
    steps: list[tuple[str, JoinMeta]], aliases: dict[str, str], joins: Joins, catalog: Catalog
) -> str:
    """Joins the references of a path from a joined row (`aliases` holds it), outer from the
    first that may be empty; the alias of the last row."""
    optional = False
    for source, join in steps:
        owner = catalog.table(source)
        optional = optional or any(not owner.column(c).not_null for c in join.on)
        aliases[join.to] = joins.refer(aliases[source], list(join.on.items()), join.to, optional)
    return aliases[steps[-1][1].to]


def across_references(intent: Intent, catalog: Catalog) -> str | None:
    """ "Task 12: which project, which owner?", "tarefa 7: qual projeto e que dono?":
    what is asked of one row and of the rows it refers to, in one row — the asked columns
    of each, and each named table by its name. None when a table asked is not one the row
    refers to (its items, its events: other readings)."""
    entity, key, number = intent.row
    paths = referred_paths(catalog, entity)
    related = [t for t in dict.fromkeys(intent.subject.tables) if t != entity]
    if not related or any(t not in paths for t in related):
        return None
    joins = Joins(catalog, entity)
    aliases = {entity: joins.alias(entity)}

    shown: dict[str, list[str]] = {}
    pointing: dict[str, list[tuple[int, str, str]]] = {}
    asked = intent.subject.columns
    for t, c in asked:
        referring = [r for r in related if _refers(catalog, t, c, r)] if t in paths else []
        for r in referring:  # "the technician of report 7": the exam's, not the report's
            pointing.setdefault(r, []).append((len(paths[t]), t, c))
        # ("tarefa 7: qual o valor?": its own value, not its project's too)
        own_head = any(o == entity and o_c.split("_")[0] == c.split("_")[0] for o, o_c in asked)
        if t == entity or t in related or (t in paths and not referring and not own_head):
            shown.setdefault(t, []).append(c)
    for r in related:  # "o nome e a cidade do cliente do pedido 7": those, not its code
        links = {c for join in catalog.table(r).meta.joins for c in join.on}
        if set(shown.get(r, [])) - links and entity in shown:
            shown[entity] = [c for c in shown[entity] if not _refers(catalog, entity, c, r)]
    for r, found in pointing.items():
        # the row's own reference to it, when asked, is the nearest; else the nearest said
        if not any(_refers(catalog, entity, c, r) for c in shown.get(entity, [])):
            _length, owner, column = min(found)
            shown.setdefault(owner, []).append(column)
    for t in related:  # a table named and none of its columns asked: which row, by its name
        target = catalog.table(t)
        source, last = paths[t][-1]
        via = [c for c in last.on if c != catalog.table(source).tenant_column]
        pointed = {c for owner, cs in shown.items() for c in cs if _refers(catalog, owner, c, t)}
        if t not in shown and not set(via) & set(shown.get(source, [])) and not pointed:
            key_name = key_column(target, catalog)
            named_by = [*([key_name.name] if key_name else []), display_column(target).name]
            shown[t] = list(dict.fromkeys(named_by))
    selects = [f"{aliases[entity]}.{key}"]
    for t in [entity, *paths]:
        if t not in shown:
            continue
        alias = aliases[t] if t in aliases else follow(paths[t], aliases, joins, catalog)
        columns = [c for c in dict.fromkeys(shown[t]) if f"{alias}.{c}" not in selects]
        selects += named(catalog.table(t), alias, columns, catalog, joins)
    return (
        f"SELECT {', '.join(dict.fromkeys(selects))} FROM {joins.sql()} "
        f"WHERE {aliases[entity]}.{key} = {number}"
    )


def related_rows(intent: Intent, catalog: Catalog, other: str) -> str:
    """Rows of another table tied to the entity ("which items are in sale 12")."""
    table = catalog.table(other)
    entity_table, key, number = intent.row
    paths = referred_paths(catalog, other)
    if entity_table in paths:  # "os pedidos do cliente 7": the rows that refer to it
        joins = Joins(catalog, other)
        follow(paths[entity_table], joins.aliases, joins, catalog)
    else:  # from the entity, along its own references first (its order's customer)
        joins = Joins(catalog, entity_table)
    alias = joins.alias(other)
    links = {c for join in table.meta.joins for c in join.on} | {table.tenant_column}
    asked = [c for t, c in intent.subject.columns if t == other and c not in links]
    where = f"{joins.alias(entity_table)}.{key} = {number}"
    # "os pedidos cancelados do cliente 7": the states said of them
    for (owner, column), values in intent.where.filters.items():
        where += f" AND {in_values(f'{joins.alias(owner)}.{column}', values)}"
    for (owner, column), values in intent.where.excluded.items():
        where += f" AND {in_values(f'{joins.alias(owner)}.{column}', values, negated=True)}"
    for owner, column in intent.where.unset:
        where += f" AND {joins.alias(owner)}.{column} IS NULL"
    if asked:  # "o parecer da revisão da tarefa 12": the entity, then what was asked
        own = [c for c in table.primary_key if c not in links]
        named = display_column(table).name  # "quem é o cliente": by its name, too
        own += [named] if named not in own else []
        shown = [f"{joins.alias(entity_table)}.{key}", *(f"{alias}.{c}" for c in [*own, *asked])]
    elif set(table.primary_key) & (links - {table.tenant_column}):
        # Parts of the entity (its items, its findings), keyed by it: what each one says.
        shown = [f"{alias}.{c.name}" for c in table.columns if c.name not in links]
    else:  # things tied to it (the people on a team): which ones
        keys = [c for c in table.primary_key if c != table.tenant_column]
        display = display_column(table).name
        identity = keys if len(keys) > 1 or display in keys else [display]
        shown = [f"{alias}.{c}" for c in identity]
    # "qual o prazo da tarefa 12 e quem é o responsável": the row's own asked columns too
    entity = catalog.table(entity_table)
    # (not its references: "which carrier has it" names the carrier, not its code)
    own_keys = {*entity.primary_key, entity.tenant_column}
    own_keys |= {c for join in entity.meta.joins for c in join.on}
    own_asked = [c for t, c in intent.subject.columns if t == entity_table and c not in own_keys]
    if WHEN.search(fold(intent.question)):
        # "quais tarefas o dono 7 fez e em que datas": the dates of those rows, not its own
        # (a date of its own named by a word of its own stays: "when is it due")
        said = set(words(intent.question)) - DATE_WORDS - set(FUNCTION_WORDS)
        said -= set(words(" ".join([entity.name, *entity.meta.synonyms.all()])))
        own_asked = [
            c
            for c in own_asked
            if not entity.column(c).type_sql.startswith(DATE_TYPES)
            or said & set(words(" ".join(entity.column(c).meta.synonyms.all())))
        ]
        dated = time_column(intent, catalog, other)
        if dated is not None and f"{alias}.{dated}" not in shown:
            shown.append(f"{alias}.{dated}")
    if own_asked:
        shown = [*(f"{joins.alias(entity_table)}.{c}" for c in own_asked), *shown]
    columns = ", ".join(dict.fromkeys(shown))
    return f"SELECT DISTINCT {columns} FROM {joins.sql()} WHERE {where}"


def entity_details(intent: Intent, catalog: Catalog) -> str:
    """One row's columns; a shown column that points at another table's row (the owner of
    a task) also shows that row's name, joined — people ask "who", not "which code"."""
    table = catalog.table(intent.row[0])
    joins = Joins(catalog, table.name)
    alias = joins.alias(table.name)
    selects = named(table, alias, visible_columns(table, intent, catalog), catalog, joins)
    return (
        f"SELECT {', '.join(selects)} FROM {joins.sql()} "
        f"WHERE {alias}.{intent.row[1]} = {intent.row[2]}"
    )


def named(
    table: Table, alias: str, columns: list[str], catalog: Catalog, joins: Joins
) -> list[str]:
    """The select list of a table's shown columns, each reference to another row followed
    by that row's name ("cod_dono" → "nome_dono"), joined under an alias of its own: a code
    alone tells people nothing. A reference whose row is named by its own key, or by a state,
    is shown as it is."""
    selects = []
    for column in columns:
        selects.append(f"{alias}.{column}")
        join = next(
            (j for j in table.meta.joins if len(j.on) == 1 and column in j.on),
            None,
        )
        if join is None or join.to == table.name:
            continue
        target, remote = catalog.table(join.to), join.on[column]
        name = display_column(target).name
        if name == remote or name in target.primary_key or target.column(name).meta.values:
            continue
        # outer when the reference may be empty or its row was itself outer-joined: a name
        # only adds to the row, never filters it
        optional = not table.column(column).not_null or alias in joins.outer
        other = joins.refer(alias, [(column, remote)], join.to, optional)
        selects.append(f"{other}.{name} AS {name}_{_plain(column)}")
    return selects


def _plain(column: str) -> str:
    """ "cod_responsavel" → "responsavel": a reference column's name without its code affix."""
    parts = [p for p in column.split("_") if p not in CODE_AFFIXES]
    return "_".join(parts) or column


STATE_NAMES = word_set("state_names")
"""The languages' words for a row's state: which of its enumerated columns is its state."""


def _state_columns(table: Table) -> list[str]:
    """The row's state: its enumerated columns called so ("status"), else all of them (a
    channel is enumerated too, but is not where the row stands)."""
    enumerated = [c for c in table.columns if c.meta.values]
    called = [c.name for c in enumerated if STATE_NAMES & set(spelling(c))]
    return called or [c.name for c in enumerated]


def visible_columns(table: Table, intent: Intent, catalog: Catalog) -> list[str]:
    keys = [c for c in table.primary_key if c != table.tenant_column]
    # "the tasks with project and number": a listed row's key has parts worth asking for
    parts = len(keys) > 1 and not intent.subject.entity
    asked = [c for t, c in intent.subject.columns if t == table.name and (c not in keys or parts)]
    states = _state_columns(table)
    if intent.asked.wants_status and intent.subject.entity and not set(states) & set(asked):
        asked = [*states, *asked]  # "onde está a tarefa 12?", "em que etapa … e o prazo?"
    if asked:
        key = key_column(table, catalog)
        # listed rows' key of several parts is shown whole ("lote 1, tarefa 42": the number
        # repeats); one row looked up by its number is known by it
        shown = keys if len(keys) > 1 and not intent.subject.entity else [key.name] if key else keys
        # Rows listed (not one row looked up) are named as people know them, too.
        name = [display_column(table).name] if not intent.subject.entity else []
        return list(dict.fromkeys([*shown, *name, *asked]))
    return [c.name for c in table.columns if c.name != table.tenant_column]


def series_for(catalog: Catalog, entity_table: str) -> Table | None:
    """A table of events about the entity: joined to it, many rows each, with a timestamp and
    a state, and itself referenced by no other table (events describe; they are not things)."""
    entity = catalog.table(entity_table)
    referenced = {
        j.to
        for t in catalog.tables.values()
        for j in t.meta.joins
        if set(j.on) != {t.tenant_column}
    }
    for table in catalog.tables.values():
        if table.name in referenced:
            continue
        for join in table.meta.joins:
            if join.to != entity_table or set(join.on) == {table.tenant_column}:
                continue
            if any(not table.column(c).not_null for c in join.on):
                continue  # an optional link: the series is about something else
            many = set(table.primary_key) - {table.tenant_column} != set(join.on)
            # Every event happens at a time: a nullable timestamp marks something else (a
            # detail that may be dated later), not a series of events.
            stamps = [
                c for c in table.columns if c.type_sql.startswith(("timestamp",)) and c.not_null
            ]
            states = [c for c in table.columns if c.meta.values]
            if many and stamps and states and entity is not table:
                return table
    return None


def places(series: Table, question: str) -> list[str]:
    """ "onde está a tarefa 12?": the columns of its events that say where, by their synonyms
    ("onde está", "location")."""
    said = set(words(question))
    if not said & set(WHERE_WORDS):
        return []
    wanted = {*WHERE_WORDS, *LOCATION_WORDS}
    return [
        c.name
        for c in series.columns
        if wanted & {w for s in c.meta.synonyms.all() for w in words(s)}
    ]


def joined_on(series: Table, entity_table: str, key: str) -> bool:
    """The series' join to the entity goes through the entity's key column."""
    return any(j.to == entity_table and key in j.on.values() for j in series.meta.joins)


def events(intent: Intent, catalog: Catalog, series: Table, asked: Sequence[str] = ()) -> str:
    """The current state of an entity — its latest event by timestamp (the tracking rule) —
    or, when the history is asked for, every event in time order."""
    entity_table, key, number = intent.row
    join = next(j for j in series.meta.joins if j.to == entity_table)
    local = [a for a, b in join.on.items() if b != catalog.table(entity_table).tenant_column]
    stamp = [c for c in series.columns if c.type_sql.startswith("timestamp") and c.not_null][-1]
    remote_key = next(a for a, b in join.on.items() if b == key)
    states = [c.name for c in series.columns if c.meta.values]
    if intent.asked.history:
        texts = [c.name for c in series.columns if c.type_sql in ("text",) or "char" in c.type_sql]
        shown = list(dict.fromkeys([*states, *texts, stamp.name]))
        return (
            f"SELECT {', '.join(shown)} FROM {series.name} WHERE {remote_key} = {number} "
            f"ORDER BY {stamp.name}"
        )
    # focused: the entity, its state, and what was asked of its latest event
    columns = list(dict.fromkeys([remote_key, *states, *asked]))
    return (
        f"SELECT DISTINCT ON ({', '.join(local)}) {', '.join(columns)} FROM {series.name} "
        f"WHERE {remote_key} = {number} ORDER BY {', '.join(local)}, {stamp.name} DESC"
    )
