"""A measure asked by its verb: "quanto faturamos em maio", "quanto gastamos com frete",
"how much did we sell in 2025", "what did we spend on freight". The verb shares its root
with a word of a glossary metric's name or synonyms (in either language), and the metric
whose phrase the question covers best is the one asked.

The languages' own words (subject pronouns, verb endings, a few irregular English verbs)
come from their data (`offline/lang`); the metrics and their words from the glossary.
"""

from __future__ import annotations

from collections.abc import Sequence

from orquestra.ddl_catalog.model import Catalog, ColumnMeta, GlossaryTerm, TableMeta, per_catalog
from orquestra.ddl_catalog.text import stem, words
from orquestra.offline.conditions import drop_values_at
from orquestra.offline.intent import Intent
from orquestra.offline.lang import words as said_as
from orquestra.offline.lang.morphology import (
    FINITE_PAST,
    FIRST_PERSON,
    FIRST_PERSON_PAST,
    IRREGULAR,
    LENGTHS,
    verb_roots,
)
from orquestra.offline.lexicon import (
    DATE_TYPES,
    FUNCTION_WORDS,
    NEGATIONS,
    Meaning,
    is_measure,
    lexicon_for,
)
from orquestra.offline.question import Question

ONES_OWN_PAST = tuple(FIRST_PERSON_PAST)
"""Endings of the first person's past ("vendi", "recebi")."""
SUBJECTS = said_as("subject_pronouns")
"""Subjects ("did we <verb>", "a gente vendeu"): the word after one is a verb, even one
spelled like a table's synonym."""
HOW_MUCH = said_as("amount_askers")
"""Words that ask an amount right before a verb ("quanto vendi")."""


def metric_by_verb(q: Question, intent: Intent) -> None:
    """ "quanto faturamos em maio", "how much did we bill": a verb whose root starts a word
    of a metric's phrase asks for that metric, when the question names no table other than
    by that verb (then it is a state of those rows: "quantas tarefas concluímos")."""
    tokens, matches, catalog = q.tokens, q.matches, q.catalog
    if intent.measures.metric is not None or intent.subject.entity is not None:
        return
    stems = {stem(t) for t in tokens}
    amounts = _amounts_named(intent, catalog)
    best: tuple[float, int, GlossaryTerm] | None = None
    for index, token in enumerate(tokens):
        heads, roots = _roots(token, tokens[index - 1] if index else "")
        negated = any(t in NEGATIONS for t in tokens[max(0, index - 2) : index])
        if not (heads or roots) or negated:
            continue
        if intent.ordering.recency and _a_date_of_named_rows(intent, token, catalog):
            continue  # "the last task we approved": ordered by when it was approved
        mine = (tokens[index - 1] if index else "") in SUBJECTS or token.endswith(FIRST_PERSON)
        others = _tables_named_apart(intent, index, matches, mine)
        verb = heads
        if others:  # a participle of those rows is their state ("tasks reviewed")
            heads = []
        # "quanto vendi": how much, of a sum (not "quanto recebi" as orders received)
        how_much = index > 0 and tokens[index - 1] in HOW_MUCH and token.endswith(ONES_OWN_PAST)
        for order, (term, phrases) in enumerate(lexicon_for(catalog).metric_words):
            if amounts and not _measures_any(term, amounts):
                continue  # "how many kilos did we ship": the kilos of what was shipped
            if how_much and not _sums(term):
                continue
            theirs = not others - {term.metric.table if term.metric else ""}
            for phrase in phrases:
                # a participle names a metric by its first word ("revisado": "revisões");
                # a verb said as one's own by any ("gastamos": "o gasto com X"); every word of
                # a phrase said, the verb among them, names it whoever did it ("quantas horas
                # a equipe trabalhou": "horas trabalhadas")
                said = [
                    w for w in phrase if w in stems or any(w.startswith(r) for r in verb + roots)
                ]
                # (its own words: "de março a maio" says no "a" of "a receber")
                content = [w for w in phrase if w not in FUNCTION_WORDS]
                whole = (
                    len(content) > 1
                    and all(w in said for w in content)
                    and any(w.startswith(r) for r in verb for w in phrase if w not in stems)
                )
                named = theirs and (
                    any(phrase[0].startswith(r) for r in heads)
                    or any(w.startswith(r) for r in roots for w in phrase)
                )
                rows = _table_words(catalog).get(term.metric.table if term.metric else "", set())
                verbs = heads + roots
                if named and not whole and _only_the_rows(phrase, verbs, content, stems, rows):
                    continue  # "when did we start the first project": no "late starts"
                if not (named or whole):
                    continue  # "quantos pedidos faturamos": the orders' state, not revenue
                score = len(said) / len(phrase)
                if best is None or (score, -order) > (best[0], -best[1]):
                    best = (score, order, term)
                    spot = index
    if best is None:
        return
    intent.measures.metric = best[2]
    drop_values_at(intent, spot, matches)
    _drop_things_at(intent, spot, matches)


