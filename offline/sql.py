"""Intent → SQL, using only the catalog: join keys, date columns, metric definitions.

Joins follow the catalog's join keys along shortest paths; a glossary metric contributes its
expression, filter and date column; the tracking rule (the latest event of a series by its
timestamp) applies whenever the entity's events live in a table joined to it.
"""

from __future__ import annotations

from datetime import date, timedelta

from orquestra.ddl_catalog.model import Catalog, MetricDefinition, Table
from orquestra.ddl_catalog.text import words
from orquestra.offline.coverage import LeftOut, left_out
from orquestra.offline.dating import rows_date, said_in_the_past, time_column
from orquestra.offline.intent import Group, Intent, Others
from orquestra.offline.joins import (
    Joins,
    Unmappable,
    alias_for,
    in_values,
    join_path,
    looks_like_series,
    qualify,
)
from orquestra.offline.lang import first_word, mapping
from orquestra.offline.lexicon import (
    amount_column,
    date_column,
    display_column,
    is_measure,
    key_column,
    person_name,
)
from orquestra.offline.measures import (
    COUNTED,
    compared,
    counted_in_unit,
    distinct_count,
    extra_measure,
    item_amount,
    measure_sql,
    per_clause,
    share_condition,
)
from orquestra.offline.names import named_row
from orquestra.offline.periods import Period
from orquestra.offline.phrasing import SHARED_START
from orquestra.offline.rows import (
    across_references,
    asked_elsewhere,
    entity_details,
    events,
    joined_details,
    joined_on,
    named,
    places,
    reference_said,
    referred_paths,
    related_rows,
    series_for,
    visible_columns,
)
from orquestra.offline.shares import named_conditions, of_all, share_select

_series_for = series_for  # its name before the row lookups had a module of their own

GRAIN_NAMES = dict(mapping("grain_result_names"))
RESULT_NAMES = mapping("result_names")
"""How the result names a column of dates grouped by a grain, by the grain ("mes")."""
SHARE_NAME = first_word("group_share_result_name")
"""How the result names each group's share of the whole ("percentual")."""
LIST_LIMIT = 100


def _own_details(intent: Intent, catalog: Catalog) -> bool:
    """Whether a question about one row asks for its own columns that are not a state or
    a key (its reason, its amount)."""
    table = catalog.table(intent.row[0])
    keys = {*table.primary_key, table.tenant_column}
    return any(
        t == table.name and c not in keys and not table.column(c).meta.values
        for t, c in intent.subject.columns
    )


def build_sql(intent: Intent, catalog: Catalog, today: str) -> str:
    """The SQL of `intent`, once checked against what the question says: a number, a period, a
    percentage, a comparison or a table it names and the query leaves out stops it
    (`coverage.LeftOut`): the query would answer something else."""
    sql = _query(intent, catalog, today)
    left = left_out(intent, sql, words(intent.question), catalog)
    if left:
        raise LeftOut(left)
    return sql


