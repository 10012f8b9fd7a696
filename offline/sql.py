"""Intent → SQL, using only the catalog: join keys, date columns, metric definitions.

Joins follow the catalog's join keys along shortest paths; a glossary metric contributes its
expression, filter and date column; the tracking rule (the latest event of a series by its
timestamp) applies whenever the entity's events live in a table joined to it.
"""

from __future__ import annotations

import re
from collections import deque

import pglast
from pglast import ast
from pglast.stream import RawStream

from orquestra.ddl_catalog.model import Catalog, Table
from orquestra.ddl_catalog.text import fold, stem, words
from orquestra.guards.tree import iter_nodes
from orquestra.offline.lexicon import (
    DATE_TYPES,
    date_column,
    display_column,
    is_measure,
    key_column,
    shares_root,
)
from orquestra.offline.parser import COUNT_WORDS, Group, Intent

GRAIN_NAMES = {
    "month": "mes",
    "year": "ano",
    "day": "dia",
    "week": "semana",
    "quarter": "trimestre",
}
LIST_LIMIT = 100
CODE_AFFIXES = ("cod", "codigo", "id", "num", "nr", "code")


class Unmappable(Exception):
    """The question does not map to the catalog."""


def build_sql(intent: Intent, catalog: Catalog, today: str) -> str:
    plain = intent.entity and not intent.metric and not intent.aggregate and not intent.groups
    series = _series_for(catalog, intent.entity[0]) if plain else None
    # Its state is asked in the language's words ("status", "onde está") or by naming the
    # series of its events (that table's synonyms in the catalog: "o histórico da tarefa 12").
    asked = intent.wants_status or intent.history or (series and series.name in intent.tables)
    elsewhere = _asked_elsewhere(intent) if plain else []
    if series is not None and _joined_on(series, intent.entity[0], intent.entity[1]):
        on_events = [c for t, c in elsewhere if t == series.name]
        if asked or on_events:  # "em que cidade estava a tarefa 12": its latest event says
            intent.wants_status = intent.wants_status or not intent.history
            return _events(intent, catalog, series, on_events)
    if elsewhere and not [t for t in intent.tables if t != intent.entity[0]]:
        return _joined_details(intent, catalog, elsewhere)
    if intent.recency and not (intent.metric or intent.aggregate or intent.groups):
        return _in_date_order(intent, catalog, today)
    if plain:
        related = [t for t in intent.tables if t != intent.entity[0]]
        if related and not intent.wants_status:
            return _related(intent, catalog, related[0])
        return _entity_details(intent, catalog)
    if not intent.understood and not intent.groups:
        raise Unmappable("no table, column, value or business term of the catalog was recognised")
    if intent.lists_metric_rows:
        joins = Joins(catalog, _base(intent))
        return _listing(intent, catalog, joins, _filters(intent, catalog, joins, today))
    return _aggregate_query(intent, catalog, today)


def _base(intent: Intent) -> str:
    if intent.metric and intent.metric.metric:
        return intent.metric.metric.table
    if intent.measure:
        return intent.measure[0]
    if intent.entity:
        return intent.entity[0]
    filtered = [table for table, _column in intent.filters]
    for table in intent.tables:  # a mentioned table that a filter applies to, first
        if table in filtered:
            return table
    if intent.tables:
        return intent.tables[0]
    for table in filtered:
        return table
    for group in intent.groups:
        if group.table:
            return group.table
    raise Unmappable("no table could be chosen")


