"""What a query measures: a glossary metric's expression (as an average, a maximum or a
minimum when asked so), a column's aggregate, a count (of distinct rows by their whole key),
and the further measures a question asks over the same rows ("quantos … e qual o valor
total"), each with its own condition when the clauses differ ("quantas entregues e quantas
canceladas")."""

from __future__ import annotations

import re

from orquestra.ddl_catalog.metric_shape import one_aggregate
from orquestra.ddl_catalog.model import Catalog, MetricDefinition, Table
from orquestra.ddl_catalog.text import fold, stem, words
from orquestra.offline.asking import COUNT_WORDS
from orquestra.offline.intent import Intent
from orquestra.offline.joins import Joins, in_values, qualify
from orquestra.offline.lang import mapping, word_set
from orquestra.offline.lexicon import amount_column, is_measure, spelling

NAMES = mapping("result_names")
"""How the result names a measured column by its aggregate ("media_valor", "quantidade")."""
AGGREGATE_NAMES: dict[str | None, str] = {kind: NAMES[kind] for kind in ("avg", "max", "min")}
"""How a metric's column is named when aggregated another way than the metric does."""
PREFIXES: dict[str | None, str | None] = {kind: NAMES[kind] for kind in ("avg", "sum")}
"""How a measure's column is named by its aggregate (other aggregates name themselves)."""
COUNTED = NAMES["count"]
"""The name of a count's column."""
TOTAL_WORDS = word_set("total_words")
"""The word "total", which a column's name may have without naming its amount."""
QUANTITY_ASKERS = word_set("quantity_askers")
"""Words asking how many, some of two words ("how many")."""


def metric_expression(intent: Intent) -> str:
    """The metric's expression; a total asked as an average, a maximum or a minimum ("custo
    médio de frete") aggregates the same column that way, per row."""
    rule = intent.measures.metric.metric if intent.measures.metric else None
    assert rule is not None, "a metric's expression is read only when one is asked"
    expression = rule.expression
    summed = rule.shape.summed_column
    by_period = any(g.grain for g in intent.groups)
    if summed and intent.measures.aggregate in ("avg", "max", "min") and not by_period:
        return f"{intent.measures.aggregate.upper()}({summed})"
    return expression


def extra_measure(
    other: Intent, intent: Intent, catalog: Catalog, base: str, alias: str, today: str
) -> tuple[str, str] | None:
    """Another clause's measure over the base table's rows: its metric (its own filter as
    the aggregate's FILTER when it differs), its column (or the base's column of the same
    head word: "o valor" of the rows counted), or a count; the states only its clause says
    ("… e quanto ficou em tarefa bloqueada") join its FILTER."""
    found = _clause_measure(other, intent, catalog, base, alias, today)
    own = {(t, c): values for (t, c), values in other.measures.own.items() if t == base}
    if found is None or not own:
        return found
    expression, name = found
    condition = " AND ".join(in_values(f"{alias}.{c}", values) for (_t, c), values in own.items())
    if expression.endswith(")") and " FILTER (WHERE " in expression:
        expression = f"{expression[:-1]} AND {condition})"
    else:
        expression = f"{expression} FILTER (WHERE {condition})"
    said = "_".join(fold(v) for values in own.values() for v in values)
    return expression, f"{name}_{said}"


