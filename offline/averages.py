"""An average count of rows per row of another table: "média de itens por pedido", "on
average, how many orders did each customer place", "quantas tarefas em média por projeto".
The rows counted are a table the question names right after the average or counting words;
the rows they are averaged over are the table it groups by, which the counted rows refer to.
Not an average of an amount per group ("ticket médio por cliente"), which names an amount.

Like the parser, it reads the catalog's vocabulary and the languages' own words only.
"""

from __future__ import annotations

import re

from orquestra.ddl_catalog.model import Catalog
from orquestra.offline.intent import Intent
from orquestra.offline.lexicon import display_column, is_measure
from orquestra.offline.phrasing import spelled
from orquestra.offline.question import Question

AVERAGE = re.compile(rf"\b{spelled('average_noun', 'average_adjective')}\b")
COUNTED = re.compile(
    rf"\b{spelled('average_noun')}\s+{spelled('average_counted_links')}\s+(?P<averaged>[a-z]+)"
    rf"|\b{spelled('how_many')}\s+(?P<counted>[a-z]+)"
)
"""The rows counted: the word after "média de", "average number of", "quantos", "how many"."""


def average_per_row(q: Question, intent: Intent) -> None:
    """The count of the rows named, over the distinct rows of the one table grouped by that
    they refer to: one number, not a count per group."""
    tokens, matches, text, catalog = q.tokens, q.matches, q.text, q.catalog
    found = COUNTED.search(text) if AVERAGE.search(text) else None
    if (
        found is None
        or intent.subject.entity is not None
        or intent.measures.apart
        or intent.measures.share
    ):
        return
    if intent.measures.metric is not None:
        return  # a metric's average is its own
    grouped = [g for g in intent.groups if g.table and not g.grain]
    if len(grouped) != 1 or len(intent.groups) != 1:
        return
    per = grouped[0].table
    itself = {*catalog.table(per).primary_key, display_column(catalog.table(per)).name}
    if grouped[0].column not in itself:
        return  # "média de tarefas por prioridade": per a kind, not per row of a table
    word = found.group("averaged") or found.group("counted")
    at = [i for i, t in enumerate(tokens) if t == word]
    said = [m for start, end, meanings in matches if at and start <= at[0] < end for m in meanings]
    if any(m.kind == "column" and is_measure(catalog.table(m.table), m.column) for m in said):
        return  # "média de custo por dono": an amount's average, grouped
    named = [m.table for m in said if m.kind == "table"]
    counted = next((t for t in named if t != per and _refers_by_own_key(t, per, catalog)), None)
    if counted is None:
        return
    intent.subject.per_row, intent.groups, intent.measures.measure = per, [], None
    intent.measures.aggregate, intent.ordering.top, intent.measures.also = "avg", None, []
    intent.subject.tables = [
        counted,
        *(t for t in intent.subject.tables if t not in (counted, per) and t not in named),
    ]


def _refers_by_own_key(table: str, other: str, catalog: Catalog) -> bool:
    """`table`'s rows refer to `other`'s by a column of their own, not only the tenant's
    (each row of the tenant's own table is the whole tenant: nothing to average over)."""
    tenant = catalog.table(other).tenant_column
    return any(
        j.to == other and any(remote != tenant for remote in j.on.values())
        for j in catalog.table(table).meta.joins
    )