class Joins:
    """FROM clause built along join paths from a base table, one alias per table."""

    def __init__(self, catalog: Catalog, base: str) -> None:
        self.catalog = catalog
        self.aliases = {base: _alias(base, set())}
        self.clauses = [f"{base} AS {self.aliases[base]}"]
        self.graph = _join_graph(catalog)

    def alias(self, table: str) -> str:
        if table not in self.aliases:
            path = _path(self.graph, set(self.aliases), table)
            if path is None:
                raise Unmappable(f"{table} cannot be joined to the other tables")
            for left, right, pairs in path:
                if right in self.aliases:
                    continue
                self.aliases[right] = _alias(right, set(self.aliases.values()))
                keys = " AND ".join(
                    f"{self.aliases[left]}.{a} = {self.aliases[right]}.{b}" for a, b in pairs
                )
                self.clauses.append(f"JOIN {right} AS {self.aliases[right]} ON {keys}")
        return self.aliases[table]

    def sql(self) -> str:
        return " ".join(self.clauses)


def _aggregate_query(intent: Intent, catalog: Catalog, today: str) -> str:
    base = _base(intent)
    joins = Joins(catalog, base)
    alias = joins.alias(base)
    where = _filters(intent, catalog, joins, today)
    selects, groups = [], []
    if len(intent.periods) > 1 and not intent.groups:
        intent.groups = [Group("", "", "month")]  # a comparison of periods, side by side
    if intent.aggregate == "avg":  # "média por venda" is the average over sales, not per sale
        itself = {display_column(catalog.table(base)).name, *catalog.table(base).primary_key}
        intent.groups = [g for g in intent.groups if g.table != base or g.column not in itself]
    for group in intent.groups:
        if group.grain:
            name = time_column(intent, catalog, base)
            if name is None:
                raise Unmappable(f"{base} has no date to group by")
            selects.append(
                f"date_trunc('{group.grain}', {alias}.{name}) AS {GRAIN_NAMES[group.grain]}"
            )
        else:
            owner = _group_table(group, intent, catalog, joins)
            selects.append(f"{joins.alias(owner)}.{group.column} AS {group.column}")
        groups.append(str(len(selects)))
    measure, measure_name = _measure_sql(intent, catalog, alias, joins)
    if measure is None and not groups:
        return _listing(intent, catalog, joins, where)
    selects.append(f"{measure or 'count(*)'} AS {measure_name}")
    for other in intent.also:  # "… e qual o valor total": more measures of the same rows
        extra = _extra_measure(other, intent, catalog, base, alias, today)
        if extra is not None and extra[1] not in {s.rsplit(" AS ", 1)[-1] for s in selects}:
            selects.append(f"{extra[0]} AS {extra[1]}")
    sql = f"SELECT {', '.join(selects)} FROM {joins.sql()}"
    sql += f" WHERE {' AND '.join(where)}" if where else ""
    sql += f" GROUP BY {', '.join(groups)}" if groups else ""
    if groups:
        time_first = intent.groups[0].grain is not None
        direction = "ASC" if intent.ascending else "DESC"
        ranked = f" ORDER BY {measure_name} {direction}"
        sql += " ORDER BY 1" if time_first and not intent.top else ranked
    if intent.top:
        sql += f" LIMIT {intent.top}"
    return sql


def _metric_expression(intent: Intent) -> str:
    """The metric's expression; a total asked as an average, a maximum or a minimum ("custo
    médio de frete") aggregates the same column that way, per row."""
    expression = intent.metric.metric.expression
    summed = re.fullmatch(r"\s*sum\(\s*(\w+)\s*\)\s*", expression, re.IGNORECASE)
    by_period = any(g.grain for g in intent.groups)
    if summed and intent.aggregate in ("avg", "max", "min") and not by_period:
        return f"{intent.aggregate.upper()}({summed.group(1)})"
    return expression


