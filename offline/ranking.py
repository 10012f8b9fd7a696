"""Which end of a ranking "pior"/"worst" and "melhor"/"best" mean. The glossary's metric
says so first (its `better`); else its definition's wording ("quanto mais perto de 1,
melhor", "the higher, the better"): for higher is better the worst is the lowest; for
lower is better, or for an average time taken (its unit is days or hours: a lead time,
not a sum of hours worked), the best is the lowest. Otherwise both rank the
most first, as "o pior cliente em atraso" (the most overdue) and "the best customer" do.

And what "mais vendido" / "best-selling" ranks by when no measure is named.

Only the languages' own words live here; the direction is read from the glossary.
"""

from __future__ import annotations

import re

from orquestra.ddl_catalog.model import Catalog, GlossaryTerm
from orquestra.ddl_catalog.text import fold, words
from orquestra.offline.durations import TIME_UNITS, is_time_taken, words_shared
from orquestra.offline.grouping import GRAINS
from orquestra.offline.intent import Group, Intent
from orquestra.offline.lang import each_language, word_set
from orquestra.offline.lexicon import is_measure, tied
from orquestra.offline.phrasing import LEAD_WORDS, spelled
from orquestra.offline.question import Question


def _the_more_the_better(more: str) -> re.Pattern[str]:
    """A glossary definition's "the more …, the better", in each language's own wording:
    one of its `more` words, then in the same sentence its "the better"."""
    return re.compile(each_language(f"{{{more}}}[^.]*{{the_better}}", any_spaces=False))


HIGHER_IS_BETTER = _the_more_the_better("the_more")
LOWER_IS_BETTER = _the_more_the_better("the_less")
WORST = re.compile(rf"\b{spelled('worst', 'weakest')}\b")
BEST = re.compile(rf"\b{spelled('best', 'strongest')}\b")
WEAK = re.compile(rf"\b{spelled('weakest')}\b")
BUSIEST = re.compile(rf"\b{spelled('busiest')}\b")


def better(term: GlossaryTerm) -> str | None:
    """ "higher" or "lower": which values of the metric are better, when the glossary says
    so (or the metric is an average time taken); None when it does not say."""
    if term.metric is not None and term.metric.better is not None:
        return term.metric.better
    said = fold(f"{term.definition} {term.definition_en}")
    if HIGHER_IS_BETTER.search(said):
        return "higher"
    if LOWER_IS_BETTER.search(said):
        return "lower"
    if term.metric is None or term.metric.shape.aggregate != "avg":
        return None
    return "lower" if fold(term.metric.unit or "") in TIME_UNITS else None


def worst_and_best(q: Question, intent: Intent) -> None:
    """ "a transportadora com pior OTIF": the groups ranked from the metric's worse end;
    "qual modal entrega mais rápido": a duration's shortest first ("slowest": longest).
    "o cliente com o maior valor em títulos vencidos", "the categories with the highest
    sales": the groups ranked by their measure, not by their single largest row."""
    text = q.text
    if intent.ordering.top and intent.groups and intent.measures.aggregate in ("max", "min"):
        intent.ordering.ascending = intent.measures.aggregate == "min"
        intent.measures.aggregate = None if intent.measures.metric else "sum"
    if not intent.ordering.top or not intent.groups or intent.measures.metric is None:
        return
    if _is_duration(intent.measures.metric) and (FAST.search(text) or SLOW.search(text)):
        intent.ordering.ascending = bool(FAST.search(text))
        return
    direction = better(intent.measures.metric)
    if direction is None:
        return
    if WORST.search(text):
        intent.ordering.ascending = direction == "higher"
    elif BEST.search(text):
        intent.ordering.ascending = direction == "lower"


QUANTITY_WORDS = word_set("quantity_words")
"""The languages' words for how many units a row counts (a column named or called so)."""


def most_sold(q: Question, intent: Intent) -> None:
    """ "o produto mais vendido", "the best-selling categories": ranked by the units of the
    rows tying the thing ranked to the rows the state word's metric measures (an order's
    items); with no such rows, by the metric itself."""
    catalog = q.catalog
    if (
        not intent.ordering.top
        or not intent.measures.implied
        or intent.groups
        or intent.ordering.recency
    ):
        return
    if intent.measures.metric or intent.measures.measure or intent.measures.aggregate:
        return
    rule = intent.measures.implied[0].metric
    assert rule is not None  # only glossary metrics are implied (`conditions.implied_*`)
    subjects = [*intent.subject.tables, *(t for t, _c in intent.subject.columns)]
    for table in catalog.tables.values():
        linked = {j.to for j in table.meta.joins}
        if rule.table not in linked or not linked & (set(subjects) - {rule.table}):
            continue
        for column in table.columns:
            said = {w for p in [column.name, *column.meta.synonyms.all()] for w in words(p)}
            if is_measure(table, column.name) and said & QUANTITY_WORDS:
                intent.measures.measure, intent.measures.aggregate = (
                    (table.name, column.name),
                    "sum",
                )
                intent.subject.tables = [t for t in intent.subject.tables if t != table.name]
                return
    if rule.table not in subjects or intent.subject.columns:
        intent.measures.metric = intent.measures.implied.pop(0)  # its filter once, as the metric's


