"""A state said not to have been reached yet ("tarefas ainda não aprovadas", "tasks we
haven't approved yet"): the states listed before it in the catalog's enumeration of the
column (a lifecycle, in its order), not every other state (a cancelled row never reaches
it either, and is not waiting for it). A state said to hold today is the rows in it now.

Only the languages' own words live here; the states and their order come from the catalog.
"""

from __future__ import annotations

import re

from orquestra.ddl_catalog.model import Catalog
from orquestra.ddl_catalog.text import fold, words
from orquestra.offline.dating import said_in_the_past
from orquestra.offline.intent import Intent
from orquestra.offline.lang import alternation
from orquestra.offline.lang.morphology import LENGTHS, shares_root
from orquestra.offline.lexicon import DATE_TYPES
from orquestra.offline.question import Question

YET = re.compile(rf"\b{alternation('awaiting')}\b")
SHARED = LENGTHS.root
"""Letters of a state's word compared with the word a meaning negates ("entreg"): a root."""


def not_yet(q: Question, intent: Intent) -> None:
    """Each excluded single state, said with "ainda"/"yet", becomes the states before it."""
    text, catalog = q.text, q.catalog
    if not YET.search(text):
        return
    rule = intent.measures.metric.metric if intent.measures.metric else None
    for (table, column), values in list(intent.where.excluded.items()):
        meanings = catalog.table(table).column(column).meta.values
        listed = list(meanings)
        stated = (table, column) in intent.where.filters or (
            rule is not None and rule.table == table and column.lower() in rule.shape.fixed_columns
        )
        if rule is not None and rule.table == table and rule.shape.leaves_out(column, values):
            del intent.where.excluded[table, column]  # "ainda a receber, tudo que não foi pago"
            continue  # its metric's own filter already leaves these states out
        if len(values) != 1 or values[0] not in listed or stated:
            continue  # the question, or its metric, already says which state
        at = listed.index(values[0])
        before = listed[:at] + [v for v in listed[at + 1 :] if _not_yet(meanings[v], values[0])]
        if not listed[:at]:
            continue
        del intent.where.excluded[table, column]
        states = intent.where.filters.setdefault((table, column), [])
        states.extend(v for v in before if v not in states)


NOT = re.compile(rf"\b{alternation('plain_negation')}\s+(\w+)(?:\s+(\w+))?")


def _not_yet(meaning: str, state: str) -> bool:
    """A later state whose meaning says the rows are still not in `state` ("ATRASADA: ainda
    não entregue"): waiting for it too.

    >>> _not_yet("Ainda não entregue e com a previsão vencida.", "ENTREGUE")
    True
    >>> _not_yet("Cancelada; não conta como atrasada.", "ENTREGUE")
    False
    """
    root = fold(state).split("_")[0][:SHARED]
    said = [w for pair in NOT.findall(fold(meaning or "")) for w in pair]
    return any(w.startswith(root) for w in said)


DID = re.compile(rf"\b({alternation('did')})\b")
"""The languages' verb for doing a thing, asked of the rows done ("as tarefas que ele fez")."""
DONE = re.compile(rf"^[^;.]*\b({alternation('done')})\b")
"""A state whose meaning says the row was done ("Tarefa feita; ...")."""


def done_state(q: Question, intent: Intent) -> None:
    """ "qual técnico fez menos tarefas": the rows in the state whose meaning says they were
    done, when exactly one state of the rows named says so and none is asked already."""
    text, catalog = q.text, q.catalog
    if not DID.search(text) or intent.measures.metric or intent.measures.measure:
        return
    for table in intent.subject.tables:
        if any(t == table for t, _c in [*intent.where.filters, *intent.where.excluded]):
            continue
        done = [
            (column.name, value)
            for column in catalog.table(table).columns
            for value, meaning in column.meta.values.items()
            if DONE.search(fold(meaning))
        ]
        if len(done) == 1:
            column, value = done[0]
            intent.where.filters[table, column] = [value]
            return


PRESENT = re.compile(rf"\b{alternation('linking_present')}\b")
"""Linking verbs in the present: the rows are in the state now."""


def state_today(q: Question, intent: Intent) -> None:
    """ "quantas tarefas estão bloqueadas hoje?", "how many tasks are on hold today?": a
    state said to hold today is the rows in it now, not those made today (their date is
    not today's). Said in the past ("foram bloqueadas hoje") it stays a day, and so does a
    state that has a date of its own ("scheduled today": the scheduled date is today)."""
    text, today, catalog = q.text, q.today, q.catalog
    # a balance the glossary measures as it stands ("saldo em aberto hoje") is now, said
    # with a verb or not
    balance = (
        intent.measures.metric is not None
        and intent.measures.metric.metric is not None
        and intent.measures.metric.metric.snapshot
    )
    # ("venceram hoje": said in the past, what fell due today)
    balance = balance or (_a_balances_state(intent, catalog) and not said_in_the_past(text))
    stated = (intent.where.filters or intent.where.conditions) and PRESENT.search(text)
    if not (stated or balance):
        return
    # (a balance stays now even where its state's word shares a date's: "o cliente com mais
    # dinheiro vencido hoje" is who owes most now, not what fell due today)
    if len(intent.time.periods) != 1 or (_dated_state(intent, catalog) and not balance):
        return
    period = intent.time.periods[0]
    if period.start == today and (period.end - period.start).days == 1:
        intent.time.periods, intent.time.period, intent.asked.current = [], None, True


def _a_balances_state(intent: Intent, catalog: Catalog) -> bool:
    """The rows said are in the state a balance the glossary measures as it stands keeps
    ("dinheiro vencido": the overdue balance's state), whether or not its name was said."""
    return any(
        rule.snapshot and rule.table == table and any(v in rule.shape.kept_values for v in values)
        for (table, _column), values in intent.where.filters.items()
        for rule in (term.metric for term in catalog.glossary)
        if rule is not None and rule.filter
    )


def _dated_state(intent: Intent, catalog: Catalog) -> bool:
    """A state said by a word a date column of its table shares ("agendados" and the
    scheduled date): the day is that date's."""
    said = words(intent.question)
    for table, _column in intent.where.filters:
        for column in catalog.table(table).columns:
            if column.type_sql.startswith(DATE_TYPES):
                named = [column.name.replace("_", " "), *column.meta.synonyms.all()]
                if any(shares_root(word, words(" ".join(named))) for word in said):
                    return True
    return False