def _only_the_rows(
    phrase: tuple[str, ...], roots: list[str], content: list[str], stems: set[str], rows: set[str]
) -> bool:
    """The verb meets only words naming the metric's rows (`rows`: "start" of "late
    starts"), and another content word of the phrase ("late") is not said: the verb says
    what the rows did, not that metric."""
    met = [w for w in phrase if any(w.startswith(r) for r in roots)]
    unsaid = [w for w in content if w not in stems and w not in met]
    return bool(met) and all(w in rows for w in met) and bool(unsaid)


@per_catalog
def _table_words(catalog: Catalog) -> dict[str, set[str]]:
    """Each table's words: those of the phrases that name it or one of its date columns
    (what its rows are, and what they did: "delivery" of a delivered date). Read once per
    catalog."""
    found: dict[str, set[str]] = {}
    for key, meanings in lexicon_for(catalog).phrases.items():
        for meaning in meanings:
            dated = meaning.kind == "column" and catalog.table(meaning.table).column(
                meaning.column
            ).type_sql.startswith(DATE_TYPES)
            if meaning.kind == "table" or dated:
                found.setdefault(meaning.table, set()).update(key)
    return found


def _a_date_of_named_rows(intent: Intent, token: str, catalog: Catalog) -> bool:
    """`token` is the verb of a date of a table the question names ("delivered": "delivered
    at")."""
    roots = verb_roots(token)
    for name in intent.subject.tables:
        for column in catalog.table(name).columns:
            if column.type_sql.startswith(DATE_TYPES):
                spelled = words(" ".join(column.meta.synonyms.all()))
                if any(w.startswith(r) for r in roots for w in spelled):
                    return True
    return False


def states_that_are_the_rows_verb(q: Question, intent: Intent) -> None:
    """ "how much did we spend on shipping", "how many kilos have we shipped", "tasks closed
    in May": a state of rows the question does not name, said with a verb that names a date
    of the rows it measures ("shipped at"), is what those rows did, not a condition on the
    others."""
    tokens, matches, catalog = q.tokens, q.matches, q.catalog
    rule = intent.measures.metric.metric if intent.measures.metric else None
    base = rule.table if rule else (intent.measures.measure[0] if intent.measures.measure else None)
    if base is None and len(intent.subject.tables) == 1:
        base = intent.subject.tables[0]  # "tasks closed in May": the rows named, counted or listed
    if base is None:
        return
    dates = [c for c in catalog.table(base).columns if c.type_sql.startswith(DATE_TYPES)]
    spelled = {w for c in dates for w in words(" ".join(c.meta.synonyms.all()))}
    for start, end, meanings in matches:
        roots = [r for t in tokens[start:end] for r in verb_roots(t)]
        if not any(w.startswith(r) for r in roots for w in spelled):
            continue
        for meaning in meanings:
            if meaning.kind != "value" or meaning.table in (base, *intent.subject.tables):
                continue
            values = intent.where.filters.get((meaning.table, meaning.column), [])
            if meaning.value in values:
                values.remove(meaning.value)
                if not values:
                    del intent.where.filters[meaning.table, meaning.column]


def _amounts_named(intent: Intent, catalog: Catalog) -> list[str]:
    """The measure columns the question names ("quilos", "frete")."""
    return [c for t, c in intent.subject.columns if is_measure(catalog.table(t), c)]