def headline(catalog: Catalog) -> GlossaryTerm | None:
    """The deployment's headline metric: the first glossary metric that sums an amount and
    is better higher (what "our best month" is best at); else the first better higher."""
    ranked = [t for t in catalog.glossary if t.metric is not None and better(t) == "higher"]
    summed = [t for t in ranked if t.metric is not None and t.metric.shape.aggregate == "sum"]
    return next(iter(summed or ranked), None)


def time_ranked_alone(q: Question, intent: Intent) -> None:
    """ "what was our best month in 2025?": a period ranked with no measure named is ranked
    by the headline metric; "the busiest month for orders", "o mês mais fraco em tarefas":
    by the rows named, counted (the weakest: the fewest)."""
    tokens, catalog = q.tokens, q.catalog
    if (
        not intent.ordering.top
        or intent.measures.metric
        or intent.measures.measure
        or intent.groups
        or intent.subject.entity
    ):
        return
    subject = next((t for t in tokens if t not in LEAD_WORDS and not t.isdigit()), None)
    if subject not in GRAINS:
        return
    text = " ".join(tokens)
    worst = bool(WORST.search(text))
    if (BUSIEST.search(text) or BEST.search(text) or worst) and intent.subject.tables:
        # "o mês mais fraco em tarefas concluídas": the rows named, counted, fewest first;
        # but the worst month for rows in a state may be the one with the most of them
        # ("o pior mês em tarefas canceladas"), so only "fraco"/"weakest" say fewest there
        weak = bool(WEAK.search(text)) or (worst and not intent.where.filters)
        intent.groups.append(Group("", "", GRAINS[subject]))
        intent.measures.aggregate, intent.ordering.ascending = (
            "count",
            weak and not BUSIEST.search(text),
        )
    elif BEST.search(text) or worst:
        intent.measures.metric = headline(catalog)


TAKES = spelled("takes_time")
"""A verb of how long a thing takes, then at most one word ("levou bem mais tempo")."""
FAST = re.compile(rf"\b(?:{spelled('fast')}|{TAKES} (?:\w+ )?{spelled('less_time')})\b")
SLOW = re.compile(
    rf"\b(?:{spelled('slow', 'takes_longer')}|{TAKES} (?:\w+ )?{spelled('more_time')})\b"
)
SPEED_WORDS = {*word_set("fast"), *word_set("slow")}
"""The languages' words for a duration's short and long ends."""


def _is_duration(term: GlossaryTerm) -> bool:
    """An average time taken (its unit is days or hours) whose lower values are better."""
    return is_time_taken(term) and better(term) == "lower"


def _near(term: GlossaryTerm, tables: list[str], catalog: Catalog) -> bool:
    """One of `tables` is the metric's table or tied to it by a join."""
    own = term.metric.table if term.metric else ""
    return own in catalog.tables and tied(catalog, own, tables)


def speed_ranked(q: Question, intent: Intent) -> None:
    """ "qual transportadora entrega mais rápido?", "our slowest doctor": ranked by the
    glossary's duration that shares most words with the question (else its first one); a
    metric already read gives way only to a duration that shares some."""
    tokens, catalog = q.tokens, q.catalog
    text = " ".join(tokens)
    if intent.measures.measure or not (FAST.search(text) or SLOW.search(text)):
        return
    if intent.measures.metric is not None and is_time_taken(intent.measures.metric):
        if (
            intent.subject.tables
        ):  # "which doctor had the slowest turnaround": the rows named, ranked
            intent.ordering.top = intent.ordering.top or 1
        return
    durations = [t for t in catalog.glossary if _is_duration(t)]
    shared = {term.term: len(words_shared(term, tokens, catalog)) for term in durations}
    chosen = max(durations, key=lambda term: shared[term.term], default=None)  # first of equals
    # a metric already read gives way only to a time its words are ("getting tasks approved");
    # rows named far from the time's (neither its own nor tied to them) are not ranked by it
    if (
        chosen is not None
        and intent.subject.tables
        and not _near(chosen, intent.subject.tables, catalog)
    ):
        if SLOW.search(text) and not intent.ordering.recency:
            intent.ordering.recency, intent.ordering.top = (
                "ASC",
                intent.ordering.top or 1,
            )  # "waiting the longest": oldest
        return
    if chosen is not None and (intent.measures.metric is None or shared[chosen.term]):
        intent.measures.metric, intent.ordering.top = chosen, intent.ordering.top or 1
