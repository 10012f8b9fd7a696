"""A yes-or-no column said of the rows: "médicos ativos", "active customers", "products not
discontinued". The catalog's boolean column (or one whose only values are 0 and 1), named by
the question beside the rows it belongs to, keeps the rows where it holds — or, negated,
where it does not. Unread, it would count every row.
"""

from __future__ import annotations

from orquestra.ddl_catalog.model import Column
from orquestra.offline.intent import Intent
from orquestra.offline.lexicon import NEGATIONS
from orquestra.offline.question import Question

BOOLEAN = ("bool",)
"""PostgreSQL's boolean type, as its name starts."""
ZERO_ONE = frozenset({"0", "1"})
"""The values of a yes-or-no column kept as a number."""


def is_flag(column: Column) -> bool:
    """The column says yes or no: boolean, or listed with the values 0 and 1 only."""
    return column.type_sql.lower().startswith(BOOLEAN) or (
        bool(column.meta.values) and set(column.meta.values) <= ZERO_ONE
    )


def flags_said(q: Question, intent: Intent) -> None:
    """Each yes-or-no column of the rows asked that the question names is a condition on
    them: it holds, or (a negation in the two words before it) it does not."""
    for start, _end, meanings in q.matches:
        for meaning in meanings:
            said = (meaning.table, meaning.column)
            if meaning.kind != "column" or said not in intent.subject.columns:
                continue
            if meaning.table not in intent.subject.tables:
                continue
            column = q.catalog.table(meaning.table).column(meaning.column)
            if not is_flag(column):
                continue
            holds = (
                column.name if column.type_sql.lower().startswith(BOOLEAN) else f"{column.name} = 1"
            )
            negated = any(t in NEGATIONS for t in q.tokens[max(0, start - 2) : start])
            intent.where.conditions.append((meaning.table, f"NOT ({holds})" if negated else holds))
            intent.subject.columns = [c for c in intent.subject.columns if c != said]
