"""The readings of a question, in the order the parse runs them: `READINGS`.

`parser.parse` normalises the question and reads it into a `Question` (`parser.question_of`:
its words, the catalog's phrases in them, the row it names, the periods it names), then runs
every reading of `READINGS`, in order, on that question and one `Intent`, then reads what was
left unknown. The list is the parse. Each reading is `reading(question, intent) -> None`: it
reads what it needs of the question (frozen: the same for every reading) and of the intent
(what the readings before it understood), and writes what it understands into the intent.
Building SQL (`sql.build_sql`) reads the intent without changing it.

>>> for reading in READINGS:
...     print(f"{reading.name:<29} {reading.module}")
asked_kind                    readings
terms                         readings
row_named                     readings
concept_asked                 readings
periods                       readings
top_asked                     asking
recency                       phrasing
status_asked                  readings
stage_of_a_row                readings
history_asked                 readings
aggregate_asked               asking
groups                        grouping
things_then_states            readings
states_in_names               readings
short_states                  readings
states_of_rows_named          readings
metric_named                  readings
metric_with_gaps              conditions
rows_counted_not_a_rate       conditions
state_said_as_a_metric        conditions
metric_words_are_not_states   conditions
metric_per_unit               conditions
metric_by_verb                verbs
implied_metric_rows           conditions
duration_asked                durations
concepts                      readings
entity_attribute              readings
amount_of_one_row             phrasing
amounts_of_listed_rows        phrasing
entity_columns                phrasing
state_of_a_yes_no             asking
who_did_it                    actors
negations                     readings
flags_said                    flags
not_yet                       lifecycle
state_today                   lifecycle
done_state                    lifecycle
date_comparison               conditions
deadline_readings             deadlines
late_now                      deadlines
units_of_a_sum                readings
measure                       readings
states_that_are_the_rows_verb verbs
rows_a_metric_sums            conditions
metric_names_its_rows         conditions
amount_of_the_first_row       phrasing
state_that_dates_the_rows     conditions
first_state_is_its_event      conditions
the_fuller_state_said         conditions
rows_without_others           conditions
events_not_happened           conditions
values_starting_with          conditions
distinct_count                phrasing
states_a_term_defines         conditions
aged_past_deadline            deadlines
several_measures              clauses
extremes_asked                clauses
average_per_row               averages
share_asked                   shares
group_shares                  shares
values_compared               grouping
rows_that_acted               buyers
owners_listed                 buyers
owners_counted                buyers
listed_columns                phrasing
either_ranked                 buyers
most_sold                     ranking
speed_ranked                  ranking
time_ranked_alone             ranking
rate_rows_ranked              phrasing
rank_subject                  phrasing
who_ranked                    phrasing
ranked_group                  grouping
ranked_by_count               grouping
worst_and_best                ranking
groups_of_other_rows          grouping
examples_of_groups            filler
comparisons_the_metric_makes  readings
states_the_rate_tests         readings
undated_kinds_in_time         dating
periods_compared_counted      readings
each_event_of_a_history       readings
now_not_today                 readings
coded_values                  conditions
name_said                     readings

- The row a question names by its number ("tarefa 12", "loja 2") and the periods it names are
  found while the question is built, not by a reading: they decide what the readings are
  given (the row's tokens are no phrase of the catalog and no period: `Question.matches` and
  `Question.masked` leave them out). The first readings only record them in the intent
  (`row_named`, `periods`), where they always were; the question stays frozen. So does a row's
  own name ("Empório São Jorge ME", `Question.named`): its words are taken out of the tokens
  before any is read; `name_said` records it last, as the parse always did.
- What a reading leaves or takes for the unknown words is the parse's bookkeeping, kept in the
  intent: `Unread.states` (a state's word said of rows that have no such state, from
  `short_states`) and `Unread.taken` (positions of tokens a reading took beyond the catalog's
  phrases: `rows_without_others`, `rows_that_acted`, `coded_values`).
- A reading that reads one clause of the question apart (`several_measures`) reads it with
  `Question.read_clause` (a whole parse, with no further split); the readings of clauses run
  only when `Question.clauses` says so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from orquestra.ddl_catalog.model import Catalog, per_catalog
from orquestra.ddl_catalog.text import fold, stem, words
from orquestra.offline.actors import who_did_it
from orquestra.offline.asking import (
    COUNT_NAMES,
    LIST_OPENER,
    aggregate_asked,
    state_of_a_yes_no,
    top_asked,
)
from orquestra.offline.averages import average_per_row
from orquestra.offline.buyers import (
    either_ranked,
    owners_counted,
    owners_listed,
    rows_that_acted,
)
from orquestra.offline.clauses import extremes_asked, several_measures
from orquestra.offline.concepts import asks_what_it_means
from orquestra.offline.conditions import (
    coded_values,
    date_comparison,
    drop_value,
    events_not_happened,
    first_state_is_its_event,
    implied_metric_rows,
    metric_names_its_rows,
    metric_per_unit,
    metric_with_gaps,
    metric_words_are_not_states,
    rows_a_metric_sums,
    rows_counted_not_a_rate,
    rows_without_others,
    state_said_as_a_metric,
    state_that_dates_the_rows,
    states_a_term_defines,
    the_fuller_state_said,
    values_starting_with,
)
from orquestra.offline.dating import undated_kinds_in_time
from orquestra.offline.deadlines import aged_past_deadline, deadline_readings, late_now
from orquestra.offline.durations import duration_asked
from orquestra.offline.filler import examples_of_groups
from orquestra.offline.flags import flags_said
from orquestra.offline.grouping import (
    groups,
    groups_of_other_rows,
    ranked_by_count,
    ranked_group,
    values_compared,
)
from orquestra.offline.intent import Intent
from orquestra.offline.lang import LANGUAGES, alternation, word_set
from orquestra.offline.lang import words as said_as
from orquestra.offline.lang.morphology import (
    FINITE_PAST,
    MORPHOLOGIES,
    PARTICIPLE_ENDINGS,
    PARTICIPLES,
    genderless,
    shares_root,
)
from orquestra.offline.lexicon import (
    DATE_TYPES,
    EVENT_VERBS,
    FUNCTION_WORDS,
    NEGATIONS,
    Meaning,
    amount_column,
    date_column,
    display_column,
    is_measure,
    spelling,
    tied,
)
from orquestra.offline.lifecycle import done_state, not_yet, state_today
from orquestra.offline.phrasing import (
    amount_of_one_row,
    amount_of_the_first_row,
    amounts_of_listed_rows,
    distinct_count,
    entity_columns,
    listed_columns,
    rank_subject,
    rate_rows_ranked,
    recency,
    who_ranked,
)
from orquestra.offline.question import Match, Question
from orquestra.offline.ranking import most_sold, speed_ranked, time_ranked_alone, worst_and_best
from orquestra.offline.shares import group_shares, share_asked
from orquestra.offline.verbs import metric_by_verb, states_that_are_the_rows_verb, tables_by_verb

# Words of the languages for "in what state is it"; a deployment's own words for its events
# ("tracking") are its series table's synonyms, read from the catalog (graph/offline/sql.py).
STATUS_WORDS = said_as("status_words")
LISTING = re.compile(rf"^({alternation('listing_openers')}|{LIST_OPENER})\b")
CURRENT = re.compile(rf"\b{alternation('asks_current')}\b")
DATA_ASK = re.compile(rf"\b{alternation('data_askers')}\b")
LEFT_OUT = said_as("left_out_after")
"""Words after a state that leave its rows out: "(tarefas canceladas fora)"."""
STAGE_WORDS = said_as("stage_words")
"""The languages' words for a stage: of one row, its state."""
WAITING_FOR = said_as("waiting_for")
"""Words before a state's verb that say it has not happened yet ("esperando aprovar")."""
WAITING_LINKS = word_set("waiting_links")
"""Words between a waiting word and the state ("pendentes de aprovação", "waiting to be")."""
OF = [(w,) for w in said_as("of_singular")]
"""The preposition alone after a state said of a table ("faltas de aluno")."""
LEAVE = said_as("leave_verbs")
"""Verbs that leave rows out only with "out"/"fora" after them ("leave … out")."""
LEAVE_OUT = word_set("leave_out_particles")
GERUNDS = said_as("gerund_endings")
"""A verb said as going on ("alunos faltando"): what the rows before it are doing."""
ARTICLES = said_as("articles")
HISTORY = re.compile(rf"\b{alternation('history_words')}\b")


