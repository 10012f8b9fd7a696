"""Readings of people's own phrasing on top of the parser's words: which group wins ("o mês
com mais pedidos", "which carrier had the most delays"), ranked by an attribute of a related
table ("top 3 categorias de produto") and in which direction ("fewest"); the newest or oldest
rows; the columns asked of one row; distinct counts (several measures at once:
offline/clauses.py).

Each reading works on the catalog's vocabulary (the lexicon's matches) and the languages'
own words only, so it holds for any deployment described the same way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import partial

from orquestra.ddl_catalog.model import Catalog, Table
from orquestra.ddl_catalog.text import fold, stem, words
from orquestra.offline.asking import DATE_SORTED, NUMBER_WORDS, SORTED
from orquestra.offline.clauses import LISTED_WITH
from orquestra.offline.grouping import GRAINS, weekday_spots
from orquestra.offline.intent import Group, Intent
from orquestra.offline.lang import alternation
from orquestra.offline.lang import words as said_as
from orquestra.offline.lang.morphology import LENGTHS
from orquestra.offline.lexicon import (
    DATE_TYPES,
    EVENT_VERBS,
    FUNCTION_WORDS,
    Meaning,
    amount_column,
    display_column,
    is_measure,
    is_numeric,
    spelling,
)
from orquestra.offline.measures import share_condition
from orquestra.offline.question import Question
from orquestra.offline.rows import DATE_WORDS, WHEN, referred_paths
from orquestra.offline.understanding import QUESTION_WORDS

spelled = partial(alternation, any_spaces=False)
"""Every language's words for the concepts as a regular-expression group, longest first, a
phrase's words one space apart, as these readings have always matched them (`alternation`
alone would also take a line break or two spaces between them)."""


LEAD_WORDS = {
    *said_as("ranking_leads"),
    *said_as("most"),
    *said_as("fewest"),
    *said_as("largest"),
    *said_as("largest_plural"),
    *said_as("smallest_plural"),
    *said_as("worst"),
    *said_as("best"),
}
"""Words that open a ranking question before its subject ("qual foi o", "in which", "top 3")."""
RANK_WORDS = (*said_as("most"), *said_as("fewest"))
BOUND = "".join(f"(?<!{re.escape(p.rsplit(' ', 1)[0])} )" for p in said_as("at_least"))
"""Not right after the start of an "at least" ("pelo menos", "at least": bounds)."""
FEWEST = re.compile(rf"{BOUND}\b{spelled('fewest', 'smallest', 'smallest_plural', 'cheap')}\b")
"""Ascending rankings ("o mês com menos pedidos", "a mais barata", "the cheapest": the
least cost); "pelo menos", "at least" are bounds."""


NEWEST = re.compile(rf"\b{spelled('newest')}\b")
OLDEST = re.compile(rf"\b{spelled('oldest')}\b")
PLURAL_RECENCY = re.compile(rf"\b{spelled('recency_plural')}\b")
COUNT_ASKED = re.compile(rf"\b{spelled('count_openers')}\s+\d+\b")
"""The number of rows asked, said before it ("os 5 …", "top 10", "the 3 …")."""


def recency(q: Question, intent: Intent) -> None:
    """ "a tarefa mais recente", "o primeiro pedido do cliente 7", "the latest task": rows
    in the order of their own date, newest or oldest first, the first one (or the number
    asked). Words that named a period ("últimos 90 dias", "first quarter") are not read."""
    text = q.masked
    for period in intent.time.periods:
        text = text.replace(period.phrase, " ")
    text = SORTED.sub(" ", text)  # "cheapest first", "maiores primeiro": a whole list's order
    if by_date := DATE_SORTED.search(text):  # "newest first": every row, by date
        intent.ordering.sorted, intent.ordering.ascending = "date", by_date.group(1) is None
        intent.asked.listing = True  # "títulos vencidos, mais antigos primeiro": the rows
        return
    newest, oldest = NEWEST.search(text), OLDEST.search(text)
    if not (newest or oldest):
        return
    # the later word wins: "o mais recente … e o mais antigo?" asks for the oldest now
    first = max((m for m in (newest, oldest) if m), key=lambda m: m.start())
    intent.ordering.recency = "DESC" if first is newest else "ASC"
    around = text[max(0, first.start() - 4) : first.end() + 4]
    counted = re.search(r"\b(\d+)\b", around)  # "os 5 mais recentes", "last 5 orders"
    if counted:
        intent.ordering.top = int(counted.group(1))
    elif not COUNT_ASKED.search(text):
        intent.ordering.top = 10 if PLURAL_RECENCY.search(first.group(0)) else 1


WHY = re.compile(rf"\b{spelled('why')}\b")
REASON_WORDS = said_as("reason_words")
"""The languages' words for a reason: a "why" question asks for the column named so."""
STATUS = said_as("status_word")
"""The word a row's state column is spelled with ("status")."""
WHEN_ASKED = said_as("when")
"""The words asking when ("and when is it supposed to arrive?")."""
SHARED_START = LENGTHS.shared_start
"""Shortest common start that ties a verb to a date column ("issued" ~ "issue date")."""
HEAD_LENGTH = LENGTHS.head
"""Shortest word read as the head of a column's name ("data", "valor", "date")."""


