"""Question → intent: a small semantic parser over the catalog's vocabulary.

It finds the entity ("tarefa 12"), the period ("em maio"), the measure (a glossary metric,
or an aggregate word with a numeric column), the groupings ("por mês", "por canal"),
filters from enumerated values ("cancelados", "vencido"), a ranking ("top 5"), and whether
the question asks for a current status or what a concept means.
"""

from __future__ import annotations

import re
from datetime import date

from orquestra.ddl_catalog.model import Catalog, per_catalog
from orquestra.ddl_catalog.text import fold, stem, words
from orquestra.offline.actors import who_did_it
from orquestra.offline.asking import (
    COUNT_NAMES,
    LIST_OPENER,
    NUMBER_WORDS,
    SORTED,
    aggregate_asked,
    state_of_a_yes_no,
    top_asked,
)
from orquestra.offline.averages import average_per_row
from orquestra.offline.buyers import either_ranked, owners_listed, rows_that_acted
from orquestra.offline.clauses import extremes_asked, several_measures
from orquestra.offline.concepts import asks_what_it_means
from orquestra.offline.conditions import (
    coded_values,
    date_comparison,
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
    values_after_their_column,
    values_starting_with,
)
from orquestra.offline.dating import undated_kinds_in_time
from orquestra.offline.deadlines import (
    aged_past_deadline,
    days_past_deadline,
    deadline_readings,
    late_now,
)
from orquestra.offline.durations import duration_asked
from orquestra.offline.filler import examples_of_groups, kinds_unknown, without_pronoun_codes
from orquestra.offline.grouping import (
    GRAINS,
    GROUP_MARKERS,
    groups,
    groups_of_other_rows,
    ranked_by_count,
    ranked_group,
    values_compared,
)
from orquestra.offline.intent import Asked, Intent
from orquestra.offline.lang import LANGUAGES, alternation, mapping, word_set
from orquestra.offline.lang import words as said_as
from orquestra.offline.lang.morphology import (
    FINITE_PAST,
    IRREGULAR,
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
    Lexicon,
    Meaning,
    amount_column,
    date_column,
    display_column,
    is_measure,
    is_numeric,
    key_column,
    spelling,
    summed_column,
    tied,
)
from orquestra.offline.lifecycle import done_state, not_yet, state_today
from orquestra.offline.names import find_name
from orquestra.offline.periods import DAY_RANGE, NAMED_DAYS, find_periods, month_years_spelled
from orquestra.offline.phrasing import (
    OFTEN,
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
from orquestra.offline.ranking import (
    SPEED_WORDS,
    most_sold,
    speed_ranked,
    time_ranked_alone,
    worst_and_best,
)
from orquestra.offline.shares import group_shares, share_asked
from orquestra.offline.shorthand import spelled_out
from orquestra.offline.understanding import QUESTION_WORDS, unknown_words, unmapped
from orquestra.offline.verbs import metric_by_verb, states_that_are_the_rows_verb, tables_by_verb

# Words of the languages for "in what state is it"; a deployment's own words for its events
# ("tracking") are its series table's synonyms, read from the catalog (graph/offline/sql.py).
STATUS_WORDS = said_as("status_words")
LISTING = re.compile(rf"^({alternation('listing_openers')}|{LIST_OPENER})\b")
CURRENT = re.compile(rf"\b{alternation('asks_current')}\b")
DATA_ASK = re.compile(rf"\b{alternation('data_askers')}\b")
COPULA = re.compile(rf"\b{alternation('copulas')}\b", re.IGNORECASE)
"""Verbs that only link a noun to its state: "tarefas estão atrasadas" names the same thing as
"tarefas atrasadas", so phrases are matched without them. (Unaccented "esta" stays: it is
also "this", as in "esta semana".)"""
LEFT_OUT_SAID = re.compile(rf"\b{alternation('left_out_phrases')}\b", re.IGNORECASE)
"""Phrases that leave rows out ("leaving out cancelled loads"): read as "excluding" (the
verb alone is an event: "loads leaving in June")."""
LEFT_OUT_READ_AS = said_as("left_out_read_as")[0]
LEFT_OUT = said_as("left_out_after")
"""Words after a state that leave its rows out: "(tarefas canceladas fora)"."""

STAGE_WORDS = said_as("stage_words")
"""The languages' words for a stage: of one row, its state."""
NUMBER_MARKERS: tuple[str, ...] = (*said_as("number_markers"), "#")
"""Words between a table's name and its row's number ("tarefa nº 12", "médico de código 12",
"carrier code 3"); "#" a number hidden (a day's)."""
WAITING_FOR = said_as("waiting_for")
"""Words before a state's verb that say it has not happened yet ("esperando aprovar")."""
WAITING_LINKS = word_set("waiting_links")
"""Words between a waiting word and the state ("pendentes de aprovação", "waiting to be")."""
YEAR = re.compile(r"(19|20)\d{2}")
YEAR_OF = [[w] for w in said_as("of_without_article")]
"""The preposition alone between a table and a year ("as tarefas de 2025")."""
OF = [[w] for w in said_as("of_singular")]
"""The preposition alone after a state said of a table ("faltas de aluno")."""
KNOWN = {*NUMBER_WORDS, *GRAINS, *STATUS_WORDS, *NEGATIONS, *NUMBER_MARKERS, *GROUP_MARKERS}
KNOWN |= set(LEFT_OUT)
KNOWN |= SPEED_WORDS
LEAVE = said_as("leave_verbs")
"""Verbs that leave rows out only with "out"/"fora" after them ("leave … out")."""
LEAVE_OUT = word_set("leave_out_particles")
GERUNDS = said_as("gerund_endings")
"""A verb said as going on ("alunos faltando"): what the rows before it are doing."""
ARTICLES = said_as("articles")
KNOWN |= COUNT_NAMES | word_set("volume")  # "top 3 tipos por volume": ranked by how many
KNOWN |= word_set("moment") | word_set("some_or_any") | word_set("each")
KNOWN |= word_set("single_row")  # "the biggest single order": one row
# "o motivo que mais aparece", "the reason that occurs most": how often, counted
KNOWN |= OFTEN
KNOWN |= word_set("nothing_words")  # "não compraram nada"
"""The parser's own words: never unknown to the catalog, never a row's name."""
HISTORY = re.compile(rf"\b{alternation('history_words')}\b")


def parse(
    question: str, catalog: Catalog, lexicon: Lexicon, today: date, clauses: bool = True
) -> Intent:
    """The question's intent; `clauses=False` reads one clause of it (no further split)."""
    days_late, question = days_past_deadline(question)  # "vencidos há mais de 60 dias"
    question = LEFT_OUT_SAID.sub(LEFT_OUT_READ_AS, question)
    question = month_years_spelled(question)  # "mai/26": "mai de 2026"
    question = spelled_out(question, lexicon)  # "vlr", "fat.", "qtd de pedidos"
    question = _un_said_apart(question, lexicon)  # "unpaid": "not paid"
    question = without_pronoun_codes(question, catalog)  # "paid us", not the type code "US"
    text = fold(question).strip()
    # "do Empório São Jorge ME": a row's own name is read as a name, not as the catalog's words
    named = find_name(question, lexicon, {*KNOWN, *QUESTION_WORDS})
    said = question.replace(named, " ") if named else question
    tokens = words(COPULA.sub(" ", said.replace("_", " ")))
    asked = Asked(
        asks_data=bool(DATA_ASK.search(text)),
        listing=bool(LISTING.match(text)),
        current=bool(CURRENT.search(text)),
    )
    intent = Intent(question, asked=asked)
    intent.terms = lexicon.terms_in(tokens)
    used: set[int] = set()
    _entity(intent, _days_hidden(tokens), lexicon, catalog, used)  # "de 01/04 a 15/04": days
    intent.asked.is_concept = asks_what_it_means(text) and intent.subject.entity is None
    masked = " ".join("#" if i in used else t for i, t in enumerate(tokens))
    intent.time.periods = find_periods(masked, today)
    intent.time.period = intent.time.periods[0] if intent.time.periods else None
    matches = [m for m in lexicon.match(tokens) if m[0] not in used]
    # A ranking word inside a value's name ("discordância maior") ranks nothing.
    named_values = {
        i
        for start, end, meanings in matches
        if end - start > 1 and any(m.kind == "value" for m in meanings)
        for i in range(start, end)
    }
    top_asked(intent, " ".join("#" if i in named_values else t for i, t in enumerate(tokens)))
    recency(intent, masked)
    intent.asked.wants_status = any(re.search(rf"\b{w}\b", text) for w in STATUS_WORDS)
    # "em que etapa está a tarefa 7?": of one row, a stage is its state (of many, "por
    # etapa" would be a grouping this reading does not make)
    stage = intent.subject.entity is not None and any(w in STAGE_WORDS for w in tokens)
    intent.asked.wants_status = intent.asked.wants_status or stage
    intent.asked.history = bool(HISTORY.search(text))
    numeric_phrases = {
        " ".join(tokens[start:end])
        for start, end, meanings in matches
        if any(
            m.kind == "column" and is_numeric(catalog.table(m.table).column(m.column))
            for m in meanings
        )
    }
    amounts = {  # "quilos": an amount of something, not a thing counted ("tarefas")
        " ".join(tokens[start:end])
        for start, end, meanings in matches
        if not any(m.kind == "table" for m in meanings)
        and any(
            m.kind == "column" and is_measure(catalog.table(m.table), m.column) for m in meanings
        )
    }
    aggregate_asked(intent, SORTED.sub(" ", text), numeric_phrases, amounts)  # no "highest"
    groups(intent, tokens, matches, catalog)
    matches = values_after_their_column(matches)
    matches = _values_of_rows_named(matches)
    # Things first, then their states: "missed shifts" is the shifts' own "missed", whichever
    # word comes first.
    for _start, _end, meanings in sorted(
        matches, key=lambda match: not any(m.kind == "table" for m in match[2])
    ):
        _note(intent, meanings)
    _states_in_names(intent, tokens, matches, lexicon)
    short_unread = _short_states(intent, tokens, lexicon, catalog)
    _states_of_rows_named(intent, tokens, matches, catalog)
    metrics = lexicon.metrics_in(tokens, matches)
    if metrics:
        intent.measures.metric = metrics[0]  # the longest phrase wins ("cost per hour worked")
    metric_with_gaps(intent, tokens, lexicon)
    rows_counted_not_a_rate(intent, tokens, matches)
    state_said_as_a_metric(intent, tokens, matches, lexicon)
    metric_words_are_not_states(intent, tokens, matches, lexicon)
    metric_per_unit(intent, tokens, matches, catalog)
    metric_by_verb(intent, tokens, matches, catalog)
    implied_metric_rows(intent, tokens, catalog)
    duration_asked(intent, tokens, text, matches, catalog)
    _concepts(intent, lexicon)
    _entity_attribute(intent, matches)
    amount_of_one_row(intent, catalog)
    amounts_of_listed_rows(intent, catalog)
    entity_columns(intent, tokens, matches, used, catalog)
    state_of_a_yes_no(intent, tokens, matches)
    who_did_it(intent, tokens, catalog)
    _negations(intent, tokens, matches, catalog)
    not_yet(intent, text, catalog)
    state_today(intent, text, today, catalog)
    done_state(intent, text, catalog)
    date_comparison(intent, tokens, matches, catalog)
    deadline_readings(intent, tokens, text, catalog)
    late_now(intent)
    _units_of_a_sum(intent)
    _measure(intent, matches, catalog)
    states_that_are_the_rows_verb(intent, tokens, matches, catalog)
    rows_a_metric_sums(intent, catalog)
    metric_names_its_rows(intent, tokens, lexicon)
    amount_of_the_first_row(intent, catalog)
    state_that_dates_the_rows(intent, tokens, catalog)
    first_state_is_its_event(intent, tokens, catalog, today)
    the_fuller_state_said(intent, tokens, matches, catalog)
    rows_without_others(intent, tokens, matches, catalog, used)
    events_not_happened(intent, tokens, matches, catalog)
    values_starting_with(intent, tokens, matches, catalog)
    distinct_count(intent, tokens, matches)
    states_a_term_defines(intent, tokens, matches, catalog)
    aged_past_deadline(intent, days_late, catalog)
    if clauses:
        read = lambda part: parse(part, catalog, lexicon, today, clauses=False)  # noqa: E731
        several_measures(intent, text, read, catalog)
        extremes_asked(intent, text, catalog)
    average_per_row(intent, tokens, matches, text, catalog)
    share_asked(intent, text)
    group_shares(intent, text)
    values_compared(intent, tokens, matches, catalog)  # "no rodoviário e no aéreo": each apart
    acted = rows_that_acted(intent, tokens, catalog, lexicon.vocabulary)
    used |= {i for i, t in enumerate(tokens) if t == acted}  # "por compras": read
    owners_listed(intent, tokens, matches, catalog)
    listed_columns(intent, tokens, matches, catalog)
    either_ranked(intent, text, catalog)
    most_sold(intent, catalog)
    speed_ranked(intent, tokens, catalog)
    time_ranked_alone(intent, tokens, GRAINS, catalog)
    rate_rows_ranked(intent, tokens, matches)
    rank_subject(intent, tokens, matches, GRAINS, catalog)
    who_ranked(intent, tokens, catalog)
    ranked_group(intent, tokens, matches, catalog)
    ranked_by_count(intent, catalog)
    worst_and_best(intent, text)
    groups_of_other_rows(intent, tokens, matches, catalog)
    examples_of_groups(intent)  # "cada tipo de cliente (varejo, atacado etc.)"
    _comparisons_the_metric_makes(intent)
    _states_the_rate_tests(intent)
    undated_kinds_in_time(intent, catalog)
    _periods_compared_counted(intent)
    _each_event_of_a_history(intent, catalog)
    _now_not_today(intent, tokens)
    coded = coded_values(intent, question, lexicon, catalog)  # "em SP": a code of a column
    used |= {i for i, t in enumerate(tokens) if t in coded}
    known = KNOWN
    intent.subject.named = named
    intent.unread.unknown = [
        w
        for w in unknown_words(intent, tokens, matches, used, known)
        if stem(w) not in lexicon.vocabulary
    ]
    intent.unread.unknown += [w for w in short_unread if w not in intent.unread.unknown]
    intent.unread.unmapped = unmapped(intent, tokens, GROUP_MARKERS)
    intent.unread.unmapped = intent.unread.unmapped or kinds_unknown(intent, said, catalog, lexicon)
    return intent


def _values_of_rows_named(
    matches: list[tuple[int, int, list[Meaning]]],
) -> list[tuple[int, int, list[Meaning]]]:
    """ "clientes da indústria": a word that is both a value of a table the question names
    and another table's name is that value (of the rows named), not the other table."""
    named = {m.table for _s, _e, meanings in matches for m in meanings if m.kind == "table"}
    kept = []
    for start, end, meanings in matches:
        values = [m for m in meanings if m.kind == "value" and m.table in named]
        others = [
            m for m in meanings if m.kind == "table" and m.table not in {v.table for v in values}
        ]
        if values and others:
            meanings = [m for m in meanings if m not in others]
        kept.append((start, end, meanings))
    return kept


def _each_event_of_a_history(intent: Intent, catalog: Catalog) -> None:
    """ "o histórico da tarefa 7, com data e status de cada evento": of one row's history,
    "each event" is each line listed, not a grouping of its events."""
    if intent.asked.history and intent.subject.entity and not intent.measures.aggregate:
        intent.groups = [
            g
            for g in intent.groups
            if g.table in ("", intent.subject.entity[0])
            or g.column != display_column(catalog.table(g.table)).name  # "agrupado por uf"
        ]


def _days_hidden(tokens: list[str]) -> list[str]:
    """`tokens` with the numbers of a range of days ("de 01/04 a 15/04/2026") hidden: a
    day is no row's number."""
    said = " ".join(tokens)
    ranges = [DAY_RANGE, *NAMED_DAYS]  # "de 01/04 a 15/04", "pedidos de 15 de junho"
    found = next((m for pattern in ranges if (m := pattern.search(said))), None)
    if found is None:
        return tokens
    first = len(said[: found.start()].split())
    last = first + len(found.group(0).split())
    return ["#" if first <= i < last and t.isdigit() else t for i, t in enumerate(tokens)]


def _periods_compared_counted(intent: Intent) -> None:
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


def _short_states(
    intent: Intent, tokens: list[str], lexicon: Lexicon, catalog: Catalog
) -> list[str]:
    """ "a tarefa 7 está travada", "tarefas anuladas": a state said by the one word a
    glossary term puts beside its table's name, of the rows in play: that table's state, or
    the state of the same name of other rows ("projetos anulados": the projects' own
    cancelled). The words said of rows with no such state are returned, not understood."""
    rows = [*([intent.subject.entity[0]] if intent.subject.entity else []), *intent.subject.tables]
    unread = []
    for token in tokens:
        meaning = lexicon.short_states.get(genderless(stem(token)))
        if meaning is None or not rows:
            continue
        found = _same_state(meaning, rows, catalog)
        if found is None:
            unread.append(token)
            continue
        table, column, value = found
        if intent.subject.entity and intent.subject.entity[0] == table:
            intent.asked.wants_status = True  # of one row, the state is asked
            continue
        values = intent.where.filters.setdefault((table, column), [])
        if value not in values:
            values.append(value)
    return unread


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


def _states_in_names(
    intent: Intent,
    tokens: list[str],
    matches: list[tuple[int, int, list[Meaning]]],
    lexicon: Lexicon,
) -> None:
    """A table named by its rows' state ("tarefas urgentes", "urgent tasks" as the
    table's own synonym) still means that state: a word inside the name that is one of the
    table's values filters by it."""
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


def _states_of_rows_named(
    intent: Intent,
    tokens: list[str],
    matches: list[tuple[int, int, list[Meaning]]],
    catalog: Catalog,
) -> None:
    """ "quantas faltas de aluno", "quantos alunos faltaram": a state said as a noun, of
    ("de") a table its rows refer to, or as a verb the table did, names its own rows (the
    absences, each a row of the state's table), not the rows of the table it is said of
    ("alunos cancelados", a participle, are still students)."""
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


def _entity_attribute(intent: Intent, matches: list[tuple[int, int, list[Meaning]]]) -> None:
    """ "qual o prazo da tarefa 12": one row's own column, not the metric spelled the same
    (a metric summarises many rows; a single row has attributes)."""
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


def _negations(
    intent: Intent,
    tokens: list[str],
    matches: list[tuple[int, int, list[Meaning]]],
    catalog: Catalog,
) -> None:
    """What a question says did not happen. A negated state ("tarefas não concluídas") is
    excluded; a negated verb whose root names a nullable timestamp of a table in play
    ("tarefas nunca revisadas", "tasks not approved") means that timestamp is empty, which
    says it better than the state spelled the same."""
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
            values = intent.where.filters.get((meaning.table, meaning.column), [])
            if meaning.kind == "value" and meaning.value in values:
                values.remove(meaning.value)
                if not values:
                    del intent.where.filters[meaning.table, meaning.column]
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


PRESENT_HAVE = word_set("present_have")
"""Present verbs of holding or being: "quanto temos vencido hoje" is how much is overdue now."""
TODAY = word_set("today")
PERFECT = word_set("perfect_auxiliaries")
"""Auxiliaries of a perfect ("have done"): with a participle after them, events told."""


def _participle_endings_of(concept: str) -> tuple[str, ...]:
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


PERFECT_PARTICIPLES = _participle_endings_of("perfect_auxiliaries")


def _now_not_today(intent: Intent, tokens: list[str]) -> None:
    """ "quanto temos vencido hoje", "what do we have outstanding today": "today" with a
    present verb of a state (or a metric) is now, the state's rows whatever their date, not
    the rows dated today ("quantas foram canceladas hoje" is)."""
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


NEGATING_PREFIXES = mapping("negating_prefixes")
"""A prefix that says its participle did not happen, and the negation it is read as."""
UN_ENDINGS = "|".join(map(re.escape, _participle_endings_of("negating_prefixes")))
UN = re.compile(
    rf"\b({alternation('negating_prefixes')})"
    rf"([a-z]{{2,}}(?:{UN_ENDINGS})"
    rf"|{alternation('irregular_participles_after_un')})\b(?:\s+([a-z]+))?",
    re.IGNORECASE,
)
"""English "un-" before a participle ("unsigned", "unpaid"); never "unidade", "unit"."""


def _un_said_apart(question: str, lexicon: Lexicon) -> str:
    """ "the oldest unpaid bill", "unsigned reports": an English "un-" before a word the
    catalog knows (a state, a date's verb) says it did not happen, read as "not paid"."""

    def apart(found: re.Match[str]) -> str:
        rest, noun = found.group(2).lower(), found.group(3)
        known = stem(rest) in lexicon.vocabulary or (rest,) in lexicon.phrases
        if not (known or rest in IRREGULAR):
            return found.group(0)
        negation = NEGATING_PREFIXES[found.group(1).lower()]
        # "unsigned reports": "reports not signed", never a metric's "signed reports"
        if noun and noun.lower() not in FUNCTION_WORDS:
            return f"{noun} {negation} {found.group(2)}"
        return f"{negation} {found.group(2)}" + (f" {noun}" if noun else "")

    return UN.sub(apart, question)


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


def _entity(
    intent: Intent, tokens: list[str], lexicon: Lexicon, catalog: Catalog, used: set[int]
) -> None:
    """ "tarefa 12", "tarefa nº 12", "task 12": a table phrase, then a number."""
    for position, token in enumerate(tokens):
        if not token.isdigit():
            continue
        end = position
        while end > 0 and tokens[end - 1] in NUMBER_MARKERS:
            end -= 1
        if tokens[end:position] in YEAR_OF and YEAR.fullmatch(token):
            continue  # "as tarefas de 2025": the year, not task number 2025
        for table in lexicon.tables_ending_at(tokens, end):
            described = catalog.table(table)
            column = key_column(described, catalog)
            if column is not None:
                intent.subject.entity = (table, column.name, int(token))
            elif described.primary_key == (described.tenant_column,):
                intent.subject.tenant_value = int(token)  # "store 2": the tenant itself
            else:
                continue
            used.update(range(end - 1, position + 1))
            return


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


def _concepts(intent: Intent, lexicon: Lexicon) -> None:
    """A concept mentioned by a synonym ("late orders") brings what its name means."""
    for term in intent.terms:
        if term.metric is None:
            for _start, _end, meanings in lexicon.match(words(term.term)):
                if any(m.kind in ("table", "value") for m in meanings):
                    _note(intent, [m for m in meanings if m.kind in ("table", "value")])


def _comparisons_the_metric_makes(intent: Intent) -> None:
    """ "what percentage of tasks were done on time": a comparison the metric itself makes
    (a rate of rows where one date is before another) is what it measures, not a condition
    on its rows (which would make every rate 100%); one its filter makes is already kept."""
    rule = intent.measures.metric.metric if intent.measures.metric else None
    if rule is None:
        return
    said = re.sub(r"::\w+|\s+", "", f"{rule.expression} {rule.filter or ''}".lower())
    intent.where.comparisons = [
        (table, left, operator, right)
        for table, left, operator, right in intent.where.comparisons
        if f"{left}{operator}{right}" not in said
    ]


def _states_the_rate_tests(intent: Intent) -> None:
    """ "a taxa de cancelamento das tarefas que cancelaram em 2025": a state a rate's own
    expression tests (the share of rows in it) is what the rate measures; as a condition too,
    every rate would be 100%."""
    rule = intent.measures.metric.metric if intent.measures.metric else None
    if rule is None or not re.search(r"\b(case|filter)\b", rule.expression, re.IGNORECASE):
        return
    for (table, column), values in list(intent.where.filters.items()):
        if table != rule.table:
            continue
        kept = [v for v in values if f"'{v}'" not in rule.expression]
        if kept:
            intent.where.filters[table, column] = kept
        else:
            del intent.where.filters[table, column]


def _units_of_a_sum(intent: Intent) -> None:
    """ "how many overtime hours": "how many" of the very amount a metric adds up (its
    column named) is that sum, not a count of its rows."""
    rule = intent.measures.metric.metric if intent.measures.metric else None
    if rule is None or intent.measures.aggregate != "count":
        return
    summed = summed_column(rule.expression)
    if summed and (rule.table, summed) in intent.subject.columns:
        intent.measures.aggregate = None


def _measure(
    intent: Intent, matches: list[tuple[int, int, list[Meaning]]], catalog: Catalog
) -> None:
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
    intent: Intent, matches: list[tuple[int, int, list[Meaning]]], catalog: Catalog
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
