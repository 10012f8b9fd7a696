"""Readings about a row's deadline: done on time or late ("assinados dentro do prazo",
"arrived late"), both counted apart when both are asked ("quantos no prazo e quantos
fora"), and past the deadline while still not done ("past their promised date and still
not delivered", "com o prazo estourado e ainda sem assinatura").

A table's deadline is the date column the catalog calls so (a deadline word in its name or
synonyms); what is done by it is the nullable date column the question's verb names. Where
a glossary metric already defines the condition, its wording and its date are used.

Like the parser, they read the catalog's vocabulary and the languages' own words only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from orquestra.ddl_catalog.model import Catalog, Column, Table
from orquestra.ddl_catalog.text import fold
from orquestra.offline import lang
from orquestra.offline.conditions import same_verb
from orquestra.offline.intent import Clause, Intent
from orquestra.offline.lang.morphology import LENGTHS, NEGATING_PREFIXES
from orquestra.offline.lexicon import DATE_TYPES, NEGATIONS, shares_root, spelling
from orquestra.offline.periods import either
from orquestra.offline.question import Question
from orquestra.offline.shares import PERCENT

DEADLINE_WORDS = lang.words("deadline_words")
DEADLINE = re.compile(rf"\b{either('deadline_words')}\b")
ON_TIME = re.compile(rf"\b{either('on_time')}\b")
LATE = re.compile(rf"\b{either('late')}\b")
LATE_SHORT = re.compile(rf"\b{either('late_short')}\b")
"""Said after an on-time clause, the other side: "quantos no prazo e quantos fora"."""
PASSED = re.compile(rf"\b{either('deadline_passed')}\b")
NEGATED = set(NEGATIONS)
HAVING = lang.word_set("having_before_no")
"""Words before "no <noun>" that say the noun is missing ("have no signature")."""
NONE_OF = lang.word_set("no_quantifier")
"""The word that says a noun is missing after `HAVING` ("no signature")."""
RESULT_NAMES = lang.mapping("deadline_result_names")
"""How the result names the rows done on time and late, counted apart ("no_prazo")."""
CONJUNCTION = re.compile(rf"(?:,\s*|\s+){either('and_words')}\s+")
SHARED_PREFIX = LENGTHS.shared_prefix
"""Letters a verb and a date column's word share when they name one act ("entregues",
"data_entrega")."""


_SINCE = rf"(?:\b{either('aged_since')}\s+)?"
_DAYS = either("day_noun", "days_noun")
AGED = re.compile(
    rf"{_SINCE}\b{either('more_than')}\s+(\d{{1,4}})\s+{_DAYS}\b"
    rf"|\b(\d{{1,4}})\s*\+\s*{either('days_noun')}\b"
    rf"|{_SINCE}\b(\d{{1,4}})\s+{_DAYS}\s+{either('or_more')}\b",
    re.IGNORECASE,
)
"""How long past its deadline a row is said to be: "vencidos há mais de 60 dias", "over 30
days past due", "90+ days late"."""


def days_past_deadline(question: str) -> tuple[int | None, str]:
    """The days a question says its rows are past their deadline, and the question without
    that phrase (whose "mais" ranks nothing), when a word says the deadline has passed."""
    found = AGED.search(question)
    said = fold(question)
    if found is None or not (PASSED.search(said) or LATE.search(said)):
        return None, question
    days = int(found.group(1) or found.group(2) or found.group(3))
    days -= 1 if found.group(3) else 0  # "90 dias ou mais": more than 89
    return days, f"{question[: found.start()]} {question[found.end() :]}"


def aged_past_deadline(q: Question, intent: Intent) -> None:
    """ "títulos vencidos há mais de 60 dias": the deadline of the rows asked is more than that
    many days before today."""
    days, catalog = q.days_late, q.catalog
    found = _deadline(intent, catalog) if days else None
    if found is None:
        return
    table, deadline = found
    intent.where.days_late = days
    intent.where.conditions.append((table.name, f"{deadline.name} < {{today}} - {days}"))
    # rows that far past their deadline are still open: the late metric's open rows
    rule = intent.measures.metric.metric if intent.measures.metric else None
    still_open = rule.shape.open_alternative if rule and rule.table == table.name else None
    if still_open is not None:
        _only_the_open_rows(intent, table.name, still_open)
    intent.subject.columns = [c for c in intent.subject.columns if c != (table.name, deadline.name)]


def late_now(q: Question, intent: Intent) -> None:
    """ "quais tarefas estão atrasadas agora": of a metric whose rows are those done late or
    still open past their deadline, the rows late now are the open ones (its alternative
    that says the end is still empty), not those that ended late long ago."""
    rule = intent.measures.metric.metric if intent.measures.metric else None
    if not intent.asked.current or rule is None or not rule.filter or intent.time.periods:
        return
    still_open = rule.shape.open_alternative
    if still_open is None:
        return
    _only_the_open_rows(intent, rule.table, still_open)