NOT_MONEY = re.compile(rf"\b(?:{spelled('not_money')}|{spelled('not_money_starts')}\w*)\b")
"""Words that say "how much" of one row asks something other than its money."""


def amount_of_one_row(q: Question, intent: Intent) -> None:
    """ "tarefa 12: qual o projeto e quanto foi cobrado?", "how much is it": "how much" of
    one row, nothing else measured, is its own amount (its money column), not a total."""
    catalog = q.catalog
    if intent.subject.entity is None or intent.measures.aggregate != "sum":
        return
    if (
        intent.measures.metric
        or intent.measures.measure
        or intent.groups
        or NOT_MONEY.search(fold(intent.question))
    ):
        return  # "quanto pesa a tarefa 12", "how long did it take": not its money
    table = catalog.table(intent.subject.entity[0])
    referred = referred_paths(catalog, table.name)  # "who is the owner and how much was it"
    if any(t != table.name and t not in referred for t in intent.subject.tables):
        return  # "quanto a tarefa 12 gerou de horas": other rows' amounts, summed
    amounts = [c for t, c in intent.subject.columns if t == table.name and is_measure(table, c)]
    amount = amounts[0] if amounts else amount_column(table)
    if amount is None:
        return
    intent.measures.aggregate = None
    if (table.name, amount) not in intent.subject.columns:
        intent.subject.columns.append((table.name, amount))


WITH_WORDS = said_as("including")
THRESHOLD = re.compile(rf"\b{spelled('thresholds', 'at_least')}\b|\d")
"""Where a list of rows names the columns to show ("… com número, dono e valor")."""


def listed_columns(q: Question, intent: Intent) -> None:
    """ "liste as tarefas canceladas em maio com número, dono e valor", "show the late tasks
    with owner and due date": rows listed with the columns named after "com"/"with", each
    read as one of the listed rows' columns by its head words; a table the rows refer to
    is that reference (shown with the referred row's name)."""
    tokens, matches, catalog = q.tokens, q.matches, q.catalog
    if (
        intent.subject.entity
        or intent.measures.aggregate
        or intent.groups
        or intent.ordering.top
        or intent.subject.owners
    ):
        return
    if not LISTED_WITH.search(" ".join(tokens)):
        return
    marker = next(i for i, t in enumerate(tokens) if t in WITH_WORDS)
    if THRESHOLD.search(" ".join(tokens[marker + 1 :])):
        return  # "com valor acima de 10 mil": a condition on the rows, not their columns
    listed = next(
        (
            m.table
            for start, _e, found in matches
            if start < marker
            for m in found
            # a metric's table only when the metric's words name its rows ("títulos
            # vencidos"), not "o custo com e sem X"
            if m.table
            and (m.kind == "table" or (m.kind == "metric" and intent.measures.metric_rows))
        ),
        None,
    )
    if listed is None:
        return
    table = catalog.table(listed)
    named = {start: found for start, _e, found in matches if start > marker}
    spelled: set[str] = set()  # the last column's words: "due date" is one column
    for index in range(marker + 1, len(tokens)):
        token = tokens[index]
        if len(token) < HEAD_LENGTH - 1 or token in FUNCTION_WORDS or stem(token) in spelled:
            continue
        refers = [
            next(iter(j.on))
            for m in named.get(index, [])
            if m.kind == "table"
            for j in table.meta.joins
            if j.to == m.table and len(j.on) == 1
        ]
        heads = refers or [
            column.name
            for column in table.columns
            if column.name != table.tenant_column
            and stem(token)
            in {stem(w) for p in [column.name, *column.meta.synonyms.all()] for w in words(p)}
        ]
        for name in heads[:1]:
            if (table.name, name) not in intent.subject.columns:
                intent.subject.columns.append((table.name, name))
            column = table.column(name)
            spelled = {stem(w) for p in [name, *column.meta.synonyms.all()] for w in words(p)}