@dataclass(frozen=True)
class Reading:
    """One reading of the question, as the parse runs it."""

    name: str
    function: Callable[[Question, Intent], None]

    @property
    def module(self) -> str:
        """The module the reading is written in (`readings`: the parse's own)."""
        return self.function.__module__.rsplit(".", 1)[-1]


def _asked_kind(q: Question, intent: Intent) -> None:
    """What kind of answer is asked: data ("me mostre os dados"), a list ("liste", "quais"),
    the current state ("agora", "right now")."""
    intent.asked.asks_data = bool(DATA_ASK.search(q.text))
    intent.asked.listing = bool(LISTING.match(q.text))
    intent.asked.current = bool(CURRENT.search(q.text))


def _terms(q: Question, intent: Intent) -> None:
    """The glossary terms the question names (for what a concept means)."""
    intent.terms = q.lexicon.terms_in(q.tokens)


def _row_named(q: Question, intent: Intent) -> None:
    """ "tarefa 12", "loja 2": the row (or the tenant) named by its number, as the question
    was read (`Question.entity`)."""
    intent.subject.entity = q.entity
    intent.subject.tenant_value = q.tenant_value


def _concept_asked(q: Question, intent: Intent) -> None:
    """ "o que conta como atraso?": what something means is asked (of no row named)."""
    intent.asked.is_concept = asks_what_it_means(q.text) and intent.subject.entity is None