def _only_the_open_rows(intent: Intent, table: str, still_open: str) -> None:
    """The late metric's rows narrowed to its open alternative: that condition, on the
    metric's table, in place of the metric (and of a late word's comparison of the dates,
    which is the other, ended, alternative: "running late")."""
    intent.where.conditions.append((table, still_open))
    intent.measures.metric = None
    intent.where.comparisons = [c for c in intent.where.comparisons if c[0] != table]
    intent.subject.tables = [table, *(t for t in intent.subject.tables if t != table)]


def deadline_readings(q: Question, intent: Intent) -> None:
    """The question's conditions on a deadline, when it names one of a table in play."""
    tokens, text, catalog = q.tokens, q.text, q.catalog
    found = _deadline(intent, catalog)
    if found is None:
        return
    table, deadline = found
    if _past_and_open(intent, tokens, text, table, deadline, catalog):
        return
    on_time, late = ON_TIME.search(text), LATE.search(text)
    if on_time and not late:
        late = LATE_SHORT.search(text, on_time.end())
    if not (on_time or late) or table.name not in intent.subject.tables:
        return
    done = _done_column(tokens, table, deadline)
    both = bool(on_time and late and CONJUNCTION.search(_between(text, on_time, late)))
    if done is None and both:  # "quantas no prazo e quantas atrasadas": its only end date
        ends = [c.name for c in _dates(table) if not c.not_null and c.name != deadline.name]
        done = table.column(ends[0]) if len(ends) == 1 else None
    if done is None:
        # "what share of our tasks made it on time": no verb names the date done by the
        # deadline, but a rate that shares the rows out by it answers the share
        if on_time and not late and _share_of_it(text, on_time.start()):
            _the_rate_of_it(intent, table.name, None, deadline.name, catalog)
        return
    sides = {"<=": on_time, ">": late}
    said = sorted((m.start(), op) for op, m in sides.items() if m is not None)
    if both:
        labels = {"<=": RESULT_NAMES["on_time"], ">": RESULT_NAMES["late"]}
        intent.measures.apart = [
            Clause(comparisons=[(table.name, done.name, op, deadline.name)], label=labels[op])
            for _start, op in said
        ]
    else:
        intent.where.comparisons.append((table.name, done.name, said[0][1], deadline.name))
    intent.subject.columns = [
        c for c in intent.subject.columns if c not in {(table.name, deadline.name)}
    ]
    intent.subject.tables = [
        table.name,
        *(t for t in intent.subject.tables if t != table.name),
    ]  # counted
    _without_the_verbs_state(intent, table, done)
    _in_the_definitions_terms(intent, table.name, done.name, deadline.name, catalog, both)
    if on_time and not late and _share_of_it(text, on_time.start()):
        _the_rate_of_it(intent, table.name, done.name, deadline.name, catalog)


def _share_of_it(text: str, on_time: int) -> bool:
    """A percentage asked of the rows done on time, said after it ("qual o percentual de
    tarefas feitas no prazo"); said before it, the on-time rows are what the share is taken
    of ("das tarefas feitas no prazo, qual percentual era urgente")."""
    percent = PERCENT.search(text)
    return percent is not None and percent.start() < on_time


def _the_rate_of_it(
    intent: Intent, table: str, done: str | None, deadline: str, catalog: Catalog
) -> None:
    """ "qual o percentual de tarefas concluídas dentro do prazo": the share of rows done by
    their deadline is the glossary's rate that shares the rows out by that comparison (its
    filter and date with it), when exactly one does."""
    rates = []
    for term in catalog.glossary:
        rule = term.metric
        compared = rule.shape.share_compared if rule and rule.table == table else None
        if compared and compared[1:] == ("<=", deadline) and done in (None, compared[0]):
            rates.append(term)
    if len(rates) == 1:
        intent.measures.metric, intent.measures.aggregate, intent.measures.share = (
            rates[0],
            None,
            False,
        )


def _without_the_verbs_state(intent: Intent, table: Table, done: Column) -> None:
    """ "entregues dentro do prazo": the verb says what is compared with the deadline (its
    date), not a state the rows are still in."""
    starts = {w[:SHARED_PREFIX] for w in _spelled(done) if len(w) >= SHARED_PREFIX}
    for (owner, column), values in list(intent.where.filters.items()):
        if owner != table.name:
            continue
        kept = [v for v in values if fold(v)[:SHARED_PREFIX] not in starts]
        if kept:
            intent.where.filters[owner, column] = kept
        else:
            del intent.where.filters[owner, column]


