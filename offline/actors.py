"""Who did something to one row, and when: "quem assinou o documento 12 e quando?", "who
approved order 7?". The row's reference to a table of named things whose synonyms or whose
own name the verb shares (else its only such reference) is the person asked, shown by name;
"quando"/"when" adds the date column the verb names. The verb asks no count then.

Only the languages' own words live here; the columns come from the catalog.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from orquestra.ddl_catalog.model import Catalog, Table
from orquestra.ddl_catalog.text import fold, words
from orquestra.offline.conditions import same_verb
from orquestra.offline.intent import Intent
from orquestra.offline.lang import alternation
from orquestra.offline.lang.morphology import verb_roots
from orquestra.offline.lexicon import DATE_TYPES, DISPLAY_NAMES, spelling
from orquestra.offline.question import Question

WHO = re.compile(rf"\b({alternation('who_pronoun', 'who_is')})\b")
WHEN = re.compile(rf"\b({alternation('when')})\b")


def who_did_it(q: Question, intent: Intent) -> None:
    """The person (and the date) of an action on the row the question names."""
    tokens, catalog = q.tokens, q.catalog
    text = fold(intent.question)
    if intent.subject.entity is None or not WHO.search(text) or intent.groups:
        return
    table = catalog.table(intent.subject.entity[0])
    references = {c for j in table.meta.joins for c in j.on}
    if any(t != table.name or c in references for t, c in intent.subject.columns):
        return  # "quem é o responsável pelo documento": the person already asked
    person = _person_reference(table, tokens, catalog)
    if person is None:
        return
    asked = [(table.name, person)]
    dated = _date_of_verb(table, tokens) if WHEN.search(text) else None
    asked += [(table.name, dated)] if dated else []
    # the verb's own state ("assinou": signed) is how it is asked, not a column asked
    kept = [(t, c) for t, c in intent.subject.columns if not table.column(c).meta.values]
    intent.subject.columns = list(dict.fromkeys([*asked, *kept]))
    intent.measures.metric, intent.measures.aggregate, intent.measures.implied = None, None, []
    intent.where.filters = {k: v for k, v in intent.where.filters.items() if k[0] != table.name}


def _person_reference(table: Table, tokens: Sequence[str], catalog: Catalog) -> str | None:
    """The row's single-column reference to a table of named rows; of several, the one the
    question's verb is a form of a synonym of."""
    named = []
    for join in table.meta.joins:
        target = catalog.tables.get(join.to)
        if len(join.on) != 1 or target is None or join.to == table.name:
            continue
        if next(iter(join.on)) == table.tenant_column:
            continue  # whose data it is, not who did it
        if any(name in target.column_names for name in DISPLAY_NAMES[:2]):
            named.append(next(iter(join.on)))
    if len(named) == 1:
        return named[0]
    for column in named:
        spelled = words(" ".join(table.column(column).meta.synonyms.all()))
        if any(_verb_of(token, spelled) for token in tokens):
            return column
    return None


def _date_of_verb(table: Table, tokens: Sequence[str]) -> str | None:
    """The date column the question's verb names ("assinou": "assinado em")."""
    for column in table.columns:
        if not column.type_sql.startswith(DATE_TYPES):
            continue
        spelled = spelling(column)
        if any(_verb_of(token, spelled) for token in tokens):
            return column.name
    return None


def _verb_of(token: str, spelled: list[str]) -> bool:
    roots = verb_roots(token)
    return any(w.startswith(r) for r in roots for w in spelled) or same_verb(token, spelled)
