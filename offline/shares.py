"""Shares: "what percentage of our tasks came in through the portal", "quanto % da receita
veio do projeto 7". The measure of the rows the question's own conditions keep (its states, the
row it names), as a percentage of the same measure over all the rows it asks about (its
period and its metric's own filter stay for both).

Like the parser, it reads the catalog's vocabulary and the languages' own words only.
"""

from __future__ import annotations

import re

from orquestra.offline.intent import Intent
from orquestra.offline.joins import Joins, in_values
from orquestra.offline.lang import alternation, first_word, words
from orquestra.offline.question import Question

PERCENT = re.compile(rf"%|\b{alternation('percent')}\b")
SHARE_NAME = first_word("group_share_result_name")
"""How the result names a percentage ("percentual")."""


def share_asked(q: Question, intent: Intent) -> None:
    """A percentage asked of rows the question narrows (a state, a named row), when its
    metric is not a rate of its own ("percentual de entregas no prazo" is OTIF)."""
    text = q.text
    if not PERCENT.search(text) or not (intent.where.filters or intent.subject.entity):
        return
    rule = intent.measures.metric.metric if intent.measures.metric else None
    if rule is not None and not rule.shape.simple:
        return
    if rule is not None and rule.shape.has_case:
        return  # a rate ("AVG(CASE … END)"): already a share, its conditions narrow its rows
    intent.measures.share = True
    if not (intent.measures.metric or intent.measures.measure or intent.measures.aggregate):
        intent.measures.aggregate = "count"


SHARE_VERBS = "|".join(
    rf"{re.escape(verb)}\w*{re.escape(' ' + rest) if rest else ''}"
    for verb, _, rest in (phrase.partition(" ") for phrase in words("share_verbs"))
)
"""The verbs of a group's part of the whole, each matched at a word's start ("representa",
"accounted for")."""
EACH = re.compile(rf"\b(?:{alternation('group_markers')}|{SHARE_VERBS})\b")


def group_shares(q: Question, intent: Intent) -> None:
    """ "participação de cada dono no custo, em %", "what share of the tasks does each
    team account for": each group's part of the whole, in percent, beside its figure (the
    question's states narrow the whole, not the part)."""
    text = q.text
    groups = [g for g in intent.groups if not g.grain]
    if len(groups) != 1 or intent.ordering.top or not PERCENT.search(text) or not EACH.search(text):
        return
    rule = intent.measures.metric.metric if intent.measures.metric else None
    if rule is not None and not rule.shape.simple:
        return  # a rate per group ("OTIF por transportadora") is its own percentage
    intent.measures.group_shares, intent.measures.share = True, False
    if not (intent.measures.metric or intent.measures.measure or intent.measures.aggregate):
        intent.measures.aggregate = "count"


def of_all(intent: Intent) -> Intent:
    """The rows the share is taken of: the question without the conditions of its part."""
    return intent.but(filters={}, entity=None, share=False)


def named_conditions(intent: Intent, joins: Joins) -> list[str]:
    """The question's states (`column = 'V'` or `IN (…)`) and the row it names, as SQL."""
    conditions = []
    for (table, column), values in intent.where.filters.items():
        conditions.append(in_values(f"{joins.alias(table)}.{column}", values))
    if intent.subject.entity:
        table, column, number = intent.subject.entity
        conditions.append(f"{joins.alias(table)}.{column} = {number}")
    return conditions


def share_select(intent: Intent, measure: str, joins: Joins) -> str:
    """ "100.0 * measure FILTER (WHERE the part's conditions) / measure": one percentage.

    The part's conditions are the question's states and the row it names."""
    part = f"{measure} FILTER (WHERE {' AND '.join(named_conditions(intent, joins))})"
    return f"100.0 * {part} / NULLIF({measure}, 0) AS {SHARE_NAME}"
