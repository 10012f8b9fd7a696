"""Readings that say which rows count and what measures them: one date against another
("entregues depois da previsão") placed in time as the glossary's metric that makes the same
comparison; a metric named with an aggregate word inside ("custo médio de frete") or by its
state word used of other rows ("os produtos mais vendidos") (by a verb: offline/verbs.py);
a value right after its column's name ("do segmento indústria").

Like the parser, they read the catalog's vocabulary and the languages' own words only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise
from typing import NamedTuple

from orquestra.ddl_catalog.metric_shape import MetricShape
from orquestra.ddl_catalog.model import (
    Catalog,
    Column,
    ColumnMeta,
    GlossaryTerm,
    Table,
    per_catalog,
)
from orquestra.ddl_catalog.text import fold, phrase_key, stem, words
from orquestra.offline.asking import AGGREGATES
from orquestra.offline.intent import Group, Intent, Others
from orquestra.offline.joins import in_values
from orquestra.offline.lang import alternation, word_set
from orquestra.offline.lang import words as said_as
from orquestra.offline.lang.morphology import (
    GENDER_ENDINGS,
    IRREGULAR,
    LENGTHS,
    PARTICIPLE_ENDINGS,
    PARTICIPLES,
    ROOT_LENGTH,
    VERB_ENDINGS,
    genderless,
    verb_roots,
)
from orquestra.offline.lexicon import (
    DATE_TYPES,
    FUNCTION_WORDS,
    NEGATIONS,
    Meaning,
    amount_column,
    date_column,
    lexicon_for,
    spelling,
    tied,
)
from orquestra.offline.question import Question

AFTER = said_as("later_than")
BEFORE = said_as("earlier_than")
LINKS = said_as("compared_date_links")


def date_comparison(q: Question, intent: Intent) -> None:
    """ "entregues depois da previsão", "signed after the deadline": one date column of a
    row against another. The verb names the first (its root is the column's), the words
    after "depois"/"after" the second. When a glossary metric's filter makes the same
    comparison, the question is in that metric's terms: its date column places the rows."""
    tokens, matches, catalog = q.tokens, q.matches, q.catalog
    for index, token in enumerate(tokens):
        if token not in AFTER + BEFORE:
            continue
        right = _date_column_after(index, tokens, matches, intent, catalog)
        if right is None:
            continue
        table, other = right
        verb = _verb_column(tokens[:index], table, other, catalog)
        if verb is None:
            continue
        left, position = verb
        operator = ">" if token in AFTER else "<"
        intent.where.comparisons.append((table, left, operator, other))
        # The verb and the compared column are the condition, not a state or a named date.
        intent.subject.columns = [
            c for c in intent.subject.columns if c not in {(table, left), (table, other)}
        ]
        drop_values_at(intent, position, matches)
        if table not in intent.subject.tables:
            intent.subject.tables.insert(0, table)
        for term in catalog.glossary:
            rule = term.metric
            if rule and rule.table == table and _compares(rule.shape, left, operator, other):
                intent.time.date_column = rule.date_column
                break
        return


def _date_column_after(
    index: int,
    tokens: Sequence[str],
    matches: Sequence[tuple[int, int, list[Meaning]]],
    intent: Intent,
    catalog: Catalog,
) -> tuple[str, str] | None:
    """The date column named after the comparison word: by a phrase of the catalog, else by
    its head word ("da previsão") among the tables in play."""
    position = index + 1
    while position < len(tokens) and tokens[position] in LINKS:
        position += 1
    if position >= len(tokens):
        return None
    for start, _end, meanings in matches:
        if start != position:
            continue
        for meaning in meanings:
            if meaning.kind == "column":
                column = catalog.table(meaning.table).column(meaning.column)
                if column.type_sql.startswith(DATE_TYPES):
                    return meaning.table, meaning.column
    said = stem(tokens[position])
    involved = [*intent.subject.tables, *(t for t, _c in intent.where.filters)]
    for table in dict.fromkeys(involved):
        for column in catalog.table(table).columns:
            if not column.type_sql.startswith(DATE_TYPES):
                continue
            spelled = [column.name.replace("_", " "), *column.meta.synonyms.all()]
            if said in {stem(w) for phrase in spelled for w in words(phrase)}:
                return table, column.name
    return None


def _verb_column(
    said: Sequence[str], table: str, other: str, catalog: Catalog
) -> tuple[str, int] | None:
    """The table's other date column a verb before the comparison names ("entregues"), and
    where the verb is."""
    for position in range(len(said) - 1, -1, -1):
        token = said[position]
        for column in catalog.table(table).columns:
            if column.name == other or not column.type_sql.startswith(DATE_TYPES):
                continue
            spelled = spelling(column)
            roots = verb_roots(token)
            if (
                any(w.startswith(r) for r in roots for w in spelled)
                or _shares_start(token, spelled)
                or same_verb(token, spelled)
            ):
                return column.name, position
    return None


PER = said_as("per_unit")
"""Words before a unit a rate is per ("por quilo", "per kilo", "a kilo")."""


def metric_per_unit(q: Question, intent: Intent) -> None:
    """ "o modal mais caro por quilo", "cost per kilo": "per" before a column's unit word
    names the glossary metric measured in something per that unit (its unit ends in "/kg"),
    on the column's rows; the column itself is not asked."""
    tokens, matches, catalog = q.tokens, q.matches, q.catalog
    if intent.measures.metric is not None:
        return
    for start, _end, meanings in matches:
        if not start or tokens[start - 1] not in PER:
            continue
        said = [
            (m.table, m.column, catalog.table(m.table).column(m.column).meta.unit)
            for m in meanings
            if m.kind == "column"
        ]
        for term in catalog.glossary:
            rule = term.metric
            if rule is None or "/" not in (rule.unit or ""):
                continue
            per = (rule.unit or "").rsplit("/", 1)[1].strip().lower()
            if any(t == rule.table and (unit or "").lower() == per for t, _c, unit in said):
                intent.measures.metric = term
                asked = {(t, c) for t, c, _u in said}
                intent.subject.columns = [c for c in intent.subject.columns if c not in asked]
                return


def rows_a_metric_sums(q: Question, intent: Intent) -> None:
    """ "quanto custa em média o frete": an amount averaged (or added up) with no metric
    named, that exactly one glossary metric sums, counts the rows that metric counts (its
    filter: cancelled rows cost nothing), unless the question says its own states."""
    catalog = q.catalog
    if intent.measures.metric or intent.subject.entity:
        return
    if intent.measures.implied:
        # "total vencido", "quanto temos vencido": a total of the rows of a state that a
        # metric sums is that metric
        sums = [
            t for t in intent.measures.implied if t.metric and t.metric.shape.aggregate == "sum"
        ]
        if (
            intent.measures.aggregate == "sum"
            and not intent.measures.measure
            and len(intent.measures.implied) == 1
            and sums
        ):
            intent.measures.metric, intent.measures.implied, intent.measures.aggregate = (
                sums[0],
                [],
                None,
            )
        return
    _the_rows_amount(intent, catalog)
    if intent.measures.measure is None:
        return
    table, column = intent.measures.measure
    said = {c for t, c in intent.where.filters if t == table}  # its own states, said otherwise
    summing = [
        term
        for term in catalog.glossary
        if term.metric
        and term.metric.table == table
        and term.metric.filter
        and not said & term.metric.shape.filter_names
        and term.metric.shape.summed_column == column
    ]
    if len(summing) == 1:
        intent.measures.implied.append(summing[0])


def _the_rows_amount(intent: Intent, catalog: Catalog) -> None:
    """ "total billed to plan X in April": a total asked of rows, no amount named, is of
    their money column (the one that says how much a row is)."""
    if intent.measures.measure or intent.measures.aggregate != "sum" or intent.groups:
        return
    named = [*intent.subject.tables, *(t for t, _c in intent.where.filters)]
    if not named:
        return
    amount = amount_column(catalog.table(named[0]))
    if amount is not None:
        intent.measures.measure = (named[0], amount)


def same_verb(token: str, spelled: list[str]) -> bool:
    """`token` and a word of `spelled` are forms of one verb ("chegaram", "chegada")."""
    mine = _short_roots(token)
    return bool(mine) and any(mine & _short_roots(w) for w in spelled)


def _short_roots(word: str) -> set[str]:
    """A verb's roots compared whole with another form's ("cheg" of "chegaram" and of "data
    de chegada"): both forms of one verb, so `LENGTHS.short_root` letters suffice. Unlike
    `short_verb_roots`, of any verb or participle form, and of that length or more."""
    return {
        word[: -len(end)]
        for end in (*VERB_ENDINGS, *PARTICIPLE_ENDINGS)
        if word.endswith(end) and len(word) - len(end) >= LENGTHS.short_root
    }


def _shares_start(token: str, spelled: list[str]) -> bool:
    """`token` starts as a word of `spelled` does ("entregues" ~ "entrega")."""
    size = LENGTHS.shared_prefix
    return any(
        len(token) >= size and fold_word[:size] == token[:size]
        for fold_word in (w.lower() for w in spelled)
    )


def _compares(shape: MetricShape, left: str, operator: str, right: str) -> bool:
    """The metric's filter compares `left` with `right` the same way (casts and spacing
    aside)."""
    mirrored = {">": "<", "<": ">"}[operator]
    compared = shape.filter_compared
    return (left, operator, right) in compared or (right, mirrored, left) in compared


GAP_WORDS = set(said_as("aggregates_in_names"))
"""Aggregate words people put inside a metric's name ("custo médio de frete")."""


def metric_with_gaps(q: Question, intent: Intent) -> None:
    """A metric named with an aggregate word inside its phrase ("custo médio de frete" is
    "custo de frete", averaged): the metric's filter and date column still apply."""
    tokens, lexicon = q.tokens, q.lexicon
    if intent.measures.metric is not None or intent.subject.entity is not None:
        return
    kept = [t for t in tokens if t not in GAP_WORDS]
    if len(kept) == len(tokens):
        return
    metrics = lexicon.metrics_in(kept)
    if metrics:
        intent.measures.metric = metrics[0]


def values_after_their_column(
    matches: Sequence[tuple[int, int, list[Meaning]]],
) -> list[tuple[int, int, list[Meaning]]]:
    """ "do segmento indústria": a word right after its column's name is that column's
    value, even where a table is called the same."""
    kept = []
    for index, (start, end, meanings) in enumerate(matches):
        before = matches[index - 1] if index else None
        if before is not None and before[1] == start:
            named = {(m.table, m.column) for m in before[2] if m.kind == "column"}
            values = [m for m in meanings if m.kind == "value" and (m.table, m.column) in named]
            if values:
                meanings = values
        kept.append((start, end, meanings))
    return kept


def drop_values_at(
    intent: Intent, index: int, matches: Sequence[tuple[int, int, list[Meaning]]]
) -> None:
    """The states a word was read as, when it turned out to mean something else."""
    for start, end, meanings in matches:
        if start <= index < end:
            for meaning in meanings:
                drop_value(intent, meaning)


def drop_value(intent: Intent, meaning: Meaning) -> bool:
    """Takes a state's value back out of the rows' filters; whether it was one of them."""
    key = (meaning.table, meaning.column)
    values = intent.where.filters.get(key, [])
    if meaning.kind != "value" or meaning.value not in values:
        return False
    values.remove(meaning.value)
    if not values:
        del intent.where.filters[key]
    return True


def implied_metric_rows(q: Question, intent: Intent) -> None:
    """ "os produtos mais vendidos em quantidade": "vendidos" is how a metric's name ("valor
    vendido") says which rows count, so its filter (and date) apply to the rows measured,
    though the measure is another (the quantity)."""
    tokens, catalog = q.tokens, q.catalog
    if intent.measures.metric is not None or intent.subject.entity is not None:
        return
    for term, states, synonyms in _metric_states(catalog):
        spots = [i for i, t in enumerate(tokens) if states and _same_word(t, states[0])]
        if len(states) < 2 and not spots:  # "cada tarefa faturada", "best-selling"
            spots = [i for i, t in enumerate(tokens) if _a_synonyms_state(synonyms, t)]
            states = [tokens[spots[0]]] if spots else []
        negated = any(t in NEGATIONS for i in spots for t in tokens[max(0, i - 2) : i])
        if len(states) == 1 and spots and not negated and term not in intent.measures.implied:
            intent.measures.implied.append(term)


def metric_names_its_rows(q: Question, intent: Intent) -> None:
    """ "liste os títulos vencidos", "which bills are overdue": the question names the table
    the metric measures (by a word of the metric's phrase as said, or its own), so the rows
    are meant, not only their total (`Intent.lists_metric_rows`). "mostre o custo" names
    no rows."""
    tokens, lexicon = q.tokens, q.lexicon
    if intent.measures.metric is None or intent.measures.metric.metric is None:
        return
    table = intent.measures.metric.metric.table
    stems = [stem(t) for t in tokens]

    def names_rows(word: str) -> bool:
        return any(m.kind == "table" and m.table == table for m in lexicon.phrases.get((word,), []))

    said = False
    for phrase in (
        phrase_key(p) for p in [intent.measures.metric.term, *intent.measures.metric.synonyms]
    ):
        size = len(phrase)
        for start in range(len(stems) - size + 1):
            if tuple(stems[start : start + size]) != phrase:
                continue
            said = True
            # the rows named in the phrase ("títulos vencidos") or before it, by a word of
            # their own ("quais contas em atraso"); not later ("o custo … das tarefas")
            # or right after it, as English says it ("the no-show tasks")
            right_after = stems[start + size : start + size + 1]
            named = [*phrase, *stems[:start], *right_after]
            if any(names_rows(w) for w in named):
                intent.measures.metric_rows = True
                return
    # its words said apart ("which bills are overdue"), the rows' among them
    intent.measures.metric_rows = not said and any(names_rows(w) for w in stems)


def the_fuller_state_said(q: Question, intent: Intent) -> None:
    """ "reports waiting for the doctor's signature": a state read from one word ("waiting")
    is another state of the same column whose name or synonym is that word and more, every
    other word said too ("awaiting signature"); not a word of a column named ("pendentes com
    data de assinatura")."""
    tokens, matches, catalog = q.tokens, q.matches, q.catalog
    columns = {
        i for s, e, found in matches if any(m.kind == "column" for m in found) for i in range(s, e)
    }
    stems = {stem(t) for i, t in enumerate(tokens) if i not in columns}
    for (table, column), values in list(intent.where.filters.items()):
        if len(values) != 1:
            continue
        meta = catalog.table(table).column(column).meta
        fuller = next((v for v in meta.values if _fuller(v, values[0], meta, stems)), None)
        if fuller is not None:
            intent.where.filters[table, column] = [fuller]


def _fuller(other: str, value: str, meta: ColumnMeta, stems: set[str]) -> bool:
    """`other` is `value` said with more words, all of them in `stems` (a name or synonym
    of it shares a word with `value`'s, and its other words are said)."""
    if other == value:
        return False
    said = _value_words(value, meta)
    for phrase in [other.replace("_", " "), *meta.value_synonyms.get(other, ())]:
        content = [stem(w) for w in words(phrase) if w not in FUNCTION_WORDS]
        shared = [w for w in content if any(_alike(w, s) for s in said)]
        extra = [w for w in content if w not in shared]
        if shared and extra and all(w in stems for w in extra):
            return True
    return False


def _alike(word: str, other: str) -> bool:
    """One word, or one with a prefix ("awaiting", "waiting")."""
    shorter, longer = sorted((word, other), key=len)
    return longer.endswith(shorter) and len(shorter) >= ROOT_LENGTH


WITHOUT = said_as("without_words")
"""Words before a table whose rows the rows asked have none of ("sem tarefa")."""
LEFT_OUT = set(said_as("determiners_after_without"))
"""Words between "sem"/"without" and the rows ("sem nenhuma tarefa", "without any task")."""
NO = word_set("no_quantifier")
"""The word after `HAVING` that says none ("with no tasks")."""
HAVING = word_set("having_present")
"""Words before "no" that say the rows have none ("with no", "has no")."""
HAD = word_set("having_past")
"""The past of `HAVING` ("who had no tasks")."""
VERB_NEGATIONS = word_set("verb_negations")
"""Words negating the verb before the rows had ("que não têm tarefa", "who never had")."""


def rows_without_others(q: Question, intent: Intent) -> None:
    """ "projetos sem tarefa", "owners with no tasks in 2026", "donos que não têm tarefas":
    the rows asked, of which no row of the table named after "sem"/"without"/"with no"
    refers to them (in the period said after it, if one is)."""
    tokens, matches, catalog = q.tokens, q.matches, q.catalog
    starts = {start: (end, found) for start, end, found in matches}
    for index, token in enumerate(tokens):
        before = tokens[index - 1] if index else ""
        marker = token in WITHOUT or (token in NO and before in (HAVING | HAD))
        # "que não têm tarefa", "que nunca fizeram tarefa", "who never had a task"
        marker = marker or (before in VERB_NEGATIONS and token not in LEFT_OUT)
        if not marker:
            continue
        after = index + 1
        while after < len(tokens) and tokens[after] in LEFT_OUT:
            after += 1
        end, found = starts.get(after, (after, []))
        others = [m.table for m in found if m.kind in ("table", "metric")]
        # "sem tarefa atrasada": the rows a metric of the other table counts or sums
        term = next((m.term for m in found if m.kind == "metric" and m.term), None)
        condition = term.metric.filter if term and term.metric else None
        subject = next(
            (
                m.table
                for start, _e, meanings in matches
                if start < index
                for m in meanings
                if m.kind == "table"
            ),
            None,
        )
        if not others or subject is None or others[0] == subject:
            continue
        other = catalog.table(others[0])
        if not any(
            j.to == subject and set(j.on) != {other.tenant_column} for j in other.meta.joins
        ):
            continue
        # "sem tarefas em 2026": the other rows' period, said right after them (not
        # "projetos sem tarefa concluídos em maio", the projects' own)
        rest = " ".join(tokens[end : end + 4])
        period = next((p for p in intent.time.periods if rest.startswith(_bare(p.phrase))), None)
        period = period or next((p for p in intent.time.periods if rest.startswith(p.phrase)), None)
        if period is not None:
            intent.time.periods = [p for p in intent.time.periods if p is not period]
            intent.time.period = intent.time.periods[0] if intent.time.periods else None
        # the other rows' own states ("sem tarefa cancelada", "sem tarefa aprovada") are
        # theirs, said after "sem": what they must not be, not the asked rows' condition
        said = [condition] if condition else []
        for (table, column), values in [
            *intent.where.filters.items(),
            *intent.where.excluded.items(),
        ]:
            if table == other.name:
                said.append(in_values(column, values))
        said += [f"{c} IS NOT NULL" for t, c in intent.where.unset if t == other.name]
        intent.where.filters = {k: v for k, v in intent.where.filters.items() if k[0] != other.name}
        intent.where.excluded = {
            k: v for k, v in intent.where.excluded.items() if k[0] != other.name
        }
        intent.where.unset = [(t, c) for t, c in intent.where.unset if t != other.name]
        joined = " AND ".join(f"({c})" if " OR " in c else c for c in said) or None
        intent.where.without.append(Others(other.name, period, joined))
        intent.subject.tables = [t for t in intent.subject.tables if t != other.name] or [subject]
        metric = intent.measures.metric.metric if intent.measures.metric is not None else None
        if metric is not None and metric.table == other.name:
            intent.measures.metric = None  # the metric named the other rows, not what is asked
        intent.unread.taken.update(range(index, end))


def _bare(phrase: str) -> str:
    """A period's phrase without its preposition ("em 2026" → "2026")."""
    head, _, tail = phrase.partition(" ")
    return tail if head in PREPOSITIONS and tail else phrase


EVENT_START = 6
"""Letters a noun and a date's word share when both name one event ("assinatura" and
"assinado em", "comunicação" and "comunicado em")."""


STARTS_WITH = set(said_as("starts_with"))
"""Words that say a value starts with something ("código começando com 6")."""
STARTS_LINKS = word_set("starts_with_links")
"""The word right after the starting word when a value's start follows ("começando com 6")."""
STARTS_FILLER = set(STARTS_LINKS | word_set("starts_with_fillers"))
"""Words between the starting word and the start itself ("começam com a letra M")."""
TEXT_TYPES = ("text", "varchar", "character", "char")


def values_starting_with(q: Question, intent: Intent) -> None:
    """ "tarefas com código começando com 6", "codes starting with 5": the text column named
    just before (within a few words) holds values that start so."""
    tokens, matches, catalog = q.tokens, q.matches, q.catalog
    for index, token in enumerate(tokens):
        if token not in STARTS_WITH:
            continue
        at = index + 1
        if at >= len(tokens) or tokens[at] not in STARTS_LINKS:
            continue  # "semana começando na segunda": when a week starts, not a value
        # "começam com a letra M", "starting with the letter M"
        while at < len(tokens) and tokens[at] in STARTS_FILLER:
            at += 1
        if at >= len(tokens) or not re.fullmatch(r"[a-z0-9]{1,12}", tokens[at]):
            continue
        # as written (accents kept: "São"), which the values are
        start = next(
            (w for w in re.findall(r"\w+", intent.question) if fold(w) == tokens[at]), tokens[at]
        )
        named = [
            (end, m)
            for _start, end, meanings in matches
            if end <= index and index - end <= 6
            for m in meanings
            if m.kind == "column"
            and catalog.table(m.table).column(m.column).type_sql.lower().startswith(TEXT_TYPES)
        ]
        if not named:
            continue
        # the rows asked's own column first ("clientes com nome começando com …")
        _end, meaning = max(
            named, key=lambda found: (found[1].table in intent.subject.tables, found[0])
        )
        intent.where.conditions.append((meaning.table, f"{meaning.column} ILIKE '{start}%'"))
        intent.unread.taken.add(at)  # "Ana" of "começando com Ana": read as the start
        if meaning.table not in intent.subject.tables:
            intent.subject.tables.append(meaning.table)
        intent.subject.columns = [
            c for c in intent.subject.columns if c != (meaning.table, meaning.column)
        ]
        return


def events_not_happened(q: Question, intent: Intent) -> None:
    """ "tarefas sem aprovação", "tasks with no approval": the event a nullable date of the
    rows in play records, said after "sem"/"without"/"no", has not happened (the date is
    empty); a table named there is rows of its own (`rows_without_others`)."""
    tokens, matches, catalog = q.tokens, q.matches, q.catalog
    things = {s for s, _e, found in matches if any(m.kind == "table" for m in found)}
    in_play = [*intent.subject.tables, *(t for t, _c in intent.where.filters)]
    for index, token in enumerate(tokens[:-1]):
        before = tokens[index - 1] if index else ""
        if not (token in WITHOUT or (token in NO and before in HAVING)):
            continue
        after = index + 1
        while after < len(tokens) and tokens[after] in LEFT_OUT:
            after += 1
        if after >= len(tokens) or after in things or len(tokens[after]) < EVENT_START:
            continue
        noun = tokens[after][:EVENT_START]
        for table in dict.fromkeys(in_play):
            for column in catalog.table(table).columns:
                if column.not_null or not column.type_sql.startswith(DATE_TYPES):
                    continue
                said = any(w.startswith(noun) for w in spelling(column))
                if said and (table, column.name) not in intent.where.unset:
                    intent.where.unset.append((table, column.name))


PREPOSITIONS = said_as("state_period_prepositions")
"""Words between a state's participle and the period it is placed in ("emitidas em maio")."""


def state_that_dates_the_rows(q: Question, intent: Intent) -> None:
    """ "das tarefas abertas em maio, quantas foram canceladas?", "what share of the tasks
    opened in 2026 ended up cancelled": of two states of one column, one said with the
    period right after it and the other said later picks the rows by the period (the
    event's date, which they all have), not by the state they are in now; the other state
    is the one asked about. Only a state that is the event a date of its table records
    ("issued" and "issued at"), and only of rows a part of which is asked ("das …",
    "what share of …"), never two states each asked ("quantos cancelados e quantos
    entregues")."""
    tokens, catalog = q.tokens, q.catalog
    if not PART_OF.search(" ".join(tokens)):
        return
    for (table, column), values in list(intent.where.filters.items()):
        if len(values) != 2 or not intent.time.periods:
            continue
        meta = catalog.table(table).column(column).meta
        dates = [
            w[: LENGTHS.shared_start]
            for c in catalog.table(table).columns
            if c.type_sql.startswith(DATE_TYPES)
            for w in spelling(c)
            if len(w) >= LENGTHS.shared_start
        ]
        values = [v for v in values if _an_event_dated(v, meta, dates)] + [
            v for v in values if not _an_event_dated(v, meta, dates)
        ]
        spots = {
            value: [i for i, t in enumerate(tokens) if stem(t) in _value_words(value, meta)]
            for value in values
        }
        for value, other in (values, values[::-1]):
            if not _an_event_dated(value, meta, dates):
                continue
            for index in spots[value]:
                after = tokens[index + 1 :]
                bare = after[1:] if after[:1] and after[0] in PREPOSITIONS else after
                placed = [" ".join(after), " ".join(bare)]
                if any(t.startswith(p.phrase) for p in intent.time.periods for t in placed) and any(
                    later > index + 1 for later in spots[other]
                ):
                    intent.where.filters[table, column] = [other]
                    return


STILL = re.compile(rf"\b{alternation('still_in_state')}\b")
"""Words that say rows are still in a state."""


def first_state_is_its_event(q: Question, intent: Intent) -> None:
    """ "quantas tarefas foram abertas em junho", "list the tasks opened in 2025": a state
    named as the event a date every row has records (the row's first state: every row was
    "issued") and placed in a period already begun is that event, which placed the rows in
    the period, not the state they are still in now (most have moved on). A period to come
    ("agendados para amanhã") keeps the state: those rows are still in it; so do today and
    rows said to be still in it. A later event's state ("concluídas ontem") keeps its state
    and places the rows by its own date."""
    tokens, catalog, today = q.tokens, q.catalog, q.today
    if not intent.time.periods or any(p.start > today for p in intent.time.periods):
        return
    # today's, or rows said to be still in it ("ainda não realizados"), keep the first state
    dropped = all(p.start < today for p in intent.time.periods) and not intent.asked.current
    dropped = dropped and not STILL.search(" ".join(tokens))
    said = {genderless(stem(t)) for t in tokens}
    for (table, column), values in list(intent.where.filters.items()):
        meta = catalog.table(table).column(column).meta
        dated = date_column(catalog.table(table))  # the date that places its rows in time
        if dated is None or _said_as_alternatives(values, meta, tokens):
            continue
        events = _events_dated(values, meta, dated, said)
        if not dated.not_null or not events or not dropped:
            # "tarefas concluídas ontem": a later event's own date places the rows, the state
            # stays (not every row has that date)
            _dated_by_its_event(intent, catalog.table(table), values, meta, said)
            continue
        kept = [v for v in values if v not in events]
        if kept:
            intent.where.filters[table, column] = kept
        else:
            del intent.where.filters[table, column]
        intent.time.date_column = intent.time.date_column or dated.name


def _events_dated(values: list[str], meta: ColumnMeta, dated: Column, said: set[str]) -> list[str]:
    """The states said whose word is the event `dated` records."""
    starts = [w[: LENGTHS.shared_start] for w in spelling(dated) if len(w) >= LENGTHS.shared_start]
    return [
        v
        for v in values
        if _an_event_dated(v, meta, starts)
        and {genderless(w) for w in _value_words(v, meta)} & said
    ]


def _dated_by_its_event(
    intent: Intent, table: Table, values: list[str], meta: ColumnMeta, said: set[str]
) -> None:
    """The one nullable date of `table` whose event a state said names places the rows."""
    if intent.time.date_column:
        return
    dates = [c for c in table.columns if c.type_sql.startswith(DATE_TYPES) and not c.not_null]
    found = [c for c in dates if _events_dated(values, meta, c, said)]
    if len(found) == 1:
        intent.time.date_column = found[0].name


def _said_as_alternatives(values: list[str], meta: ColumnMeta, tokens: Sequence[str]) -> bool:
    """ "tarefas abertas ou canceladas": two states said as either, both states."""
    spots = sorted(
        i for v in values for i, t in enumerate(tokens) if stem(t) in _value_words(v, meta)
    )
    return any(set(tokens[a + 1 : b]) & OR for a, b in pairwise(spots))


OR = word_set("or_words")
"""Words joining two states said as either ("abertas ou canceladas")."""
PART_OF = re.compile(
    rf"^{alternation('part_of_openers')}\b"
    rf"|\b(?:{alternation('part_of_prefixes')}\w*|{alternation('part_of_words')})\b"
)
"""A part of some rows is asked: "das tarefas abertas em maio, quantas…", "what share of"."""


def _an_event_dated(value: str, meta: ColumnMeta, dates: list[str]) -> bool:
    """The state is the event a date of its table records: a word of its name or synonyms
    starts as one of the date's words ("issued" ~ "issued at", "agendado" ~ "agendada")."""
    said = [w for p in [value, *meta.value_synonyms.get(value, ())] for w in words(p)]
    return any(w[: LENGTHS.shared_start] in dates for w in said if len(w) >= LENGTHS.shared_start)


def _value_words(value: str, meta: ColumnMeta) -> set[str]:
    return {stem(w) for p in [value, *meta.value_synonyms.get(value, ())] for w in words(p)}


class _Synonyms(NamedTuple):
    """A metric's synonyms as its state words are read from them."""

    words: tuple[str, ...]
    """Every word of every synonym (an irregular verb's root is looked for among them)."""
    roots: frozenset[str]
    """The verb roots of the synonyms' participles ("faturado" in "valor faturado")."""


@per_catalog
def _metric_states(catalog: Catalog) -> list[tuple[GlossaryTerm, list[str], _Synonyms]]:
    """Each glossary metric with a filter, the participles of its name (not a thing spelled
    like one: "pedidos"), and its synonyms' words and participle roots. Read once per
    catalog object, not per question."""
    things = {
        key[0]
        for key, meanings in lexicon_for(catalog).phrases.items()
        if len(key) == 1 and any(m.kind == "table" for m in meanings)
    }
    found = []
    for term in catalog.glossary:
        if term.metric is None or not term.metric.filter:
            continue
        states = [
            w
            for w in words(term.term)
            if w.endswith(PARTICIPLES) and len(w) > 5 and stem(w) not in things
        ]
        said = tuple(w for phrase in term.synonyms for w in words(phrase))
        roots = frozenset(
            r for w in said if w.endswith(PARTICIPLES) and len(w) > 5 for r in verb_roots(w)
        )
        found.append((term, states, _Synonyms(said, roots)))
    return found


def _same_word(token: str, word: str) -> bool:
    """The same word, in either number or gender ("vendida", "vendidos": "vendido")."""
    one, other = stem(token), stem(word)
    return one == other or (
        len(one) > 4
        and one.endswith(tuple(GENDER_ENDINGS))
        and genderless(one) == genderless(other)
    )


def _a_synonyms_state(synonyms: _Synonyms, token: str) -> bool:
    """`token` is the state word of one of the term's synonyms: its participle in either
    gender ("faturada": "valor faturado"), or an English verb form of a synonym's noun
    ("sold", "best-selling": "sales")."""
    if token in IRREGULAR:
        return any(w.startswith(IRREGULAR[token]) for w in synonyms.words)
    if not token.endswith(PARTICIPLES):
        return False
    return bool(synonyms.roots & set(verb_roots(token)))


def metric_words_are_not_states(q: Question, intent: Intent) -> None:
    """ "o valor total faturado": the words of the metric's own name are the metric, not a
    state of some table spelled the same ("faturado")."""
    tokens, matches, lexicon = q.tokens, q.matches, q.lexicon
    if intent.measures.metric is None:
        return
    stems = [stem(t) for t in tokens]
    for phrase, term in lexicon.metric_phrases:
        if term is not intent.measures.metric:
            continue
        for start in range(len(stems) - len(phrase) + 1):
            if tuple(stems[start : start + len(phrase)]) != phrase:
                continue
            for first, end, _meanings in matches:  # a state named inside the metric's words
                if start <= first and end <= start + len(phrase):  # ("discordância maior" isn't)
                    drop_values_at(intent, first, matches)


AGGREGATE_WORDS = {p for said in AGGREGATES.values() for p in said if " " not in p}
"""The languages' one-word aggregates ("total", "média"): never a state of rows."""


def state_said_as_a_metric(q: Question, intent: Intent) -> None:
    """ "how many tasks ended up late": a word that, with the rows' own name, is a metric's
    phrase ("late task") asks for that metric's definition (the glossary's dates), not a
    state column's value spelled the same."""
    tokens, matches, lexicon = q.tokens, q.matches, q.lexicon
    if (
        intent.measures.metric is not None
        or intent.subject.entity is not None
        or not intent.subject.tables
    ):
        return
    names = {
        key[0]
        for key, meanings in lexicon.phrases.items()
        if len(key) == 1
        and any(m.kind == "table" and m.table in intent.subject.tables for m in meanings)
    }
    for start, token in enumerate(tokens):
        word = stem(token)
        if word in names or any(t in NEGATIONS for t in tokens[max(0, start - 2) : start]):
            continue  # "tarefas não revisadas": what did not happen is no metric of it
        if word in AGGREGATE_WORDS:
            continue  # "total de tarefas": how many, not a metric named "<table> total"
        for term, phrases in lexicon.metric_words:
            rule = term.metric
            if rule is None or rule.table not in intent.subject.tables:
                continue
            if any(len(p) == 2 and word in p and set(p) - {word} <= names for p in phrases):
                intent.measures.metric = term
                drop_values_at(intent, start, matches)
                return


RANKED_BY_COUNT = said_as("ranked_by_count")
"""Words before a plural that rank rows by how many ("the most no-shows")."""
COUNTED_AFTER = (*RANKED_BY_COUNT, *said_as("count_askers"))
"""Words after which a plural names rows counted ("the most no-shows", "quantas faltas")."""


def rows_counted_not_a_rate(q: Question, intent: Intent) -> None:
    """ "which month had the most no-shows": a word that is both a rate's name and a state,
    counted, means the rows in that state, not the rate."""
    tokens, matches = q.tokens, q.matches
    metric = intent.measures.metric.metric if intent.measures.metric else None
    if metric is None or metric.shape.aggregate != "avg":
        return
    for start, _end, meanings in matches:
        if not start or tokens[start - 1] not in COUNTED_AFTER:
            continue
        if not any(m.kind == "metric" and m.term is intent.measures.metric for m in meanings):
            continue
        state = next((m for m in meanings if m.kind == "value" and m.table == metric.table), None)
        if state is not None:
            intent.measures.metric = None
            values = intent.where.filters.setdefault((state.table, state.column), [])
            if state.value not in values:
                values.append(state.value)
            if tokens[start - 1] not in RANKED_BY_COUNT:
                intent.measures.aggregate = "count"
            return


def states_a_term_defines(q: Question, intent: Intent) -> None:
    """ "the delayed deliveries", "tarefas atrasadas entregues": a state word that is a word
    of a glossary metric's name on the same rows, where the glossary defines that metric by
    other columns than the state's (a late row delivered has left the "late" state), means
    the glossary's definition, not the state. Of one row, the word still asks its state."""
    tokens, matches, catalog = q.tokens, q.matches, q.catalog
    if intent.subject.entity is not None:
        return
    defined = states_defined_apart(catalog)
    for start, end, meanings in matches:
        said = {stem(t) for t in tokens[start:end]}
        for meaning in meanings:
            if meaning.kind != "value":
                continue
            if meaning.value not in intent.where.filters.get((meaning.table, meaning.column), []):
                continue
            candidates = defined.get((meaning.table, meaning.column, meaning.value), [])
            term = next((t for t, phrases in candidates if any(said <= p for p in phrases)), None)
            if term is None or term.metric is None:
                continue
            drop_values_at(intent, start, matches)
            condition = (meaning.table, term.metric.filter or "")
            if term is not intent.measures.metric and condition not in intent.where.conditions:
                intent.where.conditions.append(condition)
            break


@per_catalog
def states_defined_apart(
    catalog: Catalog,
) -> dict[tuple[str, str, str], list[tuple[GlossaryTerm, list[set[str]]]]]:
    """For each state, the metrics on its table (with their phrases' words) whose filter
    tests other columns than the state's and never the state itself. Read once per
    catalog."""
    found: dict[tuple[str, str, str], list[tuple[GlossaryTerm, list[set[str]]]]] = {}
    for term, phrases in lexicon_for(catalog).metric_words:
        rule = term.metric
        if rule is None or not rule.filter:
            continue
        table = catalog.table(rule.table)
        tested = {c.name for c in table.columns if c.name in rule.shape.filter_names}
        for column in table.columns:
            if not tested - {column.name}:
                continue  # defined by the state's own column ("status <> 'PAGO'"): the state
            for value in column.meta.values:
                if value in rule.shape.values:
                    continue
                key = (table.name, column.name, value)
                found.setdefault(key, []).append((term, [set(p) for p in phrases]))
    return found


CODE_SHAPE = re.compile(r"^[A-Z]{2,3}$")
"""A column's example written as a short upper-case code ("XY"): its values are codes of
that shape, though the catalog does not list them."""


@per_catalog
def coded_columns(catalog: Catalog) -> list[tuple[Table, Column]]:
    """The columns whose example is a short upper-case code and whose values the catalog
    does not list (the tenant's own table left out), read once per catalog."""
    return [
        (table, column)
        for table in catalog.tables.values()
        if table.primary_key != (table.tenant_column,)
        for column in table.columns
        if column.meta.example and CODE_SHAPE.match(column.meta.example) and not column.meta.values
    ]


def coded_values(q: Question, intent: Intent) -> None:
    """ "quanto faturamos em XY", "donos do XY ou de ZW", "horas fora de XY": an
    upper-case code of the shape of a column's example, said after a preposition (or in a
    list after one) and known to the catalog no other way, is a value of that column (of the
    rows asked about, else of a table tied to them; never the tenant's own); several are one
    list, and a negation before the first leaves them out. The codes read are taken (never
    unknown words)."""
    question, lexicon, catalog = q.question, q.lexicon, q.catalog
    shaped = coded_columns(catalog)
    read: list[str] = []
    if not shaped:
        return
    # a name's last word ("Padaria São Jorge ME", "Loja Azul S.A.") is no code
    names = set(re.findall(r"[A-ZÀ-Ý][\w.]*(?:\s+[A-ZÀ-Ý][\w.]*)*\s+([A-Z]{2,3})\b", question))
    said = re.findall(r"[\w.]+", question)
    codes: list[str] = []
    for index, code in enumerate(said):
        word = fold(code)
        if not CODE_SHAPE.match(code) or code in names or code in codes:
            continue
        if (word,) in lexicon.phrases or stem(word) in lexicon.vocabulary or word in FUNCTION_WORDS:
            continue
        before = fold(said[index - 1]) if index else ""
        listed = bool(codes) and before in CODE_LIST
        if before in CODE_PLACES or listed:
            codes.append(code)
    if not codes:
        return
    fits = [(t, c) for t, c in shaped if len(c.meta.example or "") == len(codes[0])]
    involved = [*intent.subject.tables, *(t for t, _c in intent.where.filters)]
    if intent.measures.metric and intent.measures.metric.metric:
        involved.append(intent.measures.metric.metric.table)
    near = [(t, c) for t, c in fits if involved and tied(catalog, t.name, involved)]
    first = fold(codes[0])
    at = [fold(w) for w in said].index(first)
    negated = {fold(w) for w in said[max(0, at - 3) : at]} & CODE_NEGATIONS
    for table, column in (near or fits)[:1]:
        stated = in_values(column.name, codes, negated=bool(negated))
        intent.where.conditions.append((table.name, stated))
        read += [fold(c) for c in codes]
        # "pedidos de XY contra ZW", "XY vs ZW, count for each": a measure of each code
        measured = intent.measures.aggregate or intent.measures.metric or intent.measures.measure
        compared = COMPARED & {fold(w) for w in said}
        if len(codes) > 1 and not negated and measured and compared and not intent.groups:
            intent.groups.append(Group(table.name, column.name))
    intent.unread.taken.update(i for i, t in enumerate(q.tokens) if t in read)


CODE_PLACES = set(said_as("code_prepositions"))
"""Prepositions a place or kind said by its code follows ("em XY", "from ZW")."""
CODE_LIST = {*said_as("code_list_links"), ","} | CODE_PLACES
COMPARED = set(said_as("compared_against"))
"""Words that set codes against each other ("XY vs ZW"): each measured apart."""
"""Words between codes of one list ("XY e ZW", "XY, ZW ou KL")."""
CODE_NEGATIONS = {*NEGATIONS, *said_as("code_exclusions")}
"""Words before a code that leave it out ("fora de XY")."""