def _periods(q: Question, intent: Intent) -> None:
    """ "em maio", "este mês com o mês passado": the periods named, the first one the rows'."""
    intent.time.periods = list(q.periods)
    intent.time.period = intent.time.periods[0] if intent.time.periods else None


def _status_asked(q: Question, intent: Intent) -> None:
    """ "qual o status", "onde está": a current state is asked."""
    intent.asked.wants_status = any(re.search(rf"\b{w}\b", q.text) for w in STATUS_WORDS)


def _stage_of_a_row(q: Question, intent: Intent) -> None:
    """ "em que etapa está a tarefa 7?": of one row, a stage is its state (of many, "por
    etapa" would be a grouping this reading does not make)."""
    stage = intent.subject.entity is not None and any(w in STAGE_WORDS for w in q.tokens)
    intent.asked.wants_status = intent.asked.wants_status or stage


def _history_asked(q: Question, intent: Intent) -> None:
    """ "o histórico da tarefa 7": every event is asked, not the latest."""
    intent.asked.history = bool(HISTORY.search(q.text))


def _things_then_states(q: Question, intent: Intent) -> None:
    """What each phrase of the catalog means (`_note`), things first, then their states:
    "missed shifts" is the shifts' own "missed", whichever word comes first."""
    for _start, _end, meanings in sorted(
        q.matches, key=lambda match: not any(m.kind == "table" for m in match[2])
    ):
        _note(intent, meanings)


def _metric_named(q: Question, intent: Intent) -> None:
    """The glossary metric named: the longest phrase wins ("cost per hour worked")."""
    metrics = q.lexicon.metrics_in(q.tokens, q.matches)
    if metrics:
        intent.measures.metric = metrics[0]


def _name_said(q: Question, intent: Intent) -> None:
    """ "do Empório São Jorge ME": a row's own name, its words read as a name, not as the
    catalog's (`Question.named`); as found in the asker's rows when kept in two columns of a
    row ("Margaret Peacock")."""
    intent.subject.named = q.named
    intent.subject.named_split = q.lexicon.split_names.get(fold(q.named or ""))


def _note(intent: Intent, meanings: list[Meaning]) -> None:
    """Record what a phrase means; a metric wins, then a table, a value, a column."""
    kinds = {m.kind: [x for x in meanings if x.kind == m.kind] for m in meanings}
    if "metric" in kinds:
        intent.measures.metric = intent.measures.metric or kinds["metric"][0].term
    elif "table" in kinds:
        named = {m.table for m in kinds["table"]}
        for meaning in kinds["table"]:
            if meaning.table not in intent.subject.tables:
                intent.subject.tables.append(meaning.table)
        # A column of another table spelled like this one ("cliente" on an order) is asked
        # for; the table's own column spelled like it is just the table named.
        intent.subject.columns.extend(
            (m.table, m.column) for m in kinds.get("column", []) if m.table not in named
        )
        for meaning in kinds.get("value", []):  # "critical findings": the rows in that state
            if meaning.table in named:
                values = intent.where.filters.setdefault((meaning.table, meaning.column), [])
                if meaning.value not in values:
                    values.append(meaning.value)
    elif "value" in kinds:
        chosen = next(
            (m for m in kinds["value"] if m.table in intent.subject.tables), kinds["value"][0]
        )
        values = intent.where.filters.setdefault((chosen.table, chosen.column), [])
        if chosen.value not in values:
            values.append(chosen.value)
    else:
        intent.subject.columns.extend((m.table, m.column) for m in kinds["column"])