def _query(intent: Intent, catalog: Catalog, today: str) -> str:
    plain = (
        intent.subject.entity
        and not intent.measures.metric
        and not intent.measures.aggregate
        and not intent.groups
    )
    series = series_for(catalog, intent.row[0]) if plain else None
    # Its state is asked in the language's words ("status", "onde está") or by naming the
    # series of its events (that table's synonyms in the catalog: "o histórico da tarefa 12").
    asked = (
        intent.asked.wants_status
        or intent.asked.history
        or (series and series.name in intent.subject.tables)
    )
    # "já foi entregue?", "has it been delivered yet?": a state only its events have
    asked = asked or bool(series and any(t == series.name for t, _c in intent.where.filters))
    elsewhere = asked_elsewhere(intent, catalog) if plain else []
    # "qual o status da tarefa 12 e o motivo?": its own columns beside its state are read
    # from its own row, state included, not from its events
    asked = asked and not (plain and intent.asked.wants_status and _own_details(intent, catalog))
    if series is not None and joined_on(series, intent.row[0], intent.row[1]):
        on_events = [c for t, c in elsewhere if t == series.name]
        on_events += places(series, intent.question) if intent.asked.wants_status else []
        if asked or on_events:  # "em que cidade estava a tarefa 12": its latest event says
            intent = intent.but(wants_status=intent.asked.wants_status or not intent.asked.history)
            return events(intent, catalog, series, on_events)
    if elsewhere and intent.ordering.recency and not intent.subject.tables:
        # "cliente 7: número e data do pedido mais antigo": the related row first in time
        intent = intent.but(tables=[elsewhere[0][0]])
    elif elsewhere and not [t for t in intent.subject.tables if t != intent.row[0]]:
        return joined_details(intent, catalog, elsewhere)
    # "a tarefa mais recente", "o título vencido mais antigo": rows in date order (a metric's
    # name used of its rows keeps its filter and date)
    # (of one row without events, "qual o último status" is its own state, read below)
    latest_state = intent.latest_state_asked and series_for(catalog, intent.row[0]) is None
    if intent.ordering.recency and not (intent.measures.aggregate or intent.groups or latest_state):
        return _in_date_order(intent, catalog, today)
    if plain:
        related = [t for t in intent.subject.tables if t != intent.row[0]]
        if related and not intent.asked.wants_status:
            return across_references(intent, catalog) or related_rows(intent, catalog, related[0])
        return entity_details(intent, catalog)
    if intent.subject.entity and intent.measures.aggregate == "count":
        # "quantos clientes compraram o produto 7": the rows counted are reached through
        # others (its order lines), so each counts once; along references nothing repeats
        counted = _base(intent)
        apart = counted != intent.subject.entity[0]
        if apart and intent.subject.entity[0] not in referred_paths(catalog, counted):
            intent = intent.but(distinct_table=intent.subject.distinct_table or counted)
    if not intent.understood and not intent.groups:
        raise Unmappable("no table, column, value or business term of the catalog was recognised")
    if intent.unread.unmapped:
        raise Unmappable(f"unknown to the catalog: {', '.join(intent.unread.unmapped)}")
    if intent.subject.owners:
        return _owners(intent, catalog, today)
    if intent.lists_metric_rows:
        joins = Joins(catalog, _base(intent))
        return _listing(intent, catalog, joins, _filters(intent, catalog, joins, today))
    share = _share_listed(intent)
    if share is not None:  # "quais tarefas atrasaram": the rows a share counts, listed
        joins = Joins(catalog, _base(intent))
        where = _filters(intent, catalog, joins, today)
        where.append(f"({qualify(share, joins.alias(_base(intent)))})")
        return _listing(intent, catalog, joins, where)
    return _aggregate_query(intent, catalog, today)


def _share_listed(intent: Intent) -> str | None:
    """The condition of a share metric whose rows the question lists by name ("list the
    late tasks" of an on-time rate): those rows, not the rate."""
    if not (intent.asked.listing and intent.measures.metric_rows and intent.measures.metric):
        return None
    if intent.measures.aggregate or intent.groups or intent.ordering.top:
        return None
    return share_condition(intent.measures.metric.metric)


def _base(intent: Intent) -> str:
    if intent.measures.metric and intent.measures.metric.metric:
        return intent.measures.metric.metric.table
    if intent.measures.measure:
        return intent.measures.measure[0]
    if intent.subject.entity:
        # "quantos pedidos do cliente 7": the other rows named are counted, of that one row
        others = [t for t in intent.subject.tables if t != intent.subject.entity[0]]
        counted = intent.measures.aggregate or intent.groups
        return others[0] if counted and others else intent.subject.entity[0]
    filtered = [table for table, _column in intent.where.filters]
    # "tarefas por gerente": the rows grouped by the manager, not the managers (whose kind
    # is a filter on the grouping's table)
    grouping = {g.table for g in intent.groups if g.grain is None}
    if any(t not in grouping for t in intent.subject.tables):
        filtered = [t for t in filtered if t not in grouping]
    for table in intent.subject.tables:  # a mentioned table that a filter applies to, first
        if table in filtered:
            return table
    if intent.subject.tables:
        return intent.subject.tables[0]
    for table in filtered:
        return table
    for group in intent.groups:
        if group.table:
            return group.table
    for clause in intent.measures.apart:  # "how many no-shows and how many cancellations"
        for table, _column in [*clause.filters, *(c[:2] for c in clause.comparisons)]:
            return table
    raise Unmappable("no table could be chosen")