EACH_AMOUNT = re.compile(rf"\b{spelled('amount_of_each')}\b")
"""The amount of each row listed ("quais tarefas vencem hoje e de quanto são?")."""
TOTAL = re.compile(rf"\b{spelled('in_total')}\b")


def amounts_of_listed_rows(q: Question, intent: Intent) -> None:
    """ "quais tarefas vencem essa semana e de quanto são?", "which tasks are late and how
    much are they": rows listed, each with its amount (its money column), not their total."""
    catalog = q.catalog
    if (
        not intent.asked.listing
        or intent.measures.aggregate != "sum"
        or intent.subject.entity
        or intent.measures.metric
    ):
        return
    if intent.groups or intent.ordering.top or not intent.subject.tables:
        return
    asked = fold(intent.question)
    if not EACH_AMOUNT.search(asked) or TOTAL.search(asked):
        return  # "… e quanto foi o total?": their total, as before
    table = catalog.table(intent.subject.tables[0])
    measured = (
        intent.measures.measure
        if intent.measures.measure and intent.measures.measure[0] == table.name
        else None
    )
    amount = measured[1] if measured else amount_column(table)
    if amount is None:
        return
    intent.measures.aggregate, intent.measures.measure = None, None
    if (table.name, amount) not in intent.subject.columns:
        intent.subject.columns.append((table.name, amount))


def amount_of_the_first_row(q: Question, intent: Intent) -> None:
    """ "the oldest overdue task: which owner, how much and when was it due?": "how much"
    of the one row found by its date is its own amount, not a total of all the rows."""
    catalog = q.catalog
    if (
        not intent.ordering.recency
        or (intent.ordering.top or 1) != 1
        or intent.measures.aggregate != "sum"
    ):
        return
    if intent.groups or TOTAL.search(fold(intent.question)):
        return
    metric = intent.measures.metric.metric if intent.measures.metric else None
    if metric is not None and not intent.measures.metric_rows:
        return  # "a última semana com mais custo": a measure over rows, ranked
    # the rows in date order: the metric's, or those named (of one row: its related rows)
    rows = [
        t
        for t in intent.subject.tables
        if not intent.subject.entity or t != intent.subject.entity[0]
    ]
    if metric is None and not rows:
        return
    table = catalog.table(metric.table if metric else rows[0])
    amount = amount_column(table)
    if amount is None:
        return
    intent.measures.aggregate = None
    if (table.name, amount) not in intent.subject.columns:
        intent.subject.columns.append((table.name, amount))


