"""The offline augmenter and router: follow-ups, vague questions, routes.

A follow-up ("e o valor dela?", "e no mês passado?") is rewritten with the previous
question's entity or period; a data request that names nothing the catalog knows is vague
and gets a clarifying question (or, when no more may be asked, the catalog's first metric as
the stated assumption).
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import date
from functools import partial
from typing import Any

from orquestra.ddl_catalog.model import Catalog
from orquestra.ddl_catalog.text import fold
from orquestra.graph.hints import ModelHints
from orquestra.offline.answers import written
from orquestra.offline.concepts import asks_a_procedure
from orquestra.offline.intent import Intent
from orquestra.offline.lang import alternation, first_word
from orquestra.offline.languages import language_of
from orquestra.offline.lexicon import Lexicon, key_column
from orquestra.offline.lifecycle import PRESENT
from orquestra.offline.parser import parse
from orquestra.offline.periods import MONTHS, SPANS
from orquestra.offline.rows import series_for

_spelled = partial(alternation, longest_first=False, any_spaces=False)
"""The concepts' words as a regular-expression group, each space a space (as the readings
below have always matched them): in the languages' and files' order ("e" tried before "e
quanto a", as a follow-up has always been cut), unless told longest first."""


REFERENCE = re.compile(rf"\b{_spelled('reference_words')}\b")
FOLLOW_UP = re.compile(rf"^{_spelled('follow_up_openers')}\b")
VAGUE = re.compile(rf"\b{_spelled('vague_requests')}\b")
CHAT = re.compile(rf"\b{_spelled('about_the_assistant')}\b")
QUESTION_OPENER = re.compile(rf"^{_spelled('question_openers', longest_first=True)}\b")
NAMED_ENTITY = (
    rf"(?:\b{_spelled('entity_prepositions')}\s+)?(?:{_spelled('entity_articles')}\s+)?\w+\s+"
    rf"(?:{_spelled('number_abbreviations', 'dotted_number_abbreviations', longest_first=True)}"
    r"\s*)?"
)
"""An entity named by its number, with its preposition ("da tarefa nº"): the number follows."""
JUST_A_NUMBER = re.compile(
    rf"(?:{_spelled('number_reply_openers')} |{_spelled('number_abbreviations')}\s*)?\d+"
)
"""A reply that is only the number asked for ("e 12", "nº 12")."""
RELATIVE_PERIOD = re.compile(_spelled("relative_period_stems"))
YEAR_PREPOSITION = first_word("date_parts_link")
QUARTERS = _spelled("quarter_abbreviations")


def entity_phrase(intent: Intent, question: str) -> str:
    """How the previous question named its entity, with its preposition: "da tarefa 12"."""
    number = str(intent.subject.entity[2]) if intent.subject.entity else ""
    found = re.search(rf"{NAMED_ENTITY}{number}\b", question, re.IGNORECASE)
    return found.group(0) if found else number


def resolve(message: str, previous: str, catalog: Catalog, lexicon: Lexicon, today: date) -> str:
    """The message rewritten as a complete question, using the previous one where needed."""
    text = fold(message).strip().rstrip("?").strip()
    if previous and JUST_A_NUMBER.fullmatch(text):
        return f"{previous.rstrip('?')} {re.sub(r'[^0-9]', '', text)}"  # just the missing number
    if not previous or not (REFERENCE.search(text) or FOLLOW_UP.match(text)):
        return message.strip()
    now = parse(message, catalog, lexicon, today)
    before = parse(previous, catalog, lexicon, today)
    body = FOLLOW_UP.sub("", message.strip().rstrip("?")).strip(" ,")
    own_subject = now.measures.metric or now.measures.measure or now.measures.aggregate
    if not own_subject and (now.groups or now.where.filters or now.time.periods):
        # "e por canal?", "e só do canal EDI?", "break it down by mode": a modifier
        base = previous.rstrip("?")
        for period in before.time.periods if now.time.periods else []:
            base = re.sub(re.escape(period.phrase), "", fold(base))
        return f"{base.strip()} {_in_year_of(now, before, REFERENCE.sub('', body).strip())}"
    if now.understood and not now.subject.entity and before.subject.entity:
        named = entity_phrase(before, previous)
        replaced = REFERENCE.sub(named, body, count=1)
        return replaced if replaced != body else f"{body} {named}"
    if now.understood and not now.time.period and before.time.period:
        return f"{body} {before.time.period.phrase}".strip()
    rest = previous.rstrip("?")
    if now.time.period and before.time.period:
        rest = re.sub(re.escape(before.time.period.phrase), "", fold(rest)).strip()
    if now.subject.entity and before.subject.entity:
        rest = rest.replace(str(before.subject.entity[2]), str(now.subject.entity[2]))
        return rest
    return f"{rest} {body}".strip()


def _in_year_of(now: Intent, before: Intent, body: str) -> str:
    """ "tarefas de 2025" then "e no primeiro trimestre?" (or "e em maio?"): the part of
    the year asked is that year's, not the latest one."""
    asked, year = now.time.period, before.time.period
    if asked is None or year is None or re.search(r"\b\d{4}\b", asked.phrase):
        return body
    whole_year = (year.start.month, year.start.day, year.end.month, year.end.day) == (1, 1, 1, 1)
    part = re.search(rf"\b({'|'.join(SPANS)}|{QUARTERS}|{'|'.join(MONTHS)})\b", asked.phrase)
    relative = RELATIVE_PERIOD.search(asked.phrase)
    if not whole_year or part is None or relative or asked.start.year == year.start.year:
        return body
    return f"{body} {YEAR_PREPOSITION} {year.start.year}"


def augment(hints: ModelHints, catalog: Catalog, lexicon: Lexicon, today: date) -> dict[str, Any]:
    """The augmenter's answer from the stage's facts: the message, the previous question,
    the answers to this turn's clarifying questions and whether it may ask another."""
    message = hints.message.strip()
    previous = hints.previous_question.strip()
    can_ask = hints.can_ask
    answers = hints.clarification_answers
    lang = language_of(message, catalog)
    if answers and _stands_alone(answers[-1], catalog, lexicon, today):
        # Not the answer to what was asked but a question of its own: read alone, in the
        # language it was written in.
        message, answers = answers[-1].strip(), ()
        lang = language_of(message, catalog)
    elif answers:  # the person's latest words decide the language, when they say one
        lang = language_of(answers[-1], catalog, default=lang)
    question = resolve(message, previous, catalog, lexicon, today)
    if answers:
        question = _with_answer(question, answers[-1], catalog, lexicon, today)
    intent = parse(question, catalog, lexicon, today)
    text = fold(question)
    data = intent.understood or bool(intent.asked.asks_data and not intent.asked.is_concept)
    if intent.asked.is_concept or CHAT.search(text):
        data = bool((intent.asked.asks_data or _shaped_as_data(intent, text)) and intent.understood)
    vague = not intent.understood and bool(VAGUE.search(text)) and not intent.asked.is_concept
    out: dict[str, Any] = {
        "question": question,
        "is_data_question": data or vague,
        "lang": lang,
        "missing": [],
        "clarifying_question": None,
        "assumption": None,
    }
    missing_entity = _missing_entity(intent, catalog)
    if missing_entity and can_ask:
        out.update(
            is_data_question=True,
            missing=["entity"],
            clarifying_question=_which_one(missing_entity, lang),
        )
    elif vague:
        out["missing"] = ["measure"]
        if can_ask:
            out["clarifying_question"] = _clarifying(catalog, lang)
        else:
            metric = next((t for t in catalog.glossary if t.metric), None)
            if metric is not None:
                out["question"] = written("metric_by_month", lang, term=metric.term)
                out["assumption"] = written("read_as_metric_by_month", lang, term=metric.term)
    return out


def _stands_alone(reply: str, catalog: Catalog, lexicon: Lexicon, today: date) -> bool:
    """Whether a reply to a clarifying question is a new question rather than its answer:
    phrased as a question ("which customers…?", "quais clientes…"), with a subject of its
    own the catalog knows, and not a follow-up ("e em maio?") leaning on what came before."""
    text = fold(reply.strip())
    asked = text.endswith("?") or QUESTION_OPENER.search(text) is not None
    if not asked or FOLLOW_UP.search(text) or REFERENCE.search(text):
        return False
    intent = parse(reply, catalog, lexicon, today)
    return intent.understood and bool(intent.subject.tables or intent.subject.entity)


def _with_answer(
    question: str, answer: str, catalog: Catalog, lexicon: Lexicon, today: date
) -> str:
    reply = parse(answer, catalog, lexicon, today)
    if reply.understood and (reply.measures.metric or reply.subject.tables or reply.subject.entity):
        original = parse(question, catalog, lexicon, today)
        period = (
            f" {original.time.period.phrase}"
            if original.time.period and not reply.time.period
            else ""
        )
        return f"{answer.strip()}{period}"
    return f"{question.rstrip('?')} — {answer.strip()}"


def _missing_entity(intent: Intent, catalog: Catalog) -> str | None:
    """ "status da tarefa?" with no number: the table whose number is missing."""
    summarised = (
        intent.groups or intent.measures.metric or intent.measures.aggregate or intent.ordering.top
    )
    if (
        intent.subject.entity
        or summarised
        or intent.where.filters
        or intent.time.periods
        or intent.asked.listing
    ):
        return None
    if not intent.asked.wants_status:
        return None

    return next(
        (t for t in intent.subject.tables if key_column(catalog.table(t), catalog) is not None),
        None,
    )


def _which_one(table: str, lang: str) -> str:
    name = table.replace("_", " ")
    return written("which_one", lang, otherwise="pt", name=name)


def _clarifying(catalog: Catalog, lang: str) -> str:
    metrics = [t.term for t in catalog.glossary if t.metric][:3]
    systems = [s.title.lower() for s in catalog.systems][:4]
    return written(
        "what_to_see", lang, otherwise="pt", metrics=", ".join(metrics), systems=", ".join(systems)
    )


NUMBER = re.compile(r"\d")
"""A number in a question: a row's, a year, an amount (data, in any words)."""
RULE = re.compile(rf"\b{_spelled('rule_words')}\b")
"""Words of a rule or procedure ("how fast must it be reported"), not of data."""


def route(question: str, catalog: Catalog, lexicon: Lexicon, today: date) -> dict[str, Any]:
    intent = parse(question, catalog, lexicon, today)
    text = fold(intent.question)  # abbreviations spelled out
    data_ask = intent.understood and (intent.asked.asks_data or _shaped_as_data(intent, text))
    # "o que é X e em quanto tempo tem que ser feito": a definition and a rule, no data
    if intent.asked.is_concept and (not data_ask or RULE.search(text) or asks_a_procedure(text)):
        return {"route": "KNOWLEDGE", "wants_knowledge": False, "reason": "concept"}
    if not intent.understood:
        if intent.terms and not CHAT.search(text):
            return {"route": "KNOWLEDGE", "wants_knowledge": False, "reason": "glossary term"}
        if (asks_for_data(intent) or NUMBER.search(text)) and not CHAT.search(text):
            # "quantos pedidos em 1997?" on a catalog written in English: a data question in
            # words the catalog does not know; the SQL writer reads them or says it cannot
            return {"route": "ANALYTICS", "wants_knowledge": False, "reason": "data, unread"}
        return {"route": "CHAT", "wants_knowledge": False, "reason": "nothing from the catalog"}
    ranked = (
        intent.ordering.top and not intent.ordering.recency
    )  # "a última tarefa" is a row, not a ranking
    summarised = (
        intent.groups or (intent.measures.metric and not intent.lists_metric_rows) or ranked
    )
    aggregated = (
        summarised or intent.measures.aggregate or (intent.time.period and not intent.asked.listing)
    )
    # "a tarefa mais recente" is a row found by ranking dates: analytics, as other rankings
    # (rows of a period listed are "a list filtered by a condition": analytics; rows said
    # to be in a state now are so whatever their date: "quais estão agendadas para amanhã")
    stated_now = bool(intent.where.filters) and PRESENT.search(text) is not None
    listed_now = intent.asked.listing and (not intent.placed_in_time or stated_now)
    # "quantas tarefas bloqueadas agora e qual o custo": two measures of them are a summary
    # (and an amount of them, "quanto tem de tarefa parada hoje", is a sum, not the rows)
    amount = intent.measures.aggregate not in (None, "count")
    current_state = (listed_now or intent.asked.current) and not (
        summarised or intent.measures.also or amount
    )
    current_state = current_state and not intent.ordering.recency
    # "a primeira tarefa do projeto 7": a related row found by ranking dates, as above
    # (not its events: "o último status da tarefa 7" is the row's state)
    owner = intent.subject.entity[0] if intent.subject.entity else None
    series = series_for(catalog, owner) if owner else None
    # "número do pedido": pedidos; not a word many tables' columns answer to ("status")
    spelled = Counter(c for _t, c in intent.subject.columns)
    named = [*intent.subject.tables, *(t for t, c in intent.subject.columns if spelled[c] == 1)]
    others = [t for t in named if t != owner and (series is None or t != series.name)]
    # "NF 41518: qual o último status?": the latest of its own events, not a ranking of others
    ranked_rows = intent.ordering.recency and others and not intent.latest_state_asked
    # the router's TRACKING (nodes/router.md): "the state or details of one specific entity
    # identified by its number or code (one attribute or several, its own or a related
    # record's), or which entities are in a state right now" (`current_state` above)
    looked_up = intent.subject.entity and not (aggregated or ranked_rows)
    # "quanto custou o projeto da tarefa 7": "how much" of a measure of one row or of the rows it
    # refers to (one each) is its value, not a sum over many
    one_row = _referred(catalog, owner) if owner else set()
    measured = intent.measures.measure is not None and intent.measures.measure[0] in one_row
    valued = intent.measures.aggregate and measured and all(t in one_row for t in others)
    valued = valued and not (summarised or intent.time.periods or ranked_rows)
    looked_up = looked_up or bool(intent.subject.entity and valued)
    kind = "TRACKING" if looked_up or current_state else "ANALYTICS"
    return {
        "route": kind,
        "wants_knowledge": bool(
            intent.asked.is_concept and intent.asked.asks_data and intent.understood
        ),
        "reason": "data",
    }


def asks_for_data(intent: Intent) -> bool:
    """The question is worded as a data question by the language alone, whatever it names: a
    count or an aggregate asked, a grouping, a period, a list or data asked for ("quantos …
    em 1997", "… por país", "quais … ?"), or a row named by its own name ("o telefone da
    Around the Horn"). (A ranking's word alone is not: "valeu, até mais!".)"""
    return bool(
        intent.measures.aggregate
        or intent.subject.named
        or intent.groups
        or intent.time.periods
        or intent.asked.listing
        or intent.asked.asks_data
    )


def _referred(catalog: Catalog, table: str) -> set[str]:
    """`table` and the tables its rows refer to, one row each, through any chain of joins
    (a report's exam, that exam's type)."""
    found, stack = {table}, [table]
    while stack:
        for join in catalog.table(stack.pop()).meta.joins:
            if join.to not in found:
                found.add(join.to)
                stack.append(join.to)
    return found


VALUE_ASKED = re.compile(
    rf"^{_spelled('value_question_words')}"
    rf"(?: {_spelled('value_question_verbs')}|{_spelled('value_question_contractions')}) "
    rf"{_spelled('value_question_owners')} "
)
"""A question asking a value, not a meaning: "what is the revenue by channel?"."""
ABOUT_THE_CONCEPT = re.compile(rf"\b{_spelled('meaning_words')}\b")


def _shaped_as_data(intent: Intent, text: str) -> bool:
    """A question worded like a concept's ("what is the revenue by channel?") that asks for
    values: broken down, over a period, ranked, or "the" value itself; not what a term means
    (though "the difference between May and June" compares periods' values)."""
    if ABOUT_THE_CONCEPT.search(text) and not intent.time.periods:
        return False
    shaped = (
        intent.groups
        or intent.time.periods
        or intent.ordering.top
        or intent.subject.entity
        or intent.where.comparisons
    )
    return bool(
        shaped or (VALUE_ASKED.match(text) and (intent.measures.metric or intent.measures.measure))
    )
