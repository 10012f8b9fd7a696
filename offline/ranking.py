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
from orquestra.offline.durations import AVERAGE, TIME_UNITS, is_time_taken, words_shared
from orquestra.offline.intent import Group, Intent
from orquestra.offline.lexicon import SUMMED, is_measure, tied
from orquestra.offline.phrasing import LEAD_WORDS

HIGHER_IS_BETTER = re.compile(
    r"quanto (mais|maior)[^.]*melhor|(higher|closer to 1|more|bigger|larger)[^.]*the better"
)
LOWER_IS_BETTER = re.compile(
    r"quanto (menor|menos)[^.]*melhor|(lower|smaller|less|fewer|shorter)[^.]*the better"
)
WORST = re.compile(r"\b(pior|piores|worst|weakest|mais frac[oa]s?)\b")
BEST = re.compile(r"\b(melhor|melhores|best|strongest|mais fortes?)\b")
WEAK = re.compile(r"\b(weakest|mais frac[oa]s?)\b")
BUSIEST = re.compile(r"\b(busiest|mais movimentad[oa]s?)\b")


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
    if term.metric is None or not AVERAGE.match(term.metric.expression):
        return None
    return "lower" if fold(term.metric.unit or "") in TIME_UNITS else None


def worst_and_best(intent: Intent, text: str) -> None:
    """ "a transportadora com pior OTIF": the groups ranked from the metric's worse end;
    "qual modal entrega mais rápido": a duration's shortest first ("slowest": longest).
    "o cliente com o maior valor em títulos vencidos", "the categories with the highest
    sales": the groups ranked by their measure, not by their single largest row."""
    if intent.top and intent.groups and intent.aggregate in ("max", "min"):
        intent.ascending = intent.aggregate == "min"
        intent.aggregate = None if intent.metric else "sum"
    if not intent.top or not intent.groups or intent.metric is None:
        return
    if _is_duration(intent.metric) and (FAST.search(text) or SLOW.search(text)):
        intent.ascending = bool(FAST.search(text))
        return
    direction = better(intent.metric)
    if direction is None:
        return
    if WORST.search(text):
        intent.ascending = direction == "higher"
    elif BEST.search(text):
        intent.ascending = direction == "lower"


QUANTITY_WORDS = {"quantidade", "quantity", "qtd", "qty", "unidades", "units", "volume"}
"""The languages' words for how many units a row counts (a column named or called so)."""


def most_sold(intent: Intent, catalog: Catalog) -> None:
    """ "o produto mais vendido", "the best-selling categories": ranked by the units of the
    rows tying the thing ranked to the rows the state word's metric measures (an order's
    items); with no such rows, by the metric itself."""
    if not intent.top or not intent.implied or intent.groups or intent.recency:
        return
    if intent.metric or intent.measure or intent.aggregate:
        return
    rule = intent.implied[0].metric
    assert rule is not None  # only glossary metrics are implied (`conditions.implied_*`)
    subjects = [*intent.tables, *(t for t, _c in intent.columns)]
    for table in catalog.tables.values():
        linked = {j.to for j in table.meta.joins}
        if rule.table not in linked or not linked & (set(subjects) - {rule.table}):
            continue
        for column in table.columns:
            said = {w for p in [column.name, *column.meta.synonyms.all()] for w in words(p)}
            if is_measure(table, column.name) and said & QUANTITY_WORDS:
                intent.measure, intent.aggregate = (table.name, column.name), "sum"
                intent.tables = [t for t in intent.tables if t != table.name]
                return
    if rule.table not in subjects or intent.columns:
        intent.metric = intent.implied.pop(0)  # its filter once, as the metric's


def headline(catalog: Catalog) -> GlossaryTerm | None:
    """The deployment's headline metric: the first glossary metric that sums an amount and
    is better higher (what "our best month" is best at); else the first better higher."""
    ranked = [t for t in catalog.glossary if t.metric is not None and better(t) == "higher"]
    summed = [t for t in ranked if t.metric is not None and SUMMED.match(t.metric.expression)]
    return next(iter(summed or ranked), None)


