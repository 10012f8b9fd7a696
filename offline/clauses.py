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
from orquestra.offline.intent import Clause, Intent
from orquestra.offline.lexicon import display_column, is_measure, summed_column

CONJUNCTION = re.compile(r"(?:,\s*|\s+)(?:e|and)\s+|,\s*(?=(?:quant[oa]s?|how many)\b)")
"""Where a question may ask a second thing: "quantos … e qual o valor total", "quantas
bloqueadas, quantas canceladas"."""
ASKING = re.compile(r"\b(?:quant[oa]s?|how many|how much|qual|quais|what|which)\b")
"""Where a clause starts asking: what comes before it describes every clause's rows."""
LISTED_WITH = re.compile(
    rf"^(?:{LIST_OPENER})\b"
    r"(?!.*\b(?:quant[oa]s?|how many|how much|total|soma|sum)\b)"
    r".*\b(?:with|com|including|incluindo|contendo)\b"
)
"""Rows asked to be listed with their columns ("list the tasks with number, owner and
cost"): the columns of each row, not measures of them all."""


def several_measures(
    intent: Intent, text: str, read: Callable[[str], Intent], catalog: Catalog
) -> None:
    """ "quantos pedidos e qual o valor total", "OTIF e lead time por modal": each clause's
    own measure, over the same rows (the whole question's tables, filters, groups and
    period). `read` parses one clause; a clause that names an amount ("qual o valor") asks
    for its total."""
    if intent.entity is not None or intent.apart:  # the clauses' conditions already read
        return
    if LISTED_WITH.search(text):
        head = read(re.split(r"\b(?:with|com|including|incluindo|contendo)\b", text)[0])
        if head.tables and not head.metric:  # rows listed, then their columns
            return
    for found in CONJUNCTION.finditer(text):
        first, second = read(text[: found.start()]), read(text[found.end() :])
        for part in (first, second):
            amounts = [(t, c) for t, c in part.columns if is_measure(catalog.table(t), c)]
            if not (part.metric or part.measure or part.aggregate) and amounts:
                part.measure, part.aggregate = amounts[0], "sum"
        if not all(part.metric or part.measure or part.aggregate for part in (first, second)):
            continue
        alone = not (first.metric or first.measure or first.tables or first.filters)
        if alone and (second.metric or second.measure):
            # "o total e a média do valor": the first aggregate is of the second's subject
            first.metric, first.measure = second.metric, second.measure
            if first.measure and first.aggregate in (None, "count", "total"):
                first.aggregate = "sum"
        if _measure_of(first) == _measure_of(second):
            if _states_apart(intent, first, second, read):
                return
            continue
        if _a_condition(first, second):
            continue
        intent.metric, intent.measure = first.metric, first.measure
        intent.aggregate, intent.measured_in = first.aggregate, first.question
        # "…, quanto deu de receita e qual o ticket médio": the rest may list more
        intent.also.extend(_listed(text[found.end() :], read, catalog) or [second])
        _listed_before(intent, first.question, read, catalog)
        _states_of_their_own(intent, first)
        return
    # "em maio, tarefas concluídas, horas e custo": a list (three items or more) whose
    # first item alone names rows (their count) reads as a list once an amount is in it
    listing = text.count(",") and CONJUNCTION.search(text)  # a list has its commas
    parts = _listed(text, read, catalog) if listing else None
    if parts and len(parts) > 2 and any(part.metric or part.measure for part in parts):
        _headed_by(intent, parts)


def _states_of_their_own(intent: Intent, first: Intent) -> None:
    """ "quanto faturamos e quanto ficou parado em tarefa bloqueada": a state only a later
    clause says conditions that clause's measure, not the rows every clause measures."""
    shared = {v for values in first.filters.values() for v in values}
    said = {key: list(values) for key, values in intent.filters.items()}
    for other in intent.also:
        # "… e quanto disso já venceu": a clause measuring nothing named, the first's rows
        measured = _measured_table(other) or _measured_table(intent)
        for key, values in other.filters.items():
            own = [v for v in values if v not in shared and v in said.get(key, [])]
            if key[0] != measured or not own:
                continue  # a state of other rows describes them, not this measure
            other.own[key] = own
            intent.filters[key] = [v for v in intent.filters.get(key, []) if v not in own]
            if not intent.filters[key]:
                del intent.filters[key]
    # "quanto vendemos pelo canal A e quanto pelo B": the first clause's own state of the
    # same column conditions the first measure alone, or the second would have no rows
    theirs = {v for other in intent.also for values in other.filters.values() for v in values}
    for key in {key for other in intent.also for key in other.own}:
        mine = [v for v in first.filters.get(key, []) if v not in theirs]
        mine = [v for v in mine if v in intent.filters.get(key, [])]
        if mine:
            intent.own[key] = mine
            intent.filters[key] = [v for v in intent.filters[key] if v not in mine]
            if not intent.filters[key]:
                del intent.filters[key]