def _aggregate_query(intent: Intent, catalog: Catalog, today: str) -> str:
    base = _base(intent)
    joins = Joins(catalog, base)
    alias = joins.alias(base)
    for group in intent.groups:  # "qual médico …": through the reference called so
        if group.table and group.table != base:
            reference_said(joins, catalog, base, group.table, intent.question)
    where = _filters(of_all(intent) if intent.measures.share else intent, catalog, joins, today)
    selects, groups, apart = [], [], []
    rule = intent.measures.metric.metric if intent.measures.metric else None
    simple = rule is None or rule.shape.simple
    apart_periods = len(intent.time.periods) > 1 and not intent.groups
    if apart_periods and (not simple or all(_one_month(p) for p in intent.time.periods)):
        intent = intent.but(groups=[Group("", "", "month")])  # months compared: a row for each
        apart_periods = False
    if (
        intent.measures.aggregate == "avg"
    ):  # "média por venda" is the average over sales, not per sale
        itself = {display_column(catalog.table(base)).name, *catalog.table(base).primary_key}
        intent = intent.but(
            groups=[g for g in intent.groups if g.table != base or g.column not in itself]
        )
    for group in intent.groups:
        if group.grain:
            dated = rows_date(intent, catalog, joins, base)
            if dated is None:
                raise Unmappable(f"{base} has no date to group by")
            if group.grain == "weekday":  # "por dia da semana": Monday 1 … Sunday 7 (ISO)
                selects.append(f"EXTRACT(ISODOW FROM {dated}) AS {GRAIN_NAMES[group.grain]}")
            else:
                selects.append(
                    f"date_trunc('{group.grain}', {dated}) AS {GRAIN_NAMES[group.grain]}"
                )
        else:
            owner = _group_table(group, intent, catalog, joins)
            shown = f"{joins.alias(owner)}.{group.column} AS {group.column}"
            whole = person_name(catalog.table(owner), joins.alias(owner))
            if whole and group.column == display_column(catalog.table(owner)).name:
                shown = f"{whole} AS {RESULT_NAMES['name']}"  # "first last", a person's name
            selects.append(shown)
            key = key_column(catalog.table(owner), catalog)
            if key is not None and group.column == display_column(catalog.table(owner)).name:
                # Rows named alike stay apart (two products with one description): grouped
                # by their key too, shown by their name.
                apart.append(f"{joins.alias(owner)}.{key.name}")
        groups.append(str(len(selects)))
    measure, measure_name = measure_sql(intent, catalog, alias, joins)
    measure = item_amount(measure, catalog, joins, base) or measure  # "… por produto"
    if measure is None and not groups:
        return _listing(intent, catalog, joins, where)
    dated = rows_date(intent, catalog, joins, base) if apart_periods else None
    if dated is not None:  # "o 1º tri de 2026 com o de 2025": a column for each period
        for number, period in enumerate(intent.time.periods, 1):
            within = f"{dated} >= DATE '{period.start}' AND {dated} < DATE '{period.end}'"
            counted = measure or "count(*)"
            selects.append(f"{counted} FILTER (WHERE {within}) AS {measure_name}_{number}")
    elif intent.measures.apart:
        selects.extend(per_clause(intent, measure or "count(*)", measure_name, joins, catalog))
    elif intent.measures.share:  # "what percentage of our orders came through EDI"
        selects.append(share_select(intent, measure or "count(*)", joins))
    else:
        selects.append(f"{measure or 'count(*)'} AS {measure_name}")
        if intent.measures.group_shares and groups:  # "a fatia de cada dono": of the whole, in %
            whole = measure or "count(*)"
            selects.append(f"100.0 * {whole} / NULLIF(SUM({whole}) OVER (), 0) AS {SHARE_NAME}")
    _conditions_apart(intent, selects, where, joins, base, today)
    for other in intent.measures.also:  # "… e qual o valor total": more measures of the same rows
        extra = extra_measure(other, intent, catalog, base, alias, today)
        if extra is not None and extra[1] not in {s.rsplit(" AS ", 1)[-1] for s in selects}:
            selects.append(f"{extra[0]} AS {extra[1]}")
    sql = f"SELECT {', '.join(selects)} FROM {joins.sql()}"
    sql += f" WHERE {' AND '.join(where)}" if where else ""
    sql += f" GROUP BY {', '.join([*groups, *apart])}" if groups else ""
    if groups:
        time_first = intent.groups[0].grain is not None
        direction = "ASC" if intent.ordering.ascending else "DESC"
        ranked = f" ORDER BY {measure_name} {direction}"
        sql += " ORDER BY 1" if time_first and not intent.ordering.top else ranked
    if intent.ordering.top:
        sql += f" LIMIT {intent.ordering.top}"
    return sql