def _concepts(q: Question, intent: Intent) -> None:
    """A concept mentioned by a synonym ("late orders") brings what its name means."""
    lexicon = q.lexicon
    for term in intent.terms:
        if term.metric is None:
            for _start, _end, meanings in lexicon.match(words(term.term)):
                if any(m.kind in ("table", "value") for m in meanings):
                    _note(intent, [m for m in meanings if m.kind in ("table", "value")])


def _states_in_names(q: Question, intent: Intent) -> None:
    """A table named by its rows' state ("tarefas urgentes", "urgent tasks" as the
    table's own synonym) still means that state: a word inside the name that is one of the
    table's values filters by it."""
    tokens, matches, lexicon = q.tokens, q.matches, q.lexicon
    for start, end, meanings in matches:
        named = {m.table for m in meanings if m.kind == "table"}
        if not named or end - start < 2:
            continue
        for token in tokens[start:end]:
            for meaning in lexicon.phrases.get((stem(token),), []):
                if meaning.kind == "value" and meaning.table in named:
                    values = intent.where.filters.setdefault((meaning.table, meaning.column), [])
                    if meaning.value not in values:
                        values.append(meaning.value)


def _short_states(q: Question, intent: Intent) -> None:
    """ "a tarefa 7 está travada", "tarefas anuladas": a state said by the one word a
    glossary term puts beside its table's name, of the rows in play: that table's state, or
    the state of the same name of other rows ("projetos anulados": the projects' own
    cancelled). The words said of rows with no such state are left (`Unread.states`), not
    understood."""
    tokens, lexicon, catalog = q.tokens, q.lexicon, q.catalog
    rows = [*([intent.subject.entity[0]] if intent.subject.entity else []), *intent.subject.tables]
    for token in tokens:
        meaning = lexicon.short_states.get(genderless(stem(token)))
        if meaning is None or not rows:
            continue
        found = _same_state(meaning, rows, catalog)
        if found is None:
            intent.unread.states.append(token)
            continue
        table, column, value = found
        if intent.subject.entity and intent.subject.entity[0] == table:
            intent.asked.wants_status = True  # of one row, the state is asked
            continue
        values = intent.where.filters.setdefault((table, column), [])
        if value not in values:
            values.append(value)


def _same_state(meaning: Meaning, rows: list[str], catalog: Catalog) -> tuple[str, str, str] | None:
    """The state of the first of `rows` that is `meaning`'s, or is named like it."""
    root = genderless(fold(meaning.value))
    for name in rows:
        if name == meaning.table:
            return meaning.table, meaning.column, meaning.value
        for column in catalog.table(name).columns:
            for value in column.meta.values:
                if genderless(fold(value)) == root:
                    return name, column.name, value
    return None


def _states_of_rows_named(q: Question, intent: Intent) -> None:
    """ "quantas faltas de aluno", "quantos alunos faltaram": a state said as a noun, of
    ("de") a table its rows refer to, or as a verb the table did, names its own rows (the
    absences, each a row of the state's table), not the rows of the table it is said of
    ("alunos cancelados", a participle, are still students)."""
    tokens, matches, catalog = q.tokens, q.matches, q.catalog
    spans = {start: (end, meanings) for start, end, meanings in matches}
    for start, (end, meanings) in spans.items():
        states = {m.table for m in meanings if m.kind == "value"}
        if not states or any(m.kind == "table" for m in meanings):
            continue
        after = end + 1 if tokens[end : end + 1] in OF else None
        named = spans[after][1] if after in spans else []
        # "quantos alunos faltaram": a verb said of the table before it is what they did
        acted = end - start == 1 and tokens[start].endswith((*FINITE_PAST, *GERUNDS))
        before: list[Meaning] = (
            next((m for s, (e, m) in spans.items() if e == start), []) if acted else []
        )
        tables = {m.table for m in [*named, *before] if m.kind == "table"}
        if not tables or tables & states:
            continue  # "cancelamentos de tarefas": the tasks' own state
        for state in states:
            refers = {j.to for j in catalog.table(state).meta.joins}
            if tables & refers and state not in intent.subject.tables:
                intent.subject.tables = [state if t in tables else t for t in intent.subject.tables]
                intent.subject.tables = list(dict.fromkeys(intent.subject.tables))
                return


