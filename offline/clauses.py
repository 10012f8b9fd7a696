"""Several measures in one question, each clause its own: "quantos pedidos e qual o valor
total", "how many loads, what freight and how many kilos", and one measure under each
clause's own states ("quantas bloqueadas e quantas canceladas").

Each reading works on the catalog's vocabulary and the languages' own words only.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from orquestra.ddl_catalog.model import Catalog, GlossaryTerm
from orquestra.ddl_catalog.text import stem, words
from orquestra.offline.asking import COUNT_NAMES, LIST_OPENER
from orquestra.offline.intent import Clause, Intent, Measures
from orquestra.offline.lang import alternation
from orquestra.offline.lang import words as said_as
from orquestra.offline.lang.morphology import GENDER_ENDINGS, LENGTHS
from orquestra.offline.lexicon import display_column, is_measure
from orquestra.offline.question import Question

AND = alternation("and_words")
QUANTITY = alternation("quantity_askers")
CONJUNCTION = re.compile(rf"(?:,\s*|\s+){AND}\s+|,\s*(?={QUANTITY}\b)")
"""Where a question may ask a second thing: "quantos … e qual o valor total", "quantas
bloqueadas, quantas canceladas"."""
ASKING = re.compile(rf"\b{alternation('quantity_askers', 'how_much', 'which_askers')}\b")
"""Where a clause starts asking: what comes before it describes every clause's rows."""
INCLUDING = alternation("including")
LISTED_WITH = re.compile(
    rf"^(?:{LIST_OPENER})\b"
    rf"(?!.*\b{alternation('quantity_askers', 'how_much', 'total_words', 'sum_words')}\b)"
    rf".*\b{INCLUDING}\b"
)
"""Rows asked to be listed with their columns ("list the tasks with number, owner and
cost"): the columns of each row, not measures of them all."""


def several_measures(q: Question, intent: Intent) -> None:
    """ "quantos pedidos e qual o valor total", "OTIF e lead time por modal": each clause's
    own measure, over the same rows (the whole question's tables, filters, groups and
    period). `Question.read_clause` parses one clause; a clause that names an amount ("qual o
    valor") asks for its total. A clause itself is not split again (`Question.clauses`)."""
    if not q.clauses:
        return
    text, read, catalog = q.text, q.read_clause, q.catalog
    if (
        intent.subject.entity is not None or intent.measures.apart
    ):  # the clauses' conditions already read
        return
    if LISTED_WITH.search(text):
        head = read(re.split(rf"\b{INCLUDING}\b", text)[0])
        if head.subject.tables and not head.measures.metric:  # rows listed, then their columns
            return
    for found in CONJUNCTION.finditer(text):
        first, second = read(text[: found.start()]), read(text[found.end() :])
        for part in (first, second):
            amounts = [(t, c) for t, c in part.subject.columns if is_measure(catalog.table(t), c)]
            if (
                not (part.measures.metric or part.measures.measure or part.measures.aggregate)
                and amounts
            ):
                part.measures.measure, part.measures.aggregate = amounts[0], "sum"
        if not all(
            part.measures.metric or part.measures.measure or part.measures.aggregate
            for part in (first, second)
        ):
            continue
        alone = not (
            first.measures.metric
            or first.measures.measure
            or first.subject.tables
            or first.where.filters
        )
        if alone and (second.measures.metric or second.measures.measure):
            # "o total e a média do valor": the first aggregate is of the second's subject
            first.measures.metric, first.measures.measure = (
                second.measures.metric,
                second.measures.measure,
            )
            if first.measures.measure and first.measures.aggregate in (None, "count", "total"):
                first.measures.aggregate = "sum"
        if _measure_of(first) == _measure_of(second):
            if _states_apart(intent, first, second, read):
                return
            continue
        if _a_condition(first, second):
            continue
        intent.measures.metric, intent.measures.measure = (
            first.measures.metric,
            first.measures.measure,
        )
        intent.measures.aggregate, intent.measures.measured_in = (
            first.measures.aggregate,
            first.question,
        )
        # "…, quanto deu de receita e qual o ticket médio": the rest may list more
        intent.measures.also.extend(_listed(text[found.end() :], read, catalog) or [second])
        _listed_before(intent, first.question, read, catalog)
        _states_of_their_own(intent, first)
        return
    # "em maio, tarefas concluídas, horas e custo": a list (three items or more) whose
    # first item alone names rows (their count) reads as a list once an amount is in it
    listing = text.count(",") and CONJUNCTION.search(text)  # a list has its commas
    parts = _listed(text, read, catalog) if listing else None
    if (
        parts
        and len(parts) > 2
        and any(part.measures.metric or part.measures.measure for part in parts)
    ):
        _headed_by(intent, parts)