def _extra_measure(
    other: Intent, intent: Intent, catalog: Catalog, base: str, alias: str, today: str
) -> tuple[str, str] | None:
    """Another clause's measure over the base table's rows: its metric (its own filter as
    the aggregate's FILTER when it differs), its column (or the base's column of the same
    head word: "o valor" of the rows counted), or a count."""
    metric = other.metric.metric if other.metric else None
    if metric is not None and metric.table == base:
        expression = qualify(metric.expression, alias)
        own = intent.metric.metric.filter if intent.metric and intent.metric.metric else None
        if metric.filter and metric.filter != own:
            if not re.fullmatch(r"\w+\([^()]*\)", metric.expression.strip()):
                return None  # a ratio of aggregates cannot take one FILTER
            condition = qualify(metric.filter.replace("{today}", f"DATE {today!r}"), alias)
            expression += f" FILTER (WHERE {condition})"
        return expression, "_".join(words(other.metric.term))
    if other.measure is not None:
        table, column = other.measure
        if table != base:
            head = column.split("_")[0]
            same = [c.name for c in catalog.table(base).columns if c.name.split("_")[0] == head]
            column = next((c for c in same if is_measure(catalog.table(base), c)), "")
            if not column:
                return None
        prefix = {"avg": "media", "sum": "total"}.get(other.aggregate or "sum", other.aggregate)
        return f"{other.aggregate or 'sum'}({alias}.{column})", f"{prefix}_{column}"
    if other.aggregate in ("sum", "total", "avg", "max", "min"):
        # "and what was the total value": the base's amount its words name
        table, said = catalog.table(base), set(words(other.question))
        for column in table.columns:
            spelled = words(" ".join([column.name.replace("_", " "), *column.meta.synonyms.all()]))
            if is_measure(table, column.name) and said & set(spelled) - {"total"}:
                aggregate = "sum" if other.aggregate == "total" else other.aggregate
                prefix = {"avg": "media", "sum": "total"}.get(aggregate, aggregate)
                return f"{aggregate}({alias}.{column.name})", f"{prefix}_{column.name}"
    if other.aggregate in ("count", "total"):
        return "count(*)", "quantidade"
    return None


def _distinct_count(table: str, catalog: Catalog, joins: Joins) -> str:
    """COUNT(DISTINCT …) of a table's rows by its whole key (the tenant column aside: the
    rows are one tenant's), read from the base's own columns when it refers to the table."""
    counted = catalog.table(table)
    base = next(iter(joins.aliases))
    alias = joins.aliases[base]
    link = next(
        (j.on for j in catalog.table(base).meta.joins if j.to == table),
        None,
    )
    if base == table or link is None:
        alias = joins.alias(table)
        keys = [c for c in counted.primary_key if c != counted.tenant_column]
    else:
        keys = [local for local, remote in link.items() if remote != counted.tenant_column]
    columns = ", ".join(f"{alias}.{c}" for c in keys)
    return f"count(DISTINCT ({columns}))" if len(keys) > 1 else f"count(DISTINCT {columns})"


def _compared(table: Table, alias: str, left: str, operator: str, right: str) -> str:
    """One date column against another on the same row; a timestamp against a date is
    compared as a date (delivered on the promised day is not late)."""
    kinds = {c: table.column(c).type_sql for c in (left, right)}
    as_date = len({kind.startswith("timestamp") for kind in kinds.values()}) > 1
    sides = [
        f"CAST({alias}.{c} AS date)"
        if as_date and kinds[c].startswith("timestamp")
        else f"{alias}.{c}"
        for c in (left, right)
    ]
    return f"{sides[0]} {operator} {sides[1]}"


def _group_table(group: Group, intent: Intent, catalog: Catalog, joins: Joins) -> str:
    """The table a grouping column comes from: a mentioned one that has it, else the nearest."""
    owners = [t for t in catalog.tables if group.column in catalog.table(t).column_names]
    for table in [*intent.tables, *joins.aliases]:
        if table in owners:
            return table
    reachable = [t for t in owners if _path(joins.graph, set(joins.aliases), t) is not None]
    reachable.sort(key=lambda t: len(_path(joins.graph, set(joins.aliases), t) or []))
    return reachable[0] if reachable else group.table


