"""Shares: "what percentage of our tasks came in through the portal", "quanto % da receita
veio do projeto 7". The measure of the rows the question's own conditions keep (its states, the
row it names), as a percentage of the same measure over all the rows it asks about (its
period and its metric's own filter stay for both).

Like the parser, it reads the catalog's vocabulary and the languages' own words only.
"""

from __future__ import annotations

import re
from dataclasses import replace

from orquestra.offline.intent import Intent
from orquestra.offline.joins import Joins, in_values

PERCENT = re.compile(
    r"%|\b(?:percentual|porcentagem|percentagem|proporcao|participacao|fatia|parcela"
    r"|percentage|percent|share|proportion|fraction)\b"
)
SIMPLE = re.compile(r"\s*\w+\([^()]*\)\s*")


def share_asked(intent: Intent, text: str) -> None:
    """A percentage asked of rows the question narrows (a state, a named row), when its
    metric is not a rate of its own ("percentual de entregas no prazo" is OTIF)."""
    if not PERCENT.search(text) or not (intent.filters or intent.entity):
        return
    rule = intent.metric.metric if intent.metric else None
    if rule is not None and not SIMPLE.fullmatch(rule.expression):
        return
    if rule is not None and re.search(r"\bcase\b", rule.expression, re.IGNORECASE):
        return  # a rate ("AVG(CASE … END)"): already a share, its conditions narrow its rows
    intent.share = True
    if not (intent.metric or intent.measure or intent.aggregate):
        intent.aggregate = "count"


EACH = re.compile(r"\b(?:cada|each|per|por|by|represent\w*|account\w* for|responde\w* por)\b")


def group_shares(intent: Intent, text: str) -> None:
    """ "participação de cada dono no custo, em %", "what share of the tasks does each
    team account for": each group's part of the whole, in percent, beside its figure (the
    question's states narrow the whole, not the part)."""
    groups = [g for g in intent.groups if not g.grain]
    if len(groups) != 1 or intent.top or not PERCENT.search(text) or not EACH.search(text):
        return
    rule = intent.metric.metric if intent.metric else None
    if rule is not None and not SIMPLE.fullmatch(rule.expression):
        return  # a rate per group ("OTIF por transportadora") is its own percentage
    intent.group_shares, intent.share = True, False
    if not (intent.metric or intent.measure or intent.aggregate):
        intent.aggregate = "count"


def of_all(intent: Intent) -> Intent:
    """The rows the share is taken of: the question without the conditions of its part."""
    return replace(intent, filters={}, entity=None, share=False)


def named_conditions(intent: Intent, joins: Joins) -> list[str]:
    """The question's states (`column = 'V'` or `IN (…)`) and the row it names, as SQL."""
    conditions = []
    for (table, column), values in intent.filters.items():
        conditions.append(in_values(f"{joins.alias(table)}.{column}", values))
    if intent.entity:
        table, column, number = intent.entity
        conditions.append(f"{joins.alias(table)}.{column} = {number}")
    return conditions


def share_select(intent: Intent, measure: str, joins: Joins) -> str:
    """ "100.0 * measure FILTER (WHERE the part's conditions) / measure": one percentage.

    The part's conditions are the question's states and the row it names."""
    part = f"{measure} FILTER (WHERE {' AND '.join(named_conditions(intent, joins))})"
    return f"100.0 * {part} / NULLIF({measure}, 0) AS percentual"