def _states_of_their_own(intent: Intent, first: Intent) -> None:
    """ "quanto faturamos e quanto ficou parado em tarefa bloqueada": a state only a later
    clause says conditions that clause's measure, not the rows every clause measures."""
    shared = {v for values in first.where.filters.values() for v in values}
    said = {key: list(values) for key, values in intent.where.filters.items()}
    for other in intent.measures.also:
        # "… e quanto disso já venceu": a clause measuring nothing named, the first's rows
        measured = _measured_table(other) or _measured_table(intent)
        for key, values in other.where.filters.items():
            own = [v for v in values if v not in shared and v in said.get(key, [])]
            if key[0] != measured or not own:
                continue  # a state of other rows describes them, not this measure
            other.measures.own[key] = own
            intent.where.filters[key] = [
                v for v in intent.where.filters.get(key, []) if v not in own
            ]
            if not intent.where.filters[key]:
                del intent.where.filters[key]
    # "quanto vendemos pelo canal A e quanto pelo B": the first clause's own state of the
    # same column conditions the first measure alone, or the second would have no rows
    theirs = {
        v
        for other in intent.measures.also
        for values in other.where.filters.values()
        for v in values
    }
    for key in {key for other in intent.measures.also for key in other.measures.own}:
        mine = [v for v in first.where.filters.get(key, []) if v not in theirs]
        mine = [v for v in mine if v in intent.where.filters.get(key, [])]
        if mine:
            intent.measures.own[key] = mine
            intent.where.filters[key] = [v for v in intent.where.filters[key] if v not in mine]
            if not intent.where.filters[key]:
                del intent.where.filters[key]


def _measured_table(part: Intent) -> str | None:
    rule = part.measures.metric.metric if part.measures.metric else None
    return rule.table if rule else part.measures.measure[0] if part.measures.measure else None


LISTED = re.compile(rf",\s+|(?:,\s*|\s+){AND}\s+")
"""Where a list of measures goes on: "quantidade, custo e horas", "how many tasks, what
cost and how many hours"."""


ENDS = dict.fromkeys((*said_as("smallest"), *said_as("minimum")), "min")
ENDS |= dict.fromkeys((*said_as("largest"), *said_as("maximum")), "max")
"""A list's item that is only an end of a range asks for it ("menor, maior e média")."""


def _listed(said: str, read: Callable[[str], Intent], catalog: Catalog) -> list[Intent] | None:
    """The measures `said` lists, each its own (an amount named is its total), when it lists
    two or more and nothing else; what leads the first ("in Q1,", "tarefas de maio:")
    belongs to it."""
    parts: list[Intent] = []
    leading = ""
    for piece in LISTED.split(said):
        part = read(f"{leading}, {piece}" if leading else piece)
        _an_amount_is_its_total(part, catalog)
        item = words(piece.split(":")[-1])
        if parts and not _measured(part):
            _an_amount_its_table_has(part, item, catalog)  # "…, custo e horas"
        # the first item names rows (read alone only when nothing else measured it)
        rows = not parts and not _measured(part) and bool(read(" ".join(item)).subject.tables)
        if not _measured(part) and (set(item) <= COUNT_NAMES or rows):
            # "tarefas de maio: quantidade, …", "em maio: tarefas concluídas, …": how many
            part.measures.aggregate = "count"
        if item and item[-1] in ENDS and len(item) <= 2:
            part.measures.aggregate = ENDS[item[-1]]  # "menor, maior e média do valor"
        if _measured(part):
            parts.append(part)
            leading = ""
        elif parts:
            return None  # something not a measure inside the list: not a list of measures
        else:
            leading = part.question
    if len(parts) < 2 or leading:
        return None
    # "o menor, o maior e a média do valor": an aggregate alone is of the last one's amount
    subject = next((p for p in reversed(parts) if p.measures.metric or p.measures.measure), None)
    for part in parts:
        if subject is not None and not (
            part.measures.metric or part.measures.measure or part.subject.tables
        ):
            part.measures.metric, part.measures.measure = (
                subject.measures.metric,
                subject.measures.measure,
            )
    return parts