def _measure_sql(
    intent: Intent, catalog: Catalog, alias: str, joins: Joins | None = None
) -> tuple[str | None, str]:
    if intent.distinct_table and intent.aggregate == "count" and joins is not None:
        return _distinct_count(intent.distinct_table, catalog, joins), "quantidade"
    metric = intent.metric.metric if intent.metric else None
    counts_rows = metric is not None and not metric.expression.upper().startswith("COUNT")
    if intent.aggregate == "count" and counts_rows and not _counted_in_unit(intent):
        return "count(*)", "quantidade"  # "how many overdue bills": count, with its filter
    if intent.metric and intent.metric.metric:
        name = "_".join(words(intent.metric.term))
        expression = _metric_expression(intent)
        if expression != intent.metric.metric.expression:  # "custo médio de frete"
            name = (
                f"{ {'avg': 'media', 'max': 'maximo', 'min': 'minimo'}[intent.aggregate] }_{name}"
            )
        return qualify(expression, alias), name
    if intent.measure:
        column = intent.measure[1]
        prefix = {"avg": "media", "sum": "total"}.get(intent.aggregate, intent.aggregate)
        return f"{intent.aggregate}({alias}.{column})", f"{prefix}_{column}"
    if intent.aggregate == "count" or intent.groups:
        return "count(*)", "quantidade"
    return None, ""


def _filters(
    intent: Intent, catalog: Catalog, joins: Joins, today: str, base: str | None = None
) -> list[str]:
    where = []
    base = base or _base(intent)
    alias = joins.alias(base)
    metric = intent.metric.metric if intent.metric else None
    if metric and metric.filter:
        # Parenthesised: a metric's filter may hold an OR, and the other conditions are ANDed.
        where.append(f"({qualify(metric.filter.replace('{today}', f'DATE {today!r}'), alias)})")
    for (table, column), values in intent.filters.items():
        quoted = ", ".join(f"'{v}'" for v in values)
        operator = f"= {quoted}" if len(values) == 1 else f"IN ({quoted})"
        where.append(f"{joins.alias(table)}.{column} {operator}")
    if intent.entity:
        table, column, number = intent.entity
        where.append(f"{joins.alias(table)}.{column} = {number}")
    for (table, column), values in intent.excluded.items():
        quoted = ", ".join(f"'{v}'" for v in values)
        operator = f"<> {quoted}" if len(values) == 1 else f"NOT IN ({quoted})"
        where.append(f"{joins.alias(table)}.{column} {operator}")
    for table, column in intent.unset:
        where.append(f"{joins.alias(table)}.{column} IS NULL")
    for table, left, operator, right in intent.comparisons:
        where.append(_compared(catalog.table(table), joins.alias(table), left, operator, right))
    tenant_column = catalog.table(base).tenant_column
    if intent.tenant_value is not None and tenant_column:
        where.append(f"{alias}.{tenant_column} = {intent.tenant_value}")
    name = time_column(intent, catalog, base)
    periods = intent.periods
    if metric and "{today}" in (metric.filter or ""):
        # "tarefas atrasadas hoje": a state already measured as of today, not rows made today
        periods = [p for p in periods if p.start.isoformat() != today or (p.end - p.start).days > 1]
    if periods and name is not None:
        ranges = [
            f"({alias}.{name} >= DATE '{p.start}' AND {alias}.{name} < DATE '{p.end}')"
            for p in periods
        ]
        where.append(ranges[0] if len(ranges) == 1 else f"({' OR '.join(ranges)})")
    return where