def _entity_attribute(q: Question, intent: Intent) -> None:
    """ "qual o prazo da tarefa 12": one row's own column, not the metric spelled the same
    (a metric summarises many rows; a single row has attributes)."""
    matches = q.matches
    if (
        not intent.subject.entity
        or intent.measures.metric is None
        or intent.measures.aggregate
        or intent.groups
    ):
        return
    for _start, _end, meanings in matches:
        if not any(m.kind == "metric" and m.term is intent.measures.metric for m in meanings):
            continue
        own = [m for m in meanings if m.kind == "column" and m.table == intent.subject.entity[0]]
        if own:
            intent.measures.metric = None
            intent.subject.columns.extend((m.table, m.column) for m in own)
            return


def _negations(q: Question, intent: Intent) -> None:
    """What a question says did not happen. A negated state ("tarefas não concluídas") is
    excluded; a negated verb whose root names a nullable timestamp of a table in play
    ("tarefas nunca revisadas", "tasks not approved") means that timestamp is empty, which
    says it better than the state spelled the same."""
    tokens, matches, catalog = q.tokens, q.matches, q.catalog
    involved = [*intent.subject.tables, *(t for t, _ in intent.where.filters)]
    if intent.subject.entity:
        involved.append(intent.subject.entity[0])
    things = {
        (i, m.table)
        for s, e, found in matches
        for m in found
        if m.kind == "table"
        for i in range(s, e)
    }
    for start, end, meanings in matches:
        # "sem contar os cancelados", "leave the cancelled ones out": articles aside, and
        # the rows' own name ("sem contar tarefa cancelada"; not another table's: "projetos
        # sem tarefa e concluídos" are done)
        own = {m.table for m in meanings if m.kind == "value"}
        window = range(max(0, start - 4), start)
        # another table named in between takes the negation ("sem tarefa concluídos")
        others = [i for i in window if any(i == j and t not in own for j, t in things)]
        window = range(others[-1] + 1, start) if others else window
        before = [
            tokens[i]
            for i in window
            if tokens[i] not in ARTICLES and not any((i, table) in things for table in own)
        ][-2:]
        # "cancelled orders excluded": past the rows' own name
        tail = end + 1 if any((end, table) in things for table in own) else end
        after = tokens[tail : tail + 2]
        # "(cancelados fora)" leaves them out; "entregues fora do prazo" says when
        left_out = bool(after) and after[0] in LEFT_OUT
        left_out = left_out and not (after[1:] and after[1] in FUNCTION_WORDS)
        # "leave the cancelled orders out", "deixando as canceladas de fora"
        leave = any(t in LEAVE for t in tokens[max(0, start - 3) : start])
        left_out = left_out or (leave and bool(set(tokens[end : end + 3]) & LEAVE_OUT))
        # "tarefa esperando aprovar", "waiting to be approved": not yet in that state
        # (right before it, or with "de"/"to be" between: never an adjective of another)
        gap = tokens[max(0, start - 3) : start]
        # (a participle right after it is another state of the rows: "faturas pendentes vencidas")
        participle = tokens[start].endswith(PARTICIPLES)
        waiting = bool(gap) and gap[-1] in WAITING_FOR and not participle
        waiting = waiting or any(
            t in WAITING_FOR and gap[i + 1 :] and set(gap[i + 1 :]) <= WAITING_LINKS
            for i, t in enumerate(gap)
        )
        if not (any(t in NEGATIONS for t in before) or left_out or waiting):
            continue
        for meaning in meanings:
            if drop_value(intent, meaning):  # said not to hold: excluded instead
                excluded = intent.where.excluded.setdefault((meaning.table, meaning.column), [])
                excluded.append(meaning.value)
    for index, token in enumerate(tokens):
        if not any(t in NEGATIONS for t in tokens[max(0, index - 2) : index]):
            continue
        for table in dict.fromkeys(involved):
            # another table named in between takes the negation ("sem tarefa aprovados")
            if any(i == index - 1 and t != table for i, t in things):
                continue
            for column in catalog.table(table).columns:
                if column.not_null or not column.type_sql.startswith(DATE_TYPES):
                    continue
                spelled = spelling(column)
                # "never passed on": a participle the date is spelled with, however short
                # (one a state is called too, "not signed", is that state's reading)
                said = shares_root(token, spelled) or (
                    token in spelled
                    and token.endswith(PARTICIPLE_ENDINGS)
                    and token not in state_words(catalog)[table]
                )
                if said and (table, column.name) not in intent.where.unset:
                    intent.where.unset.append((table, column.name))
                    intent.where.excluded = {
                        k: v for k, v in intent.where.excluded.items() if k[0] != table
                    }