def _an_amount_its_table_has(part: Intent, item: list[str], catalog: Catalog) -> None:
    """A list's item that only names a table ("…, frete e peso" where the word is also the
    table's name) is that table's amount called so, summed."""
    said = {stem(w) for w in item}
    for table in part.subject.tables:
        for column in catalog.table(table).columns:
            spelled = {
                stem(w) for s in [column.name, *column.meta.synonyms.all()] for w in words(s)
            }
            if is_measure(catalog.table(table), column.name) and said <= spelled:
                part.measures.measure, part.measures.aggregate = (table, column.name), "sum"
                return


def _listed_before(
    intent: Intent, said: str, read: Callable[[str], Intent], catalog: Catalog
) -> None:
    """ "how many loads did we dispatch, what did we spend on freight and how many kilos":
    the measures listed before the last clause, each its own."""
    parts = _listed(said, read, catalog)
    if not parts:
        return
    _headed_by(intent, parts)


def _headed_by(intent: Intent, parts: list[Intent]) -> None:
    """The question measures `parts`: the first leads, the others follow it (before any
    measure already following). A list's "menor"/"maior" was an end asked, not a ranking."""
    head = parts[0]
    intent.measures.metric, intent.measures.measure = head.measures.metric, head.measures.measure
    intent.measures.aggregate, intent.measures.measured_in = head.measures.aggregate, head.question
    intent.measures.also[:0] = parts[1:]
    if any(part.measures.aggregate in ("min", "max") for part in parts):
        intent.ordering.top, intent.ordering.ascending = None, False


def _an_amount_is_its_total(part: Intent, catalog: Catalog) -> None:
    amounts = [(t, c) for t, c in part.subject.columns if is_measure(catalog.table(t), c)]
    if not _measured(part) and amounts:
        part.measures.measure, part.measures.aggregate = amounts[0], "sum"


def _measured(part: Intent) -> bool:
    return bool(part.measures.metric or part.measures.measure or part.measures.aggregate)


def _states_apart(
    intent: Intent, first: Intent, second: Intent, read: Callable[[str], Intent]
) -> bool:
    """ "quantas bloqueadas e quantas canceladas": one measure, counted under each
    clause's own states. The whole question's reading says which column each state is of
    (a clause alone may not name its table); a state both clauses say is shared. A state
    said before the first clause asks ("tarefas abertas em junho: quantas bloqueadas …",
    "das tarefas agendadas para junho, quantas …") describes every clause's rows; of the
    clauses' own column, it is the act that places them in the period, not a state."""
    said = [
        {v for values in part.where.filters.values() for v in values} for part in (first, second)
    ]
    asking = ASKING.search(first.question)
    before = read(first.question[: asking.start()]) if asking and asking.start() else None
    leading = {v for values in before.where.filters.values() for v in values} if before else set()
    said[0] -= leading
    own = [said[0] - said[1], said[1] - said[0]]
    if not any(own):
        return False
    parts = [
        {
            key: [v for v in values if any(_same_state(v, m) for m in mine)]
            for key, values in intent.where.filters.items()
        }
        for mine in own
    ]
    intent.measures.apart = [
        Clause(filters={key: values for key, values in part.items() if values}) for part in parts
    ]
    mine = {v for part in intent.measures.apart for values in part.filters.values() for v in values}
    clauses_columns = {key for part in intent.measures.apart for key in part.filters}
    for key in list(intent.where.filters):
        dropped = mine | (leading if key in clauses_columns else set())
        intent.where.filters[key] = [v for v in intent.where.filters[key] if v not in dropped]
        if not intent.where.filters[key]:
            del intent.where.filters[key]
    intent.measures.metric, intent.measures.measure = first.measures.metric, first.measures.measure
    intent.measures.aggregate = first.measures.aggregate
    return True