def _measures_any(term: GlossaryTerm, columns: list[str]) -> bool:
    """The metric's expression adds up one of `columns` ("gastamos com frete": the freight
    spend sums the freight)."""
    return term.metric is not None and any(c in term.metric.shape.expression_names for c in columns)


def tables_by_verb(tokens: Sequence[str], catalog: Catalog) -> set[str]:
    """The tables a verb of the question is a form of, by a word of the table's or its
    columns' synonyms ("how many kilos did we ship": the rows with a "shipped at"): whose
    rows an amount asked is of."""
    found: set[str] = set()
    for index, token in enumerate(tokens):
        _heads, roots = _roots(token, tokens[index - 1] if index else "")
        if not roots:
            continue
        for table in catalog.tables.values():
            metas: list[TableMeta | ColumnMeta] = [table.meta, *(c.meta for c in table.columns)]
            said = {w for m in metas for p in m.synonyms.all() for w in words(p)}
            if any(w.startswith(r) for r in roots for w in said):
                found.add(table.name)
    return found


def _sums(term: GlossaryTerm) -> bool:
    return term.metric is not None and term.metric.shape.aggregate == "sum"


def _roots(token: str, before: str) -> tuple[list[str], list[str]]:
    """The roots a word may share with a metric's words, if it is a verb: those compared
    with a phrase's first word (any verb form, five letters or more), and those compared
    with any of its words (a verb said in the first person, or after an English subject).
    A first-person or English verb's root ("gast" of "gastamos", "bill") is compared from
    `LENGTHS.first_person_root` letters; other forms from `LENGTHS.head + 1`, as the parser
    always did."""
    heads = [r for r in verb_roots(token) if len(r) >= LENGTHS.head + 1]
    own = [token[: -len(e)] for e in FIRST_PERSON if token.endswith(e)]
    if before in SUBJECTS:
        own += [IRREGULAR.get(token, token), *verb_roots(token)]
        # "a gente vendeu", "eu vendi"
        own += [token[: -len(e)] for e in (*FINITE_PAST, *ONES_OWN_PAST) if token.endswith(e)]
    elif token in IRREGULAR:
        own.append(IRREGULAR[token])
    elif before in HOW_MUCH and token.endswith(ONES_OWN_PAST):
        # "quanto vendi": the first person's past names what was done ("valor vendido"),
        # by its participle, not the verb's other forms ("a receber" is not "recebi")
        own += [
            token[: -len(e)] + participle
            for e, participle in FIRST_PERSON_PAST.items()
            if token.endswith(e)
        ]
    return heads, list(dict.fromkeys(r for r in own if len(r) >= LENGTHS.first_person_root))


def _tables_named_apart(
    intent: Intent, index: int, matches: Sequence[tuple[int, int, list[Meaning]]], own: bool
) -> set[str]:
    """The tables the question names by some word other than the verb at `index`, other
    than as what groups ("how much did we sell per customer": the sales, by customer). Of a
    verb said as one's own (`own`), a column asked of a ranking groups too ("em qual
    segmento de projeto a gente vendeu mais"; "which category sold the most" is the
    category's own verb)."""
    grouping = {g.table for g in intent.groups if g.grain is None}
    if intent.ordering.top and own:
        grouping |= {t for t, _c in intent.subject.columns if t in intent.subject.tables}
    by_verb = {
        m.table
        for start, end, meanings in matches
        if start <= index < end
        for m in meanings
        if m.kind == "table"
    }
    return {t for t in intent.subject.tables if t not in by_verb | grouping}


def _drop_things_at(
    intent: Intent, index: int, matches: Sequence[tuple[int, int, list[Meaning]]]
) -> None:
    """The tables and columns a verb was read as ("did we bill": not the bills)."""
    for start, end, meanings in matches:
        if start <= index < end:
            named = {m.table for m in meanings if m.kind == "table"}
            intent.subject.tables = [t for t in intent.subject.tables if t not in named]
            said = {(m.table, m.column) for m in meanings if m.kind == "column"}
            intent.subject.columns = [c for c in intent.subject.columns if c not in said]