@per_catalog
def state_words(catalog: Catalog) -> dict[str, set[str]]:
    """Each table's words its states are called by (values and value synonyms), read once
    per catalog."""
    return {
        table.name: {
            w
            for column in table.columns
            for value in column.meta.values
            for said in (value, *column.meta.value_synonyms.get(value, ()))
            for w in words(said.replace("_", " "))
        }
        for table in catalog.tables.values()
    }


PRESENT_HAVE = word_set("present_have")
"""Present verbs of holding or being: "quanto temos vencido hoje" is how much is overdue now."""
TODAY = word_set("today")
PERFECT = word_set("perfect_auxiliaries")
"""Auxiliaries of a perfect ("have done"): with a participle after them, events told."""


def participle_endings_of(concept: str) -> tuple[str, ...]:
    """The participle endings of the languages that say `concept` (a language's participles
    are read only after its own words)."""
    return tuple(
        dict.fromkeys(
            ending
            for code, forms in MORPHOLOGIES.items()
            if LANGUAGES[code].words(concept)
            for ending in forms.participle_endings
        )
    )


PERFECT_PARTICIPLES = participle_endings_of("perfect_auxiliaries")


def _now_not_today(q: Question, intent: Intent) -> None:
    """ "quanto temos vencido hoje", "what do we have outstanding today": "today" with a
    present verb of a state (or a metric) is now, the state's rows whatever their date, not
    the rows dated today ("quantas foram canceladas hoje" is)."""
    tokens = q.tokens
    if len(intent.time.periods) != 1 or intent.time.periods[0].phrase not in TODAY:
        return
    having = [i for i, t in enumerate(tokens) if t in PRESENT_HAVE]
    # ("how many exams have we done today": an English perfect tells of events, today's)
    perfect = [
        i
        for i in having
        if tokens[i] in PERFECT
        and any(t.endswith(PERFECT_PARTICIPLES) or t in EVENT_VERBS for t in tokens[i + 1 :])
    ]
    if (intent.where.filters or intent.measures.metric) and having and not perfect:
        intent.time.periods, intent.time.period = [], None


def _units_of_a_sum(q: Question, intent: Intent) -> None:
    """ "how many overtime hours": "how many" of the very amount a metric adds up (its
    column named) is that sum, not a count of its rows."""
    rule = intent.measures.metric.metric if intent.measures.metric else None
    if rule is None or intent.measures.aggregate != "count":
        return
    summed = rule.shape.summed_column
    if summed and (rule.table, summed) in intent.subject.columns:
        intent.measures.aggregate = None


def _measure(q: Question, intent: Intent) -> None:
    matches, catalog = q.matches, q.catalog
    if intent.measures.metric is not None:
        return
    numeric = [(t, c) for t, c in intent.subject.columns if is_measure(catalog.table(t), c)]
    involved = {*intent.subject.tables, *(t for t, _ in intent.where.filters)}
    if numeric and all(_a_count_of_others(m, intent, catalog) for m in numeric):
        intent.measures.aggregate = (
            "count"  # "quantidade de tarefas": how many, not another's units
        )
        return
    preferred = [m for m in numeric if m[0] in involved]
    if numeric and not preferred:
        # "o valor total das tarefas": the named rows' own amount of that head word ("valor")
        head = numeric[0][1].split("_")[0]
        preferred = [
            (t, c.name)
            for t in intent.subject.tables
            for c in catalog.table(t).columns
            if c.name.split("_")[0] == head and is_measure(catalog.table(t), c.name)
        ]
    # "peso por transportadora", "which carrier moved the most weight": the weight of the
    # rows that refer to what groups them, or to the rows named
    grouped = {g.table for g in intent.groups if g.table} or involved
    if len(numeric) > 1 and not preferred and grouped:
        preferred = [
            m for m in numeric if any(j.to in grouped for j in catalog.table(m[0]).meta.joins)
        ]
    if len(numeric) > 1 and not preferred:
        # "how many kilos did we ship": the kilos of the rows the verb is about
        shipped = tables_by_verb(words(intent.question), catalog)
        preferred = [m for m in numeric if m[0] in shipped]
    if len(numeric) > 1 and not preferred and intent.time.periods:
        # "quantos kg em maio": a period places only the rows that have a date
        preferred = [m for m in numeric if date_column(catalog.table(m[0])) is not None]
    # (a recency's "top" is how many rows in date order, not a ranking by an amount)
    ranked = bool(intent.ordering.top) and not intent.ordering.recency
    wants_number = intent.measures.aggregate in ("sum", "avg", "max", "min", "total") or ranked
    # "as unidades pedidas por categoria": an amount named and grouped is summed per group
    wants_number = wants_number or bool(intent.groups and not intent.measures.aggregate)
    if intent.measures.aggregate in ("sum", "avg", "max", "min") and not numeric:
        numeric = _amount_of_rows_named(intent, matches, catalog)
    if wants_number and numeric:
        intent.measures.measure = (preferred or numeric)[0]
        if intent.measures.aggregate in (None, "count", "total"):
            intent.measures.aggregate = "sum"
    elif intent.measures.aggregate == "total":
        intent.measures.aggregate = "count"