def entity_columns(q: Question, intent: Intent) -> None:
    """The columns a question about one row asks for: "qual o valor e a data do pedido 12"
    names two columns by their head words alone; "está concluída? qual o motivo?" asks the
    state a value belongs to, beside the reason."""
    tokens, matches, used, catalog = q.tokens, q.matches, q.entity_tokens, q.catalog
    if (
        intent.subject.entity is None
        or intent.measures.metric
        or intent.measures.aggregate
        or intent.groups
    ):
        return
    table = catalog.table(intent.subject.entity[0])
    for start, _end, meanings in matches:
        # "o frete da tarefa 12": a word naming both the row's table and one of its columns,
        # said beside the row itself, is the column
        if start not in used and any(m.kind == "table" and m.table == table.name for m in meanings):
            for m in meanings:
                if (
                    m.kind == "column"
                    and m.table == table.name
                    and (m.table, m.column) not in intent.subject.columns
                ):
                    intent.subject.columns.append((m.table, m.column))
    own = {
        i
        for start, end, meanings in matches
        if any(m.table == table.name for m in meanings)
        for i in range(start, end)
    }
    # "o valor do projeto da tarefa 7": a phrase naming another table's column is that column
    theirs = {
        i
        for start, end, meanings in matches
        if end - start > 1
        and any(m.kind == "column" for m in meanings)
        and all(m.table != table.name for m in meanings if m.kind == "column")
        for i in range(start, end)
    }
    said = [(i, t) for i, t in enumerate(tokens) if i not in used | own | theirs]
    if WHY.search(" ".join(tokens)):  # "why is it blocked?": the row's reason, if it has one
        said += [(-1, word) for word in REASON_WORDS]
    for _index, token in said:
        if len(token) < HEAD_LENGTH or token in FUNCTION_WORDS:
            continue
        heads = [
            column.name
            for column in table.columns
            if column.name != table.tenant_column
            and stem(token)
            in {stem(w) for p in [column.name, *column.meta.synonyms.all()] for w in words(p)}
        ]
        for name in heads[:3]:
            if (table.name, name) not in intent.subject.columns:
                intent.subject.columns.append((table.name, name))
    dated = any(
        t == table.name and table.column(c).type_sql.startswith(DATE_TYPES)
        for t, c in intent.subject.columns
    )
    if WHEN.search(" ".join(tokens)):  # "pra que dia … e por qual canal"
        naming = {
            i
            for start, end, meanings in matches
            if any(m.kind == "table" for m in meanings)
            for i in range(start, end)
        }
        dates = {  # "when is bill 7 due": a word naming the table may name its date too
            w
            for c in table.columns
            if c.type_sql.startswith(DATE_TYPES)
            for w in words(" ".join(c.meta.synonyms.all()))
        }
        verbs = [
            t
            for i, t in enumerate(tokens)
            if i not in used
            and (i not in naming or t in dates - DATE_WORDS)
            and len(t) >= 3
            and t not in FUNCTION_WORDS
            and not WHEN.fullmatch(t)
        ]
        # "when did it leave and when is it supposed to arrive?": each "when" its own verb
        whens = [i for i, t in enumerate(tokens) if t in WHEN_ASKED]
        for start, end in zip(whens[1:], [*whens[2:], len(tokens)], strict=False):
            later = [t for t in tokens[start + 1 : end] if t in verbs]
            if later and _when(intent, table, later):
                verbs = [v for v in verbs if v not in later]
        if (verbs or not dated) and _when(intent, table, verbs):
            # "quando" may be another table's date column's synonym too: the verb named the
            # row's own date, which is the one asked
            intent.subject.columns = [
                (t, c)
                for t, c in intent.subject.columns
                if t == table.name or not catalog.table(t).column(c).type_sql.startswith(DATE_TYPES)
            ]
    # A state of the row itself ("a tarefa 12 está bloqueada? qual o motivo?") asks for its
    # state column beside what else was asked (alone, every column shows it anyway).
    asked_own = any(t == table.name for t, _c in intent.subject.columns)
    values_said = {
        (m.table, m.column) for _s, _e, found in matches for m in found if m.kind == "value"
    }
    for owner, column in list(intent.where.filters):
        if owner == table.name and (owner, column) in values_said:
            del intent.where.filters[owner, column]
            if asked_own and (owner, column) not in intent.subject.columns:
                intent.subject.columns.insert(0, (owner, column))
    # "tá travada? por quê?": why a row is in its state asks that state beside the reason
    if WHY.search(" ".join(tokens)) and asked_own:
        for own_column in table.columns:
            spelled = {
                w for s in [own_column.name, *own_column.meta.synonyms.all()] for w in words(s)
            }
            if (
                own_column.meta.values
                and any(w in spelled for w in STATUS)
                and (table.name, own_column.name) not in intent.subject.columns
            ):
                intent.subject.columns.insert(0, (table.name, own_column.name))


def _when(intent: Intent, table: Table, verbs: list[str]) -> bool:
    """ "when was it issued?": the row's own date whose words the verb shares ("entregue" ~
    "entrega"; a short verb, "due", only as one of the column's words), one not asked yet
    ("a data prometida … e quando foi entregue"); a date spelled with the verb itself
    ("delivered at") before one that only shares its start ("expected delivery")."""
    said = [EVENT_VERBS.get(v, v) for v in verbs if v not in DATE_WORDS]
    found: list[tuple[int, str]] = []
    for column in table.columns:
        if (
            not column.type_sql.startswith(DATE_TYPES)
            or (table.name, column.name) in intent.subject.columns
        ):
            continue
        spelled = spelling(column)
        starts = {w[:SHARED_START] for w in spelled if w not in DATE_WORDS}
        if any(v in spelled for v in said):
            found.append((0, column.name))
        elif any(len(v) >= SHARED_START and v[:SHARED_START] in starts for v in said):
            found.append((1, column.name))
    if not found:
        return False
    best = min(rank for rank, _name in found)  # the first in the table's order, of the best
    intent.subject.columns.append((table.name, next(n for rank, n in found if rank == best)))
    return True