def _measured_table(part: Intent) -> str | None:
    rule = part.metric.metric if part.metric else None
    return rule.table if rule else part.measure[0] if part.measure else None


LISTED = re.compile(r",\s+|(?:,\s*|\s+)(?:e|and)\s+")
"""Where a list of measures goes on: "quantidade, custo e horas", "how many tasks, what
cost and how many hours"."""


ENDS = dict.fromkeys(("menor", "minimo", "min", "lowest", "smallest", "minimum"), "min")
ENDS |= dict.fromkeys(("maior", "maximo", "max", "highest", "largest", "biggest", "maximum"), "max")
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
        rows = not parts and not _measured(part) and bool(read(" ".join(item)).tables)
        if not _measured(part) and (set(item) <= COUNT_NAMES or rows):
            # "tarefas de maio: quantidade, …", "em maio: tarefas concluídas, …": how many
            part.aggregate = "count"
        if item and item[-1] in ENDS and len(item) <= 2:
            part.aggregate = ENDS[item[-1]]  # "menor, maior e média do valor"
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
    subject = next((p for p in reversed(parts) if p.metric or p.measure), None)
    for part in parts:
        if subject is not None and not (part.metric or part.measure or part.tables):
            part.metric, part.measure = subject.metric, subject.measure
    return parts


def _an_amount_its_table_has(part: Intent, item: list[str], catalog: Catalog) -> None:
    """A list's item that only names a table ("…, frete e peso" where the word is also the
    table's name) is that table's amount called so, summed."""
    said = {stem(w) for w in item}
    for table in part.tables:
        for column in catalog.table(table).columns:
            spelled = {
                stem(w) for s in [column.name, *column.meta.synonyms.all()] for w in words(s)
            }
            if is_measure(catalog.table(table), column.name) and said <= spelled:
                part.measure, part.aggregate = (table, column.name), "sum"
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
    intent.metric, intent.measure = head.metric, head.measure
    intent.aggregate, intent.measured_in = head.aggregate, head.question
    intent.also[:0] = parts[1:]
    if any(part.aggregate in ("min", "max") for part in parts):
        intent.top, intent.ascending = None, False


def _an_amount_is_its_total(part: Intent, catalog: Catalog) -> None:
    amounts = [(t, c) for t, c in part.columns if is_measure(catalog.table(t), c)]
    if not _measured(part) and amounts:
        part.measure, part.aggregate = amounts[0], "sum"


def _measured(part: Intent) -> bool:
    return bool(part.metric or part.measure or part.aggregate)


def _states_apart(
    intent: Intent, first: Intent, second: Intent, read: Callable[[str], Intent]
) -> bool:
    """ "quantas bloqueadas e quantas canceladas": one measure, counted under each
    clause's own states. The whole question's reading says which column each state is of
    (a clause alone may not name its table); a state both clauses say is shared. A state
    said before the first clause asks ("tarefas abertas em junho: quantas bloqueadas …",
    "das tarefas agendadas para junho, quantas …") describes every clause's rows; of the
    clauses' own column, it is the act that places them in the period, not a state."""
    said = [{v for values in part.filters.values() for v in values} for part in (first, second)]
    asking = ASKING.search(first.question)
    before = read(first.question[: asking.start()]) if asking and asking.start() else None
    leading = {v for values in before.filters.values() for v in values} if before else set()
    said[0] -= leading
    own = [said[0] - said[1], said[1] - said[0]]
    if not any(own):
        return False
    parts = [
        {
            key: [v for v in values if any(_same_state(v, m) for m in mine)]
            for key, values in intent.filters.items()
        }
        for mine in own
    ]
    intent.apart = [
        Clause(filters={key: values for key, values in part.items() if values}) for part in parts
    ]
    mine = {v for part in intent.apart for values in part.filters.values() for v in values}
    clauses_columns = {key for part in intent.apart for key in part.filters}
    for key in list(intent.filters):
        dropped = mine | (leading if key in clauses_columns else set())
        intent.filters[key] = [v for v in intent.filters[key] if v not in dropped]
        if not intent.filters[key]:
            del intent.filters[key]
    intent.metric, intent.measure = first.metric, first.measure
    intent.aggregate = first.aggregate
    return True