def time_ranked_alone(
    intent: Intent, tokens: list[str], grains: dict[str, str], catalog: Catalog
) -> None:
    """ "what was our best month in 2025?": a period ranked with no measure named is ranked
    by the headline metric; "the busiest month for orders", "o mês mais fraco em tarefas":
    by the rows named, counted (the weakest: the fewest)."""
    if not intent.top or intent.metric or intent.measure or intent.groups or intent.entity:
        return
    subject = next((t for t in tokens if t not in LEAD_WORDS and not t.isdigit()), None)
    if subject not in grains:
        return
    text = " ".join(tokens)
    worst = bool(WORST.search(text))
    if (BUSIEST.search(text) or BEST.search(text) or worst) and intent.tables:
        # "o mês mais fraco em tarefas concluídas": the rows named, counted, fewest first;
        # but the worst month for rows in a state may be the one with the most of them
        # ("o pior mês em tarefas canceladas"), so only "fraco"/"weakest" say fewest there
        weak = bool(WEAK.search(text)) or (worst and not intent.filters)
        intent.groups.append(Group("", "", grains[subject]))
        intent.aggregate, intent.ascending = "count", weak and not BUSIEST.search(text)
    elif BEST.search(text) or worst:
        intent.metric = headline(catalog)


FAST = re.compile(
    r"\b(rapid[oa]s?|rapidamente|fastest|quickest|faster|quicker|fast|quickly|shortest"
    r"|(leva|levam|levou|levaram|take|takes|took) (\w+ )?(menos tempo|less time))\b"
)
SLOW = re.compile(
    r"\b(lent[oa]s?|slowest|slower|slow|demorad[oa]s?|longest|demora mais|demoram mais"
    r"|(leva|levam|levou|levaram|take|takes|took) (\w+ )?(mais tempo|more time))\b"
)
SPEED_WORDS = {"rapido", "rapida", "rapidos", "rapidas", "rapidamente", "fastest", "quickest"}
SPEED_WORDS |= {"faster", "quicker", "fast", "quickly", "lento", "lenta", "lentos", "lentas"}
SPEED_WORDS |= {"slowest", "slower", "slow", "demorado", "demorada", "demorados", "demoradas"}
SPEED_WORDS |= {"longest", "shortest"}
"""The languages' words for a duration's short and long ends."""


def _is_duration(term: GlossaryTerm) -> bool:
    """An average time taken (its unit is days or hours) whose lower values are better."""
    return is_time_taken(term) and better(term) == "lower"


def _near(term: GlossaryTerm, tables: list[str], catalog: Catalog) -> bool:
    """One of `tables` is the metric's table or tied to it by a join."""
    own = term.metric.table if term.metric else ""
    return own in catalog.tables and tied(catalog, own, tables)


def speed_ranked(intent: Intent, tokens: list[str], catalog: Catalog) -> None:
    """ "qual transportadora entrega mais rápido?", "our slowest doctor": ranked by the
    glossary's duration that shares most words with the question (else its first one); a
    metric already read gives way only to a duration that shares some."""
    text = " ".join(tokens)
    if intent.measure or not (FAST.search(text) or SLOW.search(text)):
        return
    if intent.metric is not None and is_time_taken(intent.metric):
        if intent.tables:  # "which doctor had the slowest turnaround": the rows named, ranked
            intent.top = intent.top or 1
        return
    durations = [t for t in catalog.glossary if _is_duration(t)]
    shared = {term.term: len(words_shared(term, tokens, catalog)) for term in durations}
    chosen = max(durations, key=lambda term: shared[term.term], default=None)  # first of equals
    # a metric already read gives way only to a time its words are ("getting tasks approved");
    # rows named far from the time's (neither its own nor tied to them) are not ranked by it
    if chosen is not None and intent.tables and not _near(chosen, intent.tables, catalog):
        if SLOW.search(text) and not intent.recency:
            intent.recency, intent.top = "ASC", intent.top or 1  # "waiting the longest": oldest
        return
    if chosen is not None and (intent.metric is None or shared[chosen.term]):
        intent.metric, intent.top = chosen, intent.top or 1