GENDERS = {end.upper() for end in GENDER_ENDINGS}
"""A state's gender endings, as the catalog spells its values ("CANCELADO", "CANCELADA")."""


def _same_state(value: str, said: str) -> bool:
    """The same state, though a clause alone read it of another table, where its word has
    the other grammatical gender ("cancelled": CANCELADO of orders, CANCELADA of notes)."""
    return value == said or (
        len(value) > LENGTHS.short_root
        and value[:-1] == said[:-1]
        and {value[-1], said[-1]} <= GENDERS
    )


def _a_condition(first: Intent, second: Intent) -> bool:
    """ "quantas tarefas saíram em maio e chegaram atrasadas": a count, then a metric that
    counts rows, is one count of the rows the metric's filter keeps, not two measures."""
    rule = second.measures.metric.metric if second.measures.metric else None
    counts_rows = rule is not None and rule.shape.counts_rows
    return (
        counts_rows
        and first.measures.aggregate == "count"
        and not (first.measures.metric or first.measures.measure)
    )


def _measure_of(part: Intent) -> tuple[object, ...]:
    return (
        part.measures.metric.term if part.measures.metric else None,
        part.measures.measure,
        part.measures.aggregate,
    )


EXTREMES = {
    "max": alternation("extreme_max"),
    "min": alternation("extreme_min"),
    "avg": alternation("asks_average"),
}
GROUP_RANKED = re.compile(
    rf"\b{alternation('superlative_links')}\s+(?:{alternation('singular_articles')}\s+)?"
    rf"{alternation('largest', 'smallest')}\b"
)
"""A thing said to have the highest or lowest amount ("o mês de maior custo", "which
month had the highest revenue"): those things are ranked by their totals."""
EXTREME = re.compile("|".join(rf"\b(?P<{kind}>{said})\b" for kind, said in EXTREMES.items()))


def extremes_asked(q: Question, intent: Intent) -> None:
    """ "o maior, o menor e o frete médio", "the highest freight on a load and the average":
    an amount's maximum, minimum or average asked together are each an aggregate of the same
    rows, in the order said, not the row with the highest amount. Only of an amount (a column
    or a metric that sums one) over rows not grouped by anything but themselves."""
    if not q.clauses:
        return
    text, catalog = q.text, q.catalog
    kinds = list(dict.fromkeys(str(m.lastgroup) for m in EXTREME.finditer(text)))
    if (
        len(kinds) < 2
        or not {"max", "min"} & set(kinds)
        or intent.measures.apart
        or intent.measures.share
    ):
        return
    if GROUP_RANKED.search(text):
        return  # "qual o mês de maior e o de menor custo": groups ranked, not rows
    parts = [intent, *intent.measures.also]  # "o valor médio e o máximo dos títulos vencidos"
    metric = next(
        (
            p.measures.metric
            for p in parts
            if p.measures.metric and _sums_a_column(p.measures.metric)
        ),
        None,
    )
    measure = next((p.measures.measure for p in parts if p.measures.measure), None)
    if any(p.measures.metric and not _sums_a_column(p.measures.metric) for p in parts):
        return  # a rate or a count: no maximum of it per row
    measured = metric.metric.table if metric and metric.metric else measure[0] if measure else None
    if measured is None:
        return
    table = catalog.table(measured)
    itself = {*table.primary_key, display_column(table).name}
    if any(g.grain or g.table != measured or g.column not in itself for g in intent.groups):
        return  # "o maior e o menor frete por transportadora": groups this does not read
    intent.groups, intent.ordering.top, intent.ordering.recency = [], None, None
    intent.ordering.ascending, intent.ordering.sorted = False, None
    intent.measures.aggregate, intent.measures.metric, intent.measures.measure = (
        kinds[0],
        metric,
        measure,
    )
    intent.measures.also = [
        Intent(intent.question, measures=Measures(aggregate=kind, measure=measure, metric=metric))
        for kind in kinds[1:]
    ]


def _sums_a_column(term: GlossaryTerm) -> bool:
    return term.metric is not None and term.metric.shape.summed_column is not None