def time_column(intent: Intent, catalog: Catalog, base: str) -> str | None:
    """The column that places the question's rows in time: the metric's own; a date column
    the question names; the one whose verb the question or a chosen state uses ("tarefas
    concluídas" → `data_conclusao`, "cadastramos" → `cadastrado_em`); else the first."""
    if _metric_date(intent):
        return _metric_date(intent)
    if intent.date_column and intent.date_column in catalog.table(base).column_names:
        return intent.date_column
    table = catalog.table(base)
    dated = [c for c in table.columns if c.type_sql.startswith(DATE_TYPES)]
    named = [c for t, c in intent.columns if t == base and c in {d.name for d in dated}]
    if named:
        return named[0]
    states = [
        word
        for (owner, _column), values in intent.filters.items()
        if owner == base
        for value in values
        for word in words(value.replace("_", " "))
    ]
    said = [*states, *words(intent.question)]
    for column in dated:
        spelled = words(" ".join([column.name.replace("_", " "), *column.meta.synonyms.all()]))
        if any(shares_root(word, spelled) for word in said):
            return column.name
    return dated[0].name if dated else None


def _counted_in_unit(intent: Intent) -> bool:
    """ "quantas horas extras": the count is the metric's own unit (hours), so the answer is
    the metric, not a count of its rows."""
    unit = intent.metric.metric.unit if intent.metric and intent.metric.metric else None
    if not unit:
        return False
    said = words(intent.question)
    return any(
        stem(word) == stem(fold(unit)) and said[index - 1] in COUNT_WORDS
        for index, word in enumerate(said)
        if index
    ) or any(
        stem(word) == stem(fold(unit)) and said[index - 2 : index] == ["how", "many"]
        for index, word in enumerate(said)
        if index > 1
    )


def _metric_date(intent: Intent) -> str | None:
    metric = intent.metric.metric if intent.metric else None
    return metric.date_column if metric else None


def _listing(intent: Intent, catalog: Catalog, joins: Joins, where: list[str]) -> str:
    base = catalog.table(_base(intent))
    alias = joins.alias(base.name)
    columns = _visible_columns(base, intent, catalog)
    if intent.lists_metric_rows:  # the rows a metric counts, with what puts them in it
        key = key_column(base, catalog)
        defining = _columns_in(intent.metric.metric.filter or "", base)
        columns = list(dict.fromkeys([*([key.name] if key else []), *defining])) or columns
    dated = date_column(base)
    amounts = [c.name for c in base.columns if is_measure(base, c.name)]
    key = key_column(base, catalog)
    if intent.top and amounts and key is not None:  # "a maior venda": ranked by its amount
        shown = ", ".join(f"{alias}.{c}" for c in (key.name, amounts[0]))
        sql = f"SELECT {shown} FROM {joins.sql()}"
        sql += f" WHERE {' AND '.join(where)}" if where else ""
        return sql + f" ORDER BY {alias}.{amounts[0]} DESC LIMIT {intent.top}"
    sql = f"SELECT {', '.join(f'{alias}.{c}' for c in columns)} FROM {joins.sql()}"
    sql += f" WHERE {' AND '.join(where)}" if where else ""
    if dated is not None:
        sql += f" ORDER BY {alias}.{dated.name} DESC"
    return sql + f" LIMIT {intent.top or LIST_LIMIT}"


def _in_date_order(intent: Intent, catalog: Catalog, today: str) -> str:
    """The newest (or oldest) rows by their own date: "a tarefa mais recente"; of a named
    entity's related rows, "o primeiro pedido do cliente 7"."""
    base = _base(intent)
    if intent.entity and not intent.metric:
        related = [t for t in intent.tables if t != intent.entity[0]]
        base = related[0] if related else base
    table = catalog.table(base)
    joins = Joins(catalog, base)
    alias = joins.alias(base)
    where = _filters(intent, catalog, joins, today, base)
    dated = time_column(intent, catalog, base)
    if dated is None:
        raise Unmappable(f"{base} has no date to order by")
    columns = _visible_columns(table, intent, catalog)
    sql = f"SELECT {', '.join(f'{alias}.{c}' for c in columns)} FROM {joins.sql()}"
    sql += f" WHERE {' AND '.join(where)}" if where else ""
    return sql + f" ORDER BY {alias}.{dated} {intent.recency} LIMIT {intent.top or 1}"