def _states_it_leaves_out(intent: Intent, metric: MetricDefinition) -> bool:
    """ "o frete das tarefas canceladas": the question asks of rows in a state the metric's
    filter leaves out; those rows are what it asks, so the filter yields (else no row)."""
    return any(
        t == metric.table and metric.shape.leaves_out(c, values)
        for (t, c), values in intent.where.filters.items()
    )


def _conditions_apart(
    intent: Intent, selects: list[str], where: list[str], joins: Joins, base: str, today: str
) -> None:
    """ "quanto faturamos e quanto ficou em tarefa bloqueada": when a further clause's own
    state is on a column the first measure's metric filter tests, that filter is the first
    measure's FILTER, not every row's WHERE (the two would leave no row); so is the first
    clause's own state of that column ("quanto pelo canal A e quanto pelo B"). A clause's
    state on another table than the measured one stays a condition of every row."""
    rule = intent.measures.metric.metric if intent.measures.metric else None
    own = {
        key: values for other in intent.measures.also for key, values in other.measures.own.items()
    }
    for (table, column), values in [*own.items(), *intent.measures.own.items()]:
        if table != base:
            where.append(in_values(f"{joins.alias(table)}.{column}", values))
    tested = {c for t, c in own if t == base}
    mine = [
        in_values(f"{joins.alias(t)}.{c}", v)
        for (t, c), v in intent.measures.own.items()
        if t == base
    ]
    if not tested or not selects or " FILTER (" in selects[-1]:
        where.extend(mine)  # the first measure cannot take them alone: every row's, as before
        return
    if rule is not None and rule.filter and tested & rule.shape.filter_names:
        stated = (
            f"({qualify(rule.filter.replace('{today}', f'DATE {today!r}'), joins.alias(base))})"
        )
        if stated in where:
            where.remove(stated)
            mine.insert(0, stated[1:-1])
    if mine:
        expression, name = selects[-1].rsplit(" AS ", 1)
        said = " AND ".join(dict.fromkeys(mine))  # a state the metric also says, once
        selects[-1] = f"{expression} FILTER (WHERE {said}) AS {name}"


def _group_table(group: Group, intent: Intent, catalog: Catalog, joins: Joins) -> str:
    """The table a grouping column comes from: a mentioned one that has it, else the nearest."""
    owners = [t for t in catalog.tables if group.column in catalog.table(t).column_names]
    if group.table in owners and group.column == display_column(catalog.table(group.table)).name:
        return group.table  # "por especialidade": its own name, not another table's "nome"
    for table in [*intent.subject.tables, *joins.aliases]:
        if table in owners:
            return table
    reachable = [t for t in owners if join_path(joins.graph, set(joins.aliases), t) is not None]
    # The things themselves before the events that describe them ("UF" of the customer, not
    # of a tracking event), then the nearest.
    reachable.sort(
        key=lambda t: (
            looks_like_series(catalog.table(t)),
            len(join_path(joins.graph, set(joins.aliases), t) or []),
        )
    )
    return reachable[0] if reachable else group.table