def rate_rows_ranked(q: Question, intent: Intent) -> None:
    """ "the month with the most no-shows": "most" right before a rate's name ranks by how
    many rows the rate counts (`sql._filters` keeps those), not by the rate."""
    tokens, matches = q.tokens, q.matches
    if not intent.ordering.top or intent.measures.aggregate or intent.measures.metric is None:
        return
    if share_condition(intent.measures.metric.metric) is None:
        return
    for start, end, meanings in matches:
        # "the most no-shows", "the most patient no-shows": its rows named, in the plural
        # ("a que menos entrega no prazo" ranks by the rate)
        ranked = any(t in RANK_WORDS for t in tokens[max(0, start - 2) : start])
        ranked = ranked and tokens[end - 1].endswith("s")
        if ranked and any(
            m.kind == "metric" and m.term == intent.measures.metric for m in meanings
        ):
            intent.measures.aggregate = "count"
            return


def rank_subject(q: Question, intent: Intent) -> None:
    """A ranking's subject is what the question opens with ("qual mês", "which carrier",
    "top 3 categorias"): the groups ranked. What follows "mais"/"most" is what is counted
    when no measure was named ("mais pedidos": the orders, counted)."""
    tokens, matches, catalog = q.tokens, q.matches, q.catalog
    if not intent.ordering.top or intent.groups or intent.subject.entity or intent.ordering.recency:
        return
    intent.ordering.ascending = bool(FEWEST.search(" ".join(tokens)))
    counted = _counted(intent, tokens, matches)
    if counted is None and OFTEN & set(tokens):  # "o motivo que mais aparece": rows counted
        counted = next(iter([*intent.subject.tables, *(t for t, _c in intent.where.filters)]), None)
    base = _measured_table(intent) or counted
    if base is None:
        return
    # "give me the three product categories …": requests and counts lead the subject too
    leading = LEAD_WORDS | QUESTION_WORDS | FUNCTION_WORDS | set(NUMBER_WORDS)
    leading |= {
        w for period in intent.time.periods for w in words(period.phrase)
    }  # "Em maio, qual"
    said = [i for i, t in enumerate(tokens) if t not in leading and not t.isdigit()]
    # "no estado de SP, qual cidade …": what "qual" asks, past what places the question
    asked = next((i for i, t in enumerate(tokens) if t in ASKED_WHICH), None)
    subject = next((i for i in said if asked is not None and i > asked), None)
    subject = subject if subject is not None else next(iter(said), None)
    if subject is None:
        return
    group = None
    if subject in weekday_spots(tokens):  # "qual dia da semana tem mais …"
        group = Group("", "", "weekday")
    elif tokens[subject] in GRAINS:
        group = Group("", "", GRAINS[tokens[subject]])
    else:
        group = _group_for(_subject_meanings(subject, matches), base, catalog)
    if group is None:
        return
    intent.groups.append(group)
    if counted and not (intent.measures.metric or intent.measures.measure):
        intent.measures.aggregate = "count"
    elif intent.measures.aggregate in ("max", "min"):
        # "o cliente com o maior valor vencido": "maior" ranks the groups' totals
        intent.ordering.ascending = intent.measures.aggregate == "min"
        intent.measures.aggregate = None if intent.measures.metric else "sum"
    # The counted table is the query's base; the ranked one is joined to it.
    intent.subject.tables = [base, *(t for t in intent.subject.tables if t != base)]


ASKED_WHICH = said_as("which_of")
"""Words that ask which of some things: what follows them is the thing ranked."""
WHO = said_as("who_ranked")
PERSON_NAMES = said_as("name_columns")


def who_ranked(q: Question, intent: Intent) -> None:
    """ "quem fez mais hora extra", "who signed the most tasks": the ranked rows are the
    people the measured rows refer to, by their name (the first table they refer to, alone,
    whose rows are named by a "nome"/"name"), not the rows themselves."""
    tokens, catalog = q.tokens, q.catalog
    if not any(w in tokens for w in WHO) or not intent.ordering.top or intent.subject.entity:
        return
    if intent.ordering.recency:
        return  # "who's the most recently hired": a row in date order
    metric = intent.measures.metric.metric if intent.measures.metric else None
    base = (
        metric.table
        if metric
        else next(iter([*(t for t, _c in intent.where.filters), *intent.subject.tables]), None)
    )
    if base is None:
        return
    table = catalog.table(base)
    own = {display_column(table).name, *table.primary_key}
    if any(g.grain or g.table != base or g.column not in own for g in intent.groups):
        return  # grouped already by something else ("quem … por mês")
    for join in table.meta.joins:
        target = catalog.table(join.to)
        if len(join.on) != 1 or set(join.on) == {table.tenant_column} or join.to == base:
            continue
        if display_column(target).name in PERSON_NAMES:
            intent.groups = [Group(target.name, display_column(target).name)]
            intent.subject.tables = [base, *(t for t in intent.subject.tables if t != base)]
            if not (intent.measures.metric or intent.measures.measure):
                intent.measures.aggregate = "count"
            return