def _a_count_of_others(measure: tuple[str, str], intent: Intent, catalog: Catalog) -> bool:
    """ "quantidade de tarefas": an amount called by a counting word, of a table neither
    named nor tied to one named (its rows are not the named ones' parts), asks how many of
    the named rows there are."""
    table, column = measure
    if (
        not intent.subject.tables
        or table in intent.subject.tables
        or not COUNT_NAMES & set(column.split("_"))
    ):
        return False
    return not tied(catalog, table, intent.subject.tables)


def _amount_of_rows_named(
    intent: Intent, matches: Sequence[Match], catalog: Catalog
) -> list[tuple[str, str]]:
    """ "quanto custa em média o frete de uma tarefa", "quanto vale em média cada tarefa": a
    sum or average of rows named with no column of theirs: the column a word names beside
    its table, else the rows' amount in money."""
    for _start, _end, meanings in matches:
        named = {m.table for m in meanings if m.kind == "table"}
        own = [
            (m.table, m.column)
            for m in meanings
            if m.kind == "column"
            and m.table in named
            and is_measure(catalog.table(m.table), m.column)
        ]
        if own:
            return own[:1]
    for table in intent.subject.tables[:1]:
        amount = amount_column(catalog.table(table))
        if amount is not None:
            return [(table, amount)]
    return []


def _comparisons_the_metric_makes(q: Question, intent: Intent) -> None:
    """ "what percentage of tasks were done on time": a comparison the metric itself makes
    (a rate of rows where one date is before another) is what it measures, not a condition
    on its rows (which would make every rate 100%); one its filter makes is already kept."""
    rule = intent.measures.metric.metric if intent.measures.metric else None
    if rule is None:
        return
    intent.where.comparisons = [
        (table, left, operator, right)
        for table, left, operator, right in intent.where.comparisons
        if (left, operator, right) not in rule.shape.compared
    ]


def _states_the_rate_tests(q: Question, intent: Intent) -> None:
    """ "a taxa de cancelamento das tarefas que cancelaram em 2025": a state a rate's own
    expression tests (the share of rows in it) is what the rate measures; as a condition too,
    every rate would be 100%."""
    rule = intent.measures.metric.metric if intent.measures.metric else None
    if rule is None or not (rule.shape.has_case or rule.shape.has_filter_clause):
        return
    for (table, column), values in list(intent.where.filters.items()):
        if table != rule.table:
            continue
        kept = [v for v in values if v not in rule.shape.expression_values]
        if kept:
            intent.where.filters[table, column] = kept
        else:
            del intent.where.filters[table, column]


def _periods_compared_counted(q: Question, intent: Intent) -> None:
    """ "tarefas concluídas no 1º tri de 2026 vs 1º tri de 2025": rows compared across
    periods, nothing else measured, are counted in each (a list of both says nothing)."""
    if len(intent.time.periods) < 2 or intent.asked.listing or intent.subject.entity:
        return
    if not (
        intent.measures.metric
        or intent.measures.measure
        or intent.measures.aggregate
        or intent.groups
    ):
        intent.measures.aggregate = "count"


def _each_event_of_a_history(q: Question, intent: Intent) -> None:
    """ "o histórico da tarefa 7, com data e status de cada evento": of one row's history,
    "each event" is each line listed, not a grouping of its events."""
    catalog = q.catalog
    if intent.asked.history and intent.subject.entity and not intent.measures.aggregate:
        intent.groups = [
            g
            for g in intent.groups
            if g.table in ("", intent.subject.entity[0])
            or g.column != display_column(catalog.table(g.table)).name  # "agrupado por uf"
        ]