def _filters(
    intent: Intent, catalog: Catalog, joins: Joins, today: str, base: str | None = None
) -> list[str]:
    where = []
    base = base or _base(intent)
    alias = joins.alias(base)
    metric = intent.measures.metric.metric if intent.measures.metric else None
    if metric and metric.filter and not _states_it_leaves_out(intent, metric):
        # Parenthesised: a metric's filter may hold an OR, and the other conditions are ANDed.
        where.append(f"({qualify(metric.filter.replace('{today}', f'DATE {today!r}'), alias)})")
    share = share_condition(metric) if intent.measures.aggregate == "count" else None
    if share and not counted_in_unit(intent):  # "how many no-shows": where the share holds
        where.append(f"({qualify(share, alias)})")
    where += named_conditions(intent, joins)
    for (table, column), values in intent.where.excluded.items():
        where.append(in_values(f"{joins.alias(table)}.{column}", values, negated=True))
    for table, column in intent.where.unset:
        where.append(f"{joins.alias(table)}.{column} IS NULL")
    for term in intent.measures.implied:  # "os produtos mais vendidos": the sold rows only
        rule = term.metric
        # only metrics with a filter are implied (`conditions.implied_*`)
        assert rule is not None and rule.filter is not None
        same = rule.shape.state
        if same and same[1] in intent.where.filters.get((rule.table, same[0]), []):
            continue  # the state is already asked in the question's words
        if rule.table == base or rule.table in _referred(catalog, base):
            condition = rule.filter.replace("{today}", f"DATE {today!r}")
            where.append(f"({qualify(condition, joins.alias(rule.table))})")
    for table, left, operator, right in intent.where.comparisons:
        where.append(compared(catalog.table(table), joins.alias(table), left, operator, right))
    for table, condition in intent.where.conditions:  # a definition's own wording, on its table
        stated = condition.replace("{today}", f"DATE {today!r}")
        where.append(f"({qualify(stated, joins.alias(table))})")
    for others in intent.where.without:  # "projetos sem tarefa": none of them refers to it
        where.append("NOT " + _some_of(catalog, joins, base, others, today))
    for others in intent.where.having:  # "donos que compraram em maio": some of them does
        where.append(_some_of(catalog, joins, base, others, today))
    named = named_row(intent, catalog, joins)
    if named:  # "do Empório São Jorge ME": the row of that name
        where.append(named)
    tenant_column = catalog.table(base).tenant_column
    if intent.subject.tenant_value is not None and tenant_column:
        where.append(f"{alias}.{tenant_column} = {intent.subject.tenant_value}")
    periods = intent.time.periods
    if metric and metric.shape.as_of_today:
        # "tarefas atrasadas hoje": a state already measured as of today, not rows made today
        periods = [p for p in periods if p.start.isoformat() != today or (p.end - p.start).days > 1]
    dated = rows_date(intent, catalog, joins, base) if periods else None
    if dated is not None:
        ranges = [f"({dated} >= DATE '{p.start}' AND {dated} < DATE '{p.end}')" for p in periods]
        where.append(ranges[0] if len(ranges) == 1 else f"({' OR '.join(ranges)})")
    # a definition said twice (its metric and its words), with or without parentheses
    kept: dict[str, str] = {}
    for condition in where:
        kept.setdefault(_bare(condition), condition)
    return list(kept.values())


def _some_of(catalog: Catalog, joins: Joins, base: str, others: Others, today: str) -> str:
    """EXISTS a row of the other table that refers to the base row (in its period, by its
    own date; under its condition)."""
    other, period = others.table, others.period
    table = catalog.table(other)
    alias = alias_for(other, set(joins.aliases.values())) + "0"
    join = next((j for j in table.meta.joins if j.to == base), None)
    if join is None:  # reached only through other rows: not a reference of its own
        raise Unmappable(f"{other} does not refer to {base}")
    keys = [f"{alias}.{a} = {joins.alias(base)}.{b}" for a, b in join.on.items()]
    dated = date_column(table)
    if period is not None and dated is not None:
        keys.append(f"{alias}.{dated.name} >= DATE '{period.start}'")
        keys.append(f"{alias}.{dated.name} < DATE '{period.end}'")
    if others.condition:
        stated = others.condition.replace("{today}", f"DATE {today!r}")
        keys.append(f"({qualify(stated, alias)})")
    if others.count is not None:  # "with more than 20 orders": how many of them, compared
        operator, number = others.count
        counted = f"SELECT count(*) FROM {other} AS {alias} WHERE {' AND '.join(keys)}"
        return f"({counted}) {operator} {number}"
    return f"EXISTS (SELECT 1 FROM {other} AS {alias} WHERE {' AND '.join(keys)})"