def _same_state(value: str, said: str) -> bool:
    """The same state, though a clause alone read it of another table, where its word has
    the other grammatical gender ("cancelled": CANCELADO of orders, CANCELADA of notes)."""
    return value == said or (
        len(value) > 4 and value[:-1] == said[:-1] and {value[-1], said[-1]} <= {"A", "O"}
    )


def _a_condition(first: Intent, second: Intent) -> bool:
    """ "quantas tarefas saíram em maio e chegaram atrasadas": a count, then a metric that
    counts rows, is one count of the rows the metric's filter keeps, not two measures."""
    rule = second.metric.metric if second.metric else None
    counts_rows = rule is not None and rule.expression.replace(" ", "").upper() == "COUNT(*)"
    return counts_rows and first.aggregate == "count" and not (first.metric or first.measure)


def _measure_of(part: Intent) -> tuple[object, ...]:
    return (part.metric.term if part.metric else None, part.measure, part.aggregate)


EXTREMES = {
    "max": r"maior|maximo|maxima|highest|largest|biggest|max|mais alt[oa]|mais car[oa]",
    "min": r"menor|minimo|minima|lowest|smallest|min|mais baix[oa]|mais barat[oa]",
    "avg": r"media|medio|average|avg|mean",
}
GROUP_RANKED = re.compile(
    r"\b(?:de|com|with|had|has|have|teve|tiveram|tem)\s+(?:(?:o|a|the)\s+)?"
    r"(?:maior|menor|highest|lowest|largest|smallest|biggest)\b"
)
"""A thing said to have the highest or lowest amount ("o mês de maior custo", "which
month had the highest revenue"): those things are ranked by their totals."""
EXTREME = re.compile("|".join(rf"\b(?P<{kind}>{said})\b" for kind, said in EXTREMES.items()))


def extremes_asked(intent: Intent, text: str, catalog: Catalog) -> None:
    """ "o maior, o menor e o frete médio", "the highest freight on a load and the average":
    an amount's maximum, minimum or average asked together are each an aggregate of the same
    rows, in the order said, not the row with the highest amount. Only of an amount (a column
    or a metric that sums one) over rows not grouped by anything but themselves."""
    kinds = list(dict.fromkeys(str(m.lastgroup) for m in EXTREME.finditer(text)))
    if len(kinds) < 2 or not {"max", "min"} & set(kinds) or intent.apart or intent.share:
        return
    if GROUP_RANKED.search(text):
        return  # "qual o mês de maior e o de menor custo": groups ranked, not rows
    parts = [intent, *intent.also]  # "o valor médio e o máximo dos títulos vencidos"
    metric = next((p.metric for p in parts if p.metric and _sums_a_column(p.metric)), None)
    measure = next((p.measure for p in parts if p.measure), None)
    if any(p.metric and not _sums_a_column(p.metric) for p in parts):
        return  # a rate or a count: no maximum of it per row
    measured = metric.metric.table if metric and metric.metric else measure[0] if measure else None
    if measured is None:
        return
    table = catalog.table(measured)
    itself = {*table.primary_key, display_column(table).name}
    if any(g.grain or g.table != measured or g.column not in itself for g in intent.groups):
        return  # "o maior e o menor frete por transportadora": groups this does not read
    intent.groups, intent.top, intent.recency = [], None, None
    intent.ascending, intent.sorted = False, None
    intent.aggregate, intent.metric, intent.measure = kinds[0], metric, measure
    intent.also = [
        Intent(intent.question, aggregate=kind, measure=measure, metric=metric)
        for kind in kinds[1:]
    ]


def _sums_a_column(term: GlossaryTerm) -> bool:
    return term.metric is not None and summed_column(term.metric.expression) is not None