READINGS: tuple[Reading, ...] = (
    Reading("asked_kind", _asked_kind),
    Reading("terms", _terms),
    Reading("row_named", _row_named),
    Reading("concept_asked", _concept_asked),
    Reading("periods", _periods),
    Reading("top_asked", top_asked),
    Reading("recency", recency),
    Reading("status_asked", _status_asked),
    Reading("stage_of_a_row", _stage_of_a_row),
    Reading("history_asked", _history_asked),
    Reading("aggregate_asked", aggregate_asked),
    Reading("groups", groups),
    Reading("things_then_states", _things_then_states),
    Reading("states_in_names", _states_in_names),
    Reading("short_states", _short_states),
    Reading("states_of_rows_named", _states_of_rows_named),
    Reading("metric_named", _metric_named),
    Reading("metric_with_gaps", metric_with_gaps),
    Reading("rows_counted_not_a_rate", rows_counted_not_a_rate),
    Reading("state_said_as_a_metric", state_said_as_a_metric),
    Reading("metric_words_are_not_states", metric_words_are_not_states),
    Reading("metric_per_unit", metric_per_unit),
    Reading("metric_by_verb", metric_by_verb),
    Reading("implied_metric_rows", implied_metric_rows),
    Reading("duration_asked", duration_asked),
    Reading("concepts", _concepts),
    Reading("entity_attribute", _entity_attribute),
    Reading("amount_of_one_row", amount_of_one_row),
    Reading("amounts_of_listed_rows", amounts_of_listed_rows),
    Reading("entity_columns", entity_columns),
    Reading("state_of_a_yes_no", state_of_a_yes_no),
    Reading("who_did_it", who_did_it),
    Reading("negations", _negations),
    Reading("flags_said", flags_said),
    Reading("not_yet", not_yet),
    Reading("state_today", state_today),
    Reading("done_state", done_state),
    Reading("date_comparison", date_comparison),
    Reading("deadline_readings", deadline_readings),
    Reading("late_now", late_now),
    Reading("units_of_a_sum", _units_of_a_sum),
    Reading("measure", _measure),
    Reading("states_that_are_the_rows_verb", states_that_are_the_rows_verb),
    Reading("rows_a_metric_sums", rows_a_metric_sums),
    Reading("metric_names_its_rows", metric_names_its_rows),
    Reading("amount_of_the_first_row", amount_of_the_first_row),
    Reading("state_that_dates_the_rows", state_that_dates_the_rows),
    Reading("first_state_is_its_event", first_state_is_its_event),
    Reading("the_fuller_state_said", the_fuller_state_said),
    Reading("rows_without_others", rows_without_others),
    Reading("events_not_happened", events_not_happened),
    Reading("values_starting_with", values_starting_with),
    Reading("distinct_count", distinct_count),
    Reading("states_a_term_defines", states_a_term_defines),
    Reading("aged_past_deadline", aged_past_deadline),
    Reading("several_measures", several_measures),
    Reading("extremes_asked", extremes_asked),
    Reading("average_per_row", average_per_row),
    Reading("share_asked", share_asked),
    Reading("group_shares", group_shares),
    Reading("values_compared", values_compared),
    Reading("rows_that_acted", rows_that_acted),
    Reading("owners_listed", owners_listed),
    Reading("owners_counted", owners_counted),
    Reading("listed_columns", listed_columns),
    Reading("either_ranked", either_ranked),
    Reading("most_sold", most_sold),
    Reading("speed_ranked", speed_ranked),
    Reading("time_ranked_alone", time_ranked_alone),
    Reading("rate_rows_ranked", rate_rows_ranked),
    Reading("rank_subject", rank_subject),
    Reading("who_ranked", who_ranked),
    Reading("ranked_group", ranked_group),
    Reading("ranked_by_count", ranked_by_count),
    Reading("worst_and_best", worst_and_best),
    Reading("groups_of_other_rows", groups_of_other_rows),
    Reading("examples_of_groups", examples_of_groups),
    Reading("comparisons_the_metric_makes", _comparisons_the_metric_makes),
    Reading("states_the_rate_tests", _states_the_rate_tests),
    Reading("undated_kinds_in_time", undated_kinds_in_time),
    Reading("periods_compared_counted", _periods_compared_counted),
    Reading("each_event_of_a_history", _each_event_of_a_history),
    Reading("now_not_today", _now_not_today),
    Reading("coded_values", coded_values),
    Reading("name_said", _name_said),
)
"""The parse, in order (the module's docstring shows it)."""