def _asked_elsewhere(intent: Intent) -> list[tuple[str, str]]:
    """Columns asked of one row that only other tables have ("em que cidade" of a row with
    no city): none when the row's own table has one of the asked columns."""
    entity_table = intent.entity[0]
    if any(t == entity_table for t, _c in intent.columns):
        return []
    return [(t, c) for t, c in intent.columns if t != entity_table]


def _joined_details(intent: Intent, catalog: Catalog, asked: list[tuple[str, str]]) -> str:
    """The row and the asked column of the nearest table that has it, joined."""
    entity_table, key, number = intent.entity
    joins = Joins(catalog, entity_table)
    reachable = [
        (len(path), t, c)
        for t, c in asked
        if (path := _path(joins.graph, {entity_table}, t)) is not None
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


def _related(intent: Intent, catalog: Catalog, other: str) -> str:
    """Rows of another table tied to the entity ("which items are in sale 12")."""
    table = catalog.table(other)
    joins = Joins(catalog, other)
    alias = joins.alias(other)
    entity_table, key, number = intent.entity
    links = {c for join in table.meta.joins for c in join.on} | {table.tenant_column}
    asked = [c for t, c in intent.columns if t == other and c not in links]
    where = f"{joins.alias(entity_table)}.{key} = {number}"
    if asked:  # "o parecer da revisão da tarefa 12": the entity, then what was asked
        own = [c for c in table.primary_key if c not in links]
        shown = [f"{joins.alias(entity_table)}.{key}", *(f"{alias}.{c}" for c in [*own, *asked])]
    elif set(table.primary_key) & (links - {table.tenant_column}):
        # Parts of the entity (its items, its findings), keyed by it: what each one says.
        shown = [f"{alias}.{c.name}" for c in table.columns if c.name not in links]
    else:  # things tied to it (the people on a team): which ones
        keys = [c for c in table.primary_key if c != table.tenant_column]
        display = display_column(table).name
        identity = keys if len(keys) > 1 or display in keys else [display]
        shown = [f"{alias}.{c}" for c in identity]
    columns = ", ".join(dict.fromkeys(shown))
    return f"SELECT DISTINCT {columns} FROM {joins.sql()} WHERE {where}"


def _entity_details(intent: Intent, catalog: Catalog) -> str:
    """One row's columns; an asked column that points at another table's row (the owner
    of a task) also shows that row's name, joined — people ask "who", not "which code"."""
    table = catalog.table(intent.entity[0])
    columns = _visible_columns(table, intent, catalog)
    asked = {c for t, c in intent.columns if t == table.name}
    alias = _alias(table.name, set())
    selects, clauses = [f"{alias}.{c}" for c in columns], [f"{table.name} AS {alias}"]
    for join in table.meta.joins:
        if len(join.on) != 1 or next(iter(join.on)) not in asked:
            continue
        (local, remote), target = next(iter(join.on.items())), catalog.table(join.to)
        name = display_column(target).name
        if name == remote or join.to == table.name or target.column(name).meta.values:
            continue
        other = _alias(join.to, {alias, *(c.rsplit(" AS ", 1)[-1] for c in clauses)})
        kind = "JOIN" if table.column(local).not_null else "LEFT JOIN"
        clauses.append(f"{kind} {join.to} AS {other} ON {alias}.{local} = {other}.{remote}")
        selects.append(f"{other}.{name} AS {name}_{_plain(local)}")
    return (
        f"SELECT {', '.join(selects)} FROM {' '.join(clauses)} "
        f"WHERE {alias}.{intent.entity[1]} = {intent.entity[2]}"
    )


def _plain(column: str) -> str:
    """ "cod_responsavel" → "responsavel": a reference column's name without its code affix."""
    parts = [p for p in column.split("_") if p not in CODE_AFFIXES]
    return "_".join(parts) or column


def _columns_in(expression: str, table: Table) -> list[str]:
    """The table's columns an SQL expression mentions, in the table's order."""
    said = set(words(expression))
    return [c.name for c in table.columns if c.name in said]


def _visible_columns(table: Table, intent: Intent, catalog: Catalog) -> list[str]:
    keys = [c for c in table.primary_key if c != table.tenant_column]
    asked = [c for t, c in intent.columns if t == table.name and c not in keys]
    if intent.wants_status and intent.entity and not asked:  # "onde está a tarefa 12?"
        asked = [c.name for c in table.columns if c.meta.values]
    if asked:
        key = key_column(table, catalog)
        return list(dict.fromkeys([*([key.name] if key else keys), *asked]))
    return [c.name for c in table.columns if c.name != table.tenant_column]


def _series_for(catalog: Catalog, entity_table: str) -> Table | None:
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


def _joined_on(series: Table, entity_table: str, key: str) -> bool:
    """The series' join to the entity goes through the entity's key column."""
    return any(j.to == entity_table and key in j.on.values() for j in series.meta.joins)


def _events(intent: Intent, catalog: Catalog, series: Table, asked: list[str] = ()) -> str:
    """The current state of an entity — its latest event by timestamp (the tracking rule) —
    or, when the history is asked for, every event in time order."""
    entity_table, key, number = intent.entity
    join = next(j for j in series.meta.joins if j.to == entity_table)
    local = [a for a, b in join.on.items() if b != catalog.table(entity_table).tenant_column]
    stamp = [c for c in series.columns if c.type_sql.startswith("timestamp") and c.not_null][-1]
    remote_key = next(a for a, b in join.on.items() if b == key)
    states = [c.name for c in series.columns if c.meta.values]
    if intent.history:
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


def qualify(expression: str, alias: str) -> str:
    """`expression` with every bare column prefixed by `alias` (parsed, not pattern-matched)."""
    statement = pglast.parse_sql(f"SELECT {expression}")[0].stmt
    for node in iter_nodes(statement):
        if (
            isinstance(node, ast.ColumnRef)
            and len(node.fields) == 1
            and isinstance(node.fields[0], ast.String)
        ):
            node.fields = (ast.String(sval=alias), node.fields[0])
    return RawStream()(statement.targetList[0].val)


def _alias(table: str, taken: set[str]) -> str:
    candidate = "".join(part[0] for part in table.split("_"))
    while candidate in taken:
        candidate += "x"
    return candidate


def _join_graph(catalog: Catalog) -> dict[str, list[tuple[str, list[tuple[str, str]]]]]:
    graph: dict[str, list] = {name: [] for name in catalog.tables}
    for table in catalog.tables.values():
        for join in table.meta.joins:
            if set(join.on) == {table.tenant_column}:
                continue
            pairs = list(join.on.items())
            graph[table.name].append((join.to, pairs))
            graph[join.to].append((table.name, [(b, a) for a, b in pairs]))
    # Paths go through the things and the links between them before the event series that
    # merely describe them (an entity with no events yet must still be joined).
    referenced = {join.to for t in catalog.tables.values() for join in t.meta.joins}
    for neighbours in graph.values():
        neighbours.sort(
            key=lambda pair: (
                pair[0] not in referenced and _looks_like_series(catalog.table(pair[0]))
            )
        )
    return graph


def _looks_like_series(table: Table) -> bool:
    return any(c.type_sql.startswith("timestamp") for c in table.columns) and any(
        c.meta.values for c in table.columns
    )


def _path(graph, sources: set[str], target: str):
    previous: dict[str, tuple[str, list] | None] = {s: None for s in sources}
    queue = deque(sorted(sources))
    while queue:
        node = queue.popleft()
        if node == target:
            steps = []
            while previous[node] is not None:
                parent, pairs = previous[node]
                steps.append((parent, node, pairs))
                node = parent
            return list(reversed(steps))
        for neighbour, pairs in graph[node]:
            if neighbour not in previous:
                previous[neighbour] = (node, pairs)
                queue.append(neighbour)
    return None