def _bare(condition: str) -> str:
    """A condition without the parentheses around all of it ("(a = 1)" → "a = 1")."""
    while condition.startswith("(") and condition.endswith(")"):
        depth = 0
        for i, char in enumerate(condition):
            depth += {"(": 1, ")": -1}.get(char, 0)
            if depth == 0 and i < len(condition) - 1:
                return condition  # "(a) OR (b)": the first parenthesis closes early
        condition = condition[1:-1]
    return condition


def _one_month(period: Period) -> bool:
    return period.start.day == 1 and (period.end - period.start).days <= 31


def _referred(catalog: Catalog, base: str) -> set[str]:
    """The tables the base's rows refer to (one row each: joining them repeats nothing)."""
    table = catalog.table(base)
    return {j.to for j in table.meta.joins if set(j.on) != {table.tenant_column}}


def _listing(intent: Intent, catalog: Catalog, joins: Joins, where: list[str]) -> str:
    base = catalog.table(_base(intent))
    alias = joins.alias(base.name)
    columns = visible_columns(base, intent, catalog)
    asked = any(t == base.name for t, _c in intent.subject.columns)
    metric = intent.measures.metric.metric if intent.measures.metric else None
    counts = metric is not None and metric.shape.aggregate != "sum"
    if (
        intent.lists_metric_rows and metric is not None and counts and not asked
    ):  # the rows a metric counts, and why
        key = key_column(base, catalog)
        defining = [c.name for c in base.columns if c.name in metric.shape.filter_names]
        columns = list(dict.fromkeys([*([key.name] if key else []), *defining])) or columns
    dated = date_column(base)
    amounts = [c.name for c in base.columns if is_measure(base, c.name)]
    key = key_column(base, catalog)
    if intent.ordering.top and amounts and key is not None and intent.ordering.sorted != "date":
        # "a maior venda": ranked by its amount
        shown = ", ".join(f"{alias}.{c}" for c in (key.name, amounts[0]))
        sql = f"SELECT {shown} FROM {joins.sql()}"
        sql += f" WHERE {' AND '.join(where)}" if where else ""
        order = "ASC" if intent.ordering.ascending else "DESC"  # "o mais barato": the least
        return sql + f" ORDER BY {alias}.{amounts[0]} {order} LIMIT {intent.ordering.top}"
    sql = f"SELECT {', '.join(named(base, alias, columns, catalog, joins))} FROM {joins.sql()}"
    sql += f" WHERE {' AND '.join(where)}" if where else ""
    order = "ASC" if intent.ordering.ascending else "DESC"
    if intent.ordering.sorted == "amount" and amounts:  # "largest first": by the rows' amount
        sql += f" ORDER BY {alias}.{amount_column(base) or amounts[0]} {order}"
    elif intent.ordering.sorted == "date" and (by := time_column(intent, catalog, base.name)):
        sql += f" ORDER BY {alias}.{by} {order}"  # "mais antigos primeiro": by their date
    elif dated is not None:  # newest first
        sql += f" ORDER BY {alias}.{dated.name} DESC"
    return sql + f" LIMIT {intent.ordering.top or LIST_LIMIT}"