def _clause_measure(
    other: Intent, intent: Intent, catalog: Catalog, base: str, alias: str, today: str
) -> tuple[str, str] | None:
    metric = other.measures.metric.metric if other.measures.metric else None
    if metric is not None and any(
        t == metric.table and metric.shape.leaves_out(c, values)
        for (t, c), values in other.measures.own.items()
    ):
        # "… e qual o valor total dos pedidos cancelados": the clause's own state is one its
        # metric's filter leaves out; the clause asks the amount of those rows, unfiltered
        other = other.but(metric=None, measure=None, aggregate="sum")
        metric = None
    condition = share_condition(metric) if metric and other.measures.aggregate == "count" else None
    other_term = other.measures.metric.term if other.measures.metric else ""
    if metric is not None and metric.table == base and condition:
        # "and how many of them were no-shows": the rows of the share's condition, counted
        counted, name = qualify(condition, alias), "_".join(words(other_term))
        return f"count(*) FILTER (WHERE {counted})", f"{COUNTED}_{name}"
    if metric is not None and metric.table == base:
        expression = qualify(metric_expression(other), alias)
        own = (
            intent.measures.metric.metric.filter
            if intent.measures.metric and intent.measures.metric.metric
            else None
        )
        if metric.filter and metric.filter != own:
            if not metric.shape.one_aggregate:
                return None  # a ratio of aggregates cannot take one FILTER
            condition = qualify(metric.filter.replace("{today}", f"DATE {today!r}"), alias)
            expression += f" FILTER (WHERE {condition})"
        name = "_".join(words(other_term))
        if metric_expression(other) != metric.expression:  # "a média do valor vendido"
            name = f"{AGGREGATE_NAMES[other.measures.aggregate]}_{name}"
        return expression, name
    if other.measures.measure is not None:
        table, column = other.measures.measure
        if table != base:
            head = column.split("_")[0]
            same = [c.name for c in catalog.table(base).columns if c.name.split("_")[0] == head]
            column = next((c for c in same if is_measure(catalog.table(base), c)), "")
            if not column:
                return None
        prefix = PREFIXES.get(other.measures.aggregate or "sum", other.measures.aggregate)
        return f"{other.measures.aggregate or 'sum'}({alias}.{column})", f"{prefix}_{column}"
    if other.measures.aggregate in ("sum", "total", "avg", "max", "min"):
        # "and what was the total value": the base's amount its words name
        base_table, said = catalog.table(base), set(words(other.question))
        for amount_said in base_table.columns:
            spelled = spelling(amount_said)
            if is_measure(base_table, amount_said.name) and said & set(spelled) - TOTAL_WORDS:
                aggregate = (
                    "sum" if other.measures.aggregate == "total" else other.measures.aggregate
                )
                prefix = PREFIXES.get(aggregate, aggregate)
                return f"{aggregate}({alias}.{amount_said.name})", f"{prefix}_{amount_said.name}"
        amount = amount_column(base_table)
        if amount is not None and other.measures.aggregate in ("sum", "total"):
            # "… and what did they add up to", "how much money is that": the rows' amount
            return f"sum({alias}.{amount})", f"{NAMES['sum']}_{amount}"
    if other.measures.aggregate in ("count", "total"):
        return "count(*)", COUNTED
    return None


def distinct_count(table: str, catalog: Catalog, joins: Joins) -> str:
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


def measure_sql(
    intent: Intent, catalog: Catalog, alias: str, joins: Joins | None = None
) -> tuple[str | None, str]:
    if intent.subject.distinct_table and intent.measures.aggregate == "count" and joins is not None:
        return distinct_count(intent.subject.distinct_table, catalog, joins), COUNTED
    if intent.subject.per_row and joins is not None:  # "média de tarefas por projeto"
        over = distinct_count(intent.subject.per_row, catalog, joins)
        return (
            f"count(*)::numeric / NULLIF({over}, 0)",
            f"{NAMES['avg']}_{NAMES['per']}_{intent.subject.per_row}",
        )
    metric = intent.measures.metric.metric if intent.measures.metric else None
    counts_rows = metric is not None and metric.shape.aggregate != "count"
    if intent.measures.aggregate == "count" and counts_rows and not counted_in_unit(intent):
        return "count(*)", COUNTED  # "how many overdue bills": count, with its filter
    if intent.measures.metric and intent.measures.metric.metric:
        name = "_".join(words(intent.measures.metric.term))
        expression = metric_expression(intent)
        if expression != intent.measures.metric.metric.expression:  # "custo médio de frete"
            name = f"{AGGREGATE_NAMES[intent.measures.aggregate]}_{name}"
        return qualify(expression, alias), name
    if intent.measures.measure:
        column = intent.measures.measure[1]
        prefix = PREFIXES.get(intent.measures.aggregate, intent.measures.aggregate)
        return f"{intent.measures.aggregate}({alias}.{column})", f"{prefix}_{column}"
    if intent.measures.aggregate == "count" or intent.groups:
        return "count(*)", COUNTED
    return None, ""