def _subject_meanings(
    subject: int, matches: Sequence[tuple[int, int, list[Meaning]]]
) -> list[Meaning]:
    """What the subject names; a table followed by one of its columns ("product categories",
    English order) names that column."""
    meanings: list[Meaning] = []
    for start, end, found in matches:
        if start == subject:
            meanings = list(found)
            named = {m.table for m in found if m.kind == "table"}
            after = next((m for s, _e, m in matches if s == end), [])
            own = [m for m in after if m.kind == "column" and m.table in named]
            return own + meanings
    return meanings


OFTEN = set(said_as("how_often_verbs"))
"""Verbs of how often ("o motivo que mais aparece", "o mês que mais entrou pedido"): the
rows named, counted."""


def _counted(
    intent: Intent, tokens: Sequence[str], matches: Sequence[tuple[int, int, list[Meaning]]]
) -> str | None:
    """ "com mais pedidos", "the most orders": the table named right after the rank word;
    "com mais faltas": the table whose rows are in the state named there (the state is
    already a filter)."""
    for start, _end, meanings in matches:
        if start and (tokens[start - 1] in RANK_WORDS or _number_ranked(tokens, start)):
            table = next((m.table for m in meanings if m.kind == "table"), None)
            if table is None:
                filtered = [m.table for m in meanings if m.kind == "value"]
                table = next((t for t in filtered if _filters_on(intent, t)), None)
            if table is not None:
                return table
    return None


NUMBER_OF = said_as("number_of")
EXTREMES = (*said_as("largest"), *said_as("smallest"))


def _number_ranked(tokens: Sequence[str], start: int) -> bool:
    """ "o menor número de tarefas", "the highest number of tasks": the rows counted."""
    before = start - 1
    while before > 0 and tokens[before] in NUMBER_OF:
        before -= 1
    return before < start - 1 and tokens[before] in EXTREMES


def _filters_on(intent: Intent, table: str) -> bool:
    return any(owner == table for owner, _column in intent.where.filters)


def _measured_table(intent: Intent) -> str | None:
    if intent.measures.metric and intent.measures.metric.metric:
        return intent.measures.metric.metric.table
    return intent.measures.measure[0] if intent.measures.measure else None


def _group_for(meanings: list[Meaning], base: str, catalog: Catalog) -> Group | None:
    """A non-numeric column names the groups itself ("categorias"); a table other than the
    measured one ranks its rows by their display name ("clientes")."""
    for meaning in meanings:
        if meaning.kind == "column":
            column = catalog.table(meaning.table).column(meaning.column)
            if not is_numeric(column):
                return Group(meaning.table, meaning.column)
    for meaning in meanings:
        if meaning.kind == "table" and meaning.table != base:
            return Group(meaning.table, display_column(catalog.table(meaning.table)).name)
    return None


DISTINCT = frozenset(said_as("distinct"))


def distinct_count(q: Question, intent: Intent) -> None:
    """ "quantas tarefas distintas", "how many different customers": the rows of the table
    named beside the word, each counted once — by its whole key, whichever table holds the
    rows the question filters."""
    tokens, matches = q.tokens, q.matches
    spots = [i for i, t in enumerate(tokens) if t in DISTINCT]
    if not spots:
        return
    for start, end, meanings in matches:
        if end == spots[0] or start == spots[0] + 1:
            table = next((m.table for m in meanings if m.kind == "table"), None)
            if table is not None:
                intent.subject.distinct_table = table
                intent.measures.aggregate = intent.measures.aggregate or "count"
                # The rows where it happens are the query's base: "clientes diferentes que
                # fizeram pedidos" counts customers over the orders.
                others = [t for t in intent.subject.tables if t != table]
                intent.subject.tables = [*others, table] if others else intent.subject.tables
                return