def _deadline(intent: Intent, catalog: Catalog) -> tuple[Table, Column] | None:
    """The first table in play with a deadline, and that column."""
    metric = (
        [intent.measures.metric.metric.table]
        if intent.measures.metric and intent.measures.metric.metric
        else []
    )
    named = [t for t, _c in intent.subject.columns]
    for name in dict.fromkeys([*metric, *intent.subject.tables, *named]):
        table = catalog.table(name)
        for column in _dates(table):
            if set(DEADLINE_WORDS) & set(_spelled(column)):
                return table, column
    return None


def _past_and_open(
    intent: Intent,
    tokens: Sequence[str],
    text: str,
    table: Table,
    deadline: Column,
    catalog: Catalog,
) -> bool:
    """ "past their promised date and still not delivered": the deadline named with a word
    saying it has passed, and the date of what was due said to be empty. In the words of
    the glossary definition that holds both (its other conditions too: "not cancelled"),
    else the two conditions."""
    named = (table.name, deadline.name) in intent.subject.columns or DEADLINE.search(text)
    if not named or not PASSED.search(text):
        return False
    done = next((c for t, c in intent.where.unset if t == table.name and c != deadline.name), None)
    if done is None:  # "ainda sem assinatura": a noun of what was due, negated
        negated = [t for i, t in enumerate(tokens) if set(tokens[max(0, i - 2) : i]) & NEGATED]
        negated += [  # "unsigned"
            t[len(prefix) :]
            for t in tokens
            for prefix in NEGATING_PREFIXES
            if t.startswith(prefix) and len(t) > 6
        ]
        negated += [  # "still have no signature" (in Portuguese "no" is "in the")
            t
            for i, t in enumerate(tokens)
            if i > 1 and tokens[i - 1] in NONE_OF and tokens[i - 2] in HAVING
        ]
        column = _done_column(negated, table, deadline)
        if column is None:
            return False
        done = column.name
        intent.where.unset.append((table.name, done))
    wanted = {f"{done}isnull", f"{deadline.name}<{{today}}"}
    chosen = f"{deadline.name} < {{today}}"
    for term in catalog.glossary:
        rule = term.metric
        if rule is None or rule.table != table.name or not rule.filter:
            continue
        held = [a.condition for a in rule.shape.alternatives if wanted <= a.parts]
        if held:
            chosen = held[0]
            intent.where.unset.remove((table.name, done))
            intent.time.date_column = intent.time.date_column or rule.date_column
            break
    intent.where.conditions.append((table.name, chosen))
    intent.subject.columns = [c for c in intent.subject.columns if c != (table.name, deadline.name)]
    _no_row_count_metric(intent)
    return True


def _in_the_definitions_terms(
    intent: Intent, table: str, done: str, deadline: str, catalog: Catalog, both: bool
) -> None:
    """Rows compared with their deadline are placed in time as the glossary metric that
    makes the same comparison places them; a metric that only counts rows is replaced by the
    comparison."""
    ways = {(done, deadline), (deadline, done)}
    for term in catalog.glossary:
        rule = term.metric
        said = any(
            (left, right) in ways and operator in ("<=", ">=", "<", ">")
            for left, operator, right in (rule.shape.compared if rule else ())
        )
        if rule and rule.table == table and rule.date_column and said:
            intent.time.date_column = rule.date_column
            break
    _no_row_count_metric(intent, both)


def _no_row_count_metric(intent: Intent, counted: bool = False) -> None:
    """A count of the rows the question's own conditions say (`counted`: each clause's),
    not a metric that counts or shares out rows (a metric of an amount stays)."""
    rule = intent.measures.metric.metric if intent.measures.metric else None
    if rule is None or not (rule.shape.counts_rows or rule.shape.share_condition is not None):
        return
    if (
        counted
        or intent.measures.aggregate == "count"
        or (intent.measures.aggregate is None and intent.asked.asks_data)
    ):
        intent.measures.metric, intent.measures.aggregate = None, "count"


def _done_column(tokens: Sequence[str], table: Table, deadline: Column) -> Column | None:
    """The table's nullable date a verb of the question names ("assinados", "arrived")."""
    for token in tokens:
        for column in _dates(table):
            if column.not_null or column.name == deadline.name:
                continue
            spelled = _spelled(column)
            if (
                shares_root(token, spelled)
                or same_verb(token, spelled)
                or any(
                    len(token) >= SHARED_PREFIX and w[:SHARED_PREFIX] == token[:SHARED_PREFIX]
                    for w in spelled
                )
            ):
                return column
    return None


def _dates(table: Table) -> list[Column]:
    return [c for c in table.columns if c.type_sql.startswith(DATE_TYPES)]


def _spelled(column: Column) -> list[str]:
    return spelling(column)


def _between(text: str, first: re.Match[str], second: re.Match[str]) -> str:
    start, end = sorted((first, second), key=lambda m: m.start())
    return text[start.end() : end.start() + 1]