def share_condition(rule: MetricDefinition | None) -> str | None:
    """The condition a share metric measures the rows by ("AVG(CASE WHEN c THEN 1 ELSE 0
    END)"): counting that metric's rows ("how many no-shows") counts those where it holds.

    >>> share = "AVG(CASE WHEN a <= b THEN 1 ELSE 0 END)"
    >>> share_condition(MetricDefinition(expression=share, table="t"))
    'a <= b'
    """
    return rule.shape.share_condition if rule is not None else None


def counted_in_unit(intent: Intent) -> bool:
    """ "quantas horas extras": the count is the metric's own unit (hours), so the answer is
    the metric, not a count of its rows."""
    unit = (
        intent.measures.metric.metric.unit
        if intent.measures.metric and intent.measures.metric.metric
        else None
    )
    if not unit:
        return False
    said = words(intent.measures.measured_in or intent.question)
    return any(
        stem(word) == stem(fold(unit)) and said[index - 1] in COUNT_WORDS
        for index, word in enumerate(said)
        if index
    ) or any(
        stem(word) == stem(fold(unit)) and " ".join(said[index - 2 : index]) in QUANTITY_ASKERS
        for index, word in enumerate(said)
        if index > 1
    )


def per_clause(
    intent: Intent, measure: str, name: str, joins: Joins, catalog: Catalog
) -> list[str]:
    """ "quantas bloqueadas e quantas canceladas": the measure once per clause, each under
    its own condition as the aggregate's FILTER (what both share stays in the WHERE)."""
    if not one_aggregate(measure):
        return [f"{measure} AS {name}"]  # a ratio of aggregates cannot take one FILTER
    selects = []
    for clause in intent.measures.apart:
        conditions = []
        for (table, column), values in clause.filters.items():
            conditions.append(in_values(f"{joins.alias(table)}.{column}", values))
        for table, left, operator, right in clause.comparisons:
            owner = catalog.table(table)
            conditions.append(compared(owner, joins.alias(table), left, operator, right))
        said = "_".join(fold(v) for values in clause.filters.values() for v in values)
        where = f" FILTER (WHERE {' AND '.join(conditions)})" if conditions else ""
        selects.append(f"{measure}{where} AS {name}_{clause.label or said or NAMES['all']}")
    return selects


def compared(table: Table, alias: str, left: str, operator: str, right: str) -> str:
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


PRODUCT = re.compile(r"\b(\w+)\s*[*×]\s*(\w+)\b")
"""A product of two columns in a table's description ("quantidade * valor_unitario")."""


def item_amount(measure: str | None, catalog: Catalog, joins: Joins, base: str) -> str | None:
    """ "valor vendido por categoria": the base's amount summed over a grouping
    reached through rows that refer to it (its items) would count each amount once per
    item. When such a joined table's description defines its own amount as a product of
    its columns ("quantidade * valor_unitario"), that product is summed instead."""
    owner = catalog.table(base)
    amount = amount_column(owner)
    if measure is None or amount is None:
        return None
    if measure.replace(" ", "").lower() != f"sum({joins.alias(base)}.{amount})":
        return None
    for table in list(joins.aliases)[1:]:
        items = catalog.table(table)
        if not any(j.to == base for j in items.meta.joins):
            continue
        for text in (items.meta.description, items.meta.description_en):
            for left, right in PRODUCT.findall(text):
                if {left, right} <= set(items.column_names):
                    alias = joins.alias(table)
                    return f"sum({alias}.{left} * {alias}.{right})"
    return None