def _owners(intent: Intent, catalog: Catalog, today: str) -> str:
    """ "which customers have overdue bills": the rows the filtered rows refer to, each once,
    by key and name, with how many of the filtered rows each has (the most first) — never one
    line per bill."""
    joins = Joins(catalog, _base(intent))
    where = _filters(intent, catalog, joins, today)
    metric = intent.measures.metric.metric if intent.measures.metric else None
    share = share_condition(metric) if metric else None
    if share:  # "which patients have no-shows": the rows the share counts
        where.append(f"({qualify(share, joins.alias(_base(intent)))})")
    owner = catalog.table(intent.subject.owners or "")
    alias = joins.alias(owner.name)
    key = key_column(owner, catalog)
    shown = list(dict.fromkeys([*([key.name] if key else []), display_column(owner).name]))
    columns = ", ".join(f"{alias}.{c}" for c in shown)
    base = _base(intent)
    if base == owner.name:  # the owners' own rows: nothing of theirs to count
        sql = f"SELECT DISTINCT {columns} FROM {joins.sql()}"
        sql += f" WHERE {' AND '.join(where)}" if where else ""
        return sql + f" ORDER BY {alias}.{shown[-1]} LIMIT {LIST_LIMIT}"
    counted = distinct_count(base, catalog, joins)
    sql = f"SELECT {columns}, {counted} AS {COUNTED} FROM {joins.sql()}"
    sql += f" WHERE {' AND '.join(where)}" if where else ""
    sql += f" GROUP BY {columns}"
    return sql + f" ORDER BY {COUNTED} DESC, {alias}.{shown[-1]} LIMIT {LIST_LIMIT}"


def _in_date_order(intent: Intent, catalog: Catalog, today: str) -> str:
    """The newest (or oldest) rows by their own date: "a tarefa mais recente"; of a named
    entity's related rows, "o primeiro pedido do cliente 7"."""
    base = _base(intent)
    if intent.subject.entity and not intent.measures.metric:
        related = [t for t in intent.subject.tables if t != intent.subject.entity[0]]
        base = related[0] if related else base
    table = catalog.table(base)
    joins = Joins(catalog, base)
    alias = joins.alias(base)
    dated = time_column(intent, catalog, base)
    if dated is None:
        raise Unmappable(f"{base} has no date to order by")
    where = _filters(_without_dated_states(intent, table, dated), catalog, joins, today, base)
    if not table.column(dated).not_null:  # "a última entregue": rows with that date only
        where.append(f"{alias}.{dated} IS NOT NULL")
    elif intent.ordering.recency == "DESC" and said_in_the_past(intent.question):
        # "a última tarefa que saiu": it happened, so not a row dated (planned) after today
        tomorrow = date.fromisoformat(today) + timedelta(days=1)
        where.append(f"{alias}.{dated} < DATE '{tomorrow}'")
    columns = visible_columns(table, intent, catalog)
    columns += [dated] if dated not in columns else []  # the date that puts them first
    sql = f"SELECT {', '.join(named(table, alias, columns, catalog, joins))} FROM {joins.sql()}"
    sql += f" WHERE {' AND '.join(where)}" if where else ""
    return (
        sql
        + f" ORDER BY {alias}.{dated} {intent.ordering.recency} LIMIT {intent.ordering.top or 1}"
    )


def _without_dated_states(intent: Intent, table: Table, dated: str) -> Intent:
    """ "the last one we issued": a state word that is the event the ordering date
    records ("issued" ~ "issued at") names that date, not a state; the rows it happened to
    are those with the date (no "issued" filter)."""
    spelled = words(" ".join([dated.replace("_", " "), *table.column(dated).meta.synonyms.all()]))
    starts = {w[:SHARED_START] for w in spelled if len(w) >= SHARED_START}
    kept: dict[tuple[str, str], list[str]] = {}
    for (owner, column), values in intent.where.filters.items():
        meta = table.column(column).meta if owner == table.name else None
        if meta is not None:
            values = [
                v
                for v in values
                if not any(
                    w[:SHARED_START] in starts
                    for said in (v, *meta.value_synonyms.get(v, ()))
                    for w in words(said.replace("_", " "))
                )
            ]
        if values:
            kept[(owner, column)] = values
    return intent.but(filters=kept) if kept != intent.where.filters else intent
