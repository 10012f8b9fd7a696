"""What the offline model says when it cannot map a question: what it understood, and two
or three questions it can answer about the same tables (a clear non-answer beats a wrong
number).

A question is not mapped when it would only list a table's rows while naming something the
catalog does not know ("a cor das tarefas"), or when it groups by something unknown ("por
cor"): answering the listing or the ungrouped total would be answering something else.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date

from orquestra.ddl_catalog.model import Catalog, Table
from orquestra.ddl_catalog.text import words
from orquestra.offline.intent import Intent
from orquestra.offline.lang import LANGUAGES, word_set
from orquestra.offline.lexicon import FUNCTION_WORDS, Meaning, date_column

QUESTION_WORDS: set[str] = set(word_set("question_words"))
"""Words of the languages that ask, point or link: never the thing a question is about."""
EXPLANATIONS = "explanation_texts"
"""The concept of the sentences saying what was understood, keyed by what each says."""


def unknown_words(
    intent: Intent,
    tokens: Sequence[str],
    matches: Sequence[tuple[int, int, list[Meaning]]],
    used: set[int],
    known_words: set[str],
) -> list[str]:
    """The question's content words the catalog does not know (nor the period, nor the
    languages' own words, nor `known_words`: the parser's own, such as time grains)."""
    known = set(used) | {i for start, end, _m in matches for i in range(start, end)}
    others = [o.period for o in [*intent.where.having, *intent.where.without] if o.period]
    period_words = {w for p in [*intent.time.periods, *others] for w in words(p.phrase)}
    return [
        token
        for index, token in enumerate(tokens)
        if index not in known
        and len(token) > 2
        and not token.isdigit()
        and token not in FUNCTION_WORDS | QUESTION_WORDS | period_words | known_words
    ]


def unmapped(intent: Intent, tokens: Sequence[str], grouping_words: tuple[str, ...]) -> list[str]:
    """The unknown words that leave the question unanswered: one right after "por"/"by"
    (or a grouping only another table's rows have), or any when all that is left is a bare
    listing of rows."""
    if intent.unread.elsewhere:
        return [word for word, _table, _column in intent.unread.elsewhere]
    after_group = [
        t
        for i, t in enumerate(tokens)
        if i and tokens[i - 1] in grouping_words and t in intent.unread.unknown
    ]
    if after_group:
        return after_group
    measured = (
        intent.measures.metric
        or intent.measures.measure
        or intent.measures.aggregate
        or intent.groups
    )
    if (
        intent.ordering.top
        and not intent.ordering.recency
        and not measured
        and intent.unread.unknown
    ):
        return list(intent.unread.unknown)  # "o cliente que mais deve": ranked by what, unknown
    bare = not (
        intent.subject.entity
        or intent.measures.metric
        or intent.measures.aggregate
        or intent.groups
        or intent.where.filters
        or intent.where.excluded
        or intent.where.unset
        or intent.time.periods
        or intent.where.having
        or intent.where.without
        or intent.ordering.top
        or intent.where.comparisons
        or intent.where.conditions
        or intent.ordering.recency
        or any(
            t in intent.subject.tables for t, _c in intent.subject.columns
        )  # a column of the rows asked
    )
    return list(intent.unread.unknown) if bare else []


def explain(
    intent: Intent,
    catalog: Catalog,
    lang: str,
    today: date,
    answered: Callable[[str], bool] | None = None,
    unused: bool = False,
    not_found: str | None = None,
) -> str:
    """What was understood of the question, and questions that can be answered about the
    same tables (each one `answered` says the model answers, when given). `unused`: the words
    are the catalog's, and the query could not use them ("discontinued", "below", "10").
    `not_found`: the row's name it writes was looked up in the data and no row has it."""
    tables = about(intent)
    named = ", ".join(_name(catalog.table(t), lang) for t in tables[:2])
    unknown = ", ".join(f'"{w}"' for w in intent.unread.unmapped)
    asks = suggestions(tables or list(catalog.tables)[:1], catalog, lang, today, answered)
    listed = "; ".join(asks)
    if intent.unread.elsewhere and named:
        return _not_theirs(intent, catalog, lang, named, listed)
    if not_found:
        return _written("no_such_name", lang, name=not_found, listed=listed)
    subject = _written("about_tables", lang, named=named) if named else ""
    said = "not_used" if unused else "nothing_for"
    return _written(said, lang, subject=subject, unknown=unknown, listed=listed)


def _not_theirs(intent: Intent, catalog: Catalog, lang: str, named: str, listed: str) -> str:
    """What was understood, and that the rows asked have no such column: only another
    table's rows do (named with the column's own words, so the asker can ask them)."""
    word, table, column = intent.unread.elsewhere[0]
    said = catalog.table(table).column(column).meta.synonyms
    column_said = ([*(said.en if lang == "en" else said.pt), column.replace("_", " ")])[0]
    owner = _name(catalog.table(table), lang)
    return _written(
        "only_others_have",
        lang,
        named=named,
        word=word,
        owner=owner,
        column_said=column_said,
        listed=listed,
    )


def _written(key: str, lang: str, **values: object) -> str:
    """The sentence `key` of `explanation_texts` in `lang` (in the first language, when `lang`
    has none), filled with `values`.

    >>> _written("latest_rows", "en", plural="orders"), _written("latest_rows", "xx", plural="x")
    ('the latest orders', 'x mais recentes')
    """
    language = LANGUAGES.get(lang) or next(iter(LANGUAGES.values()))
    return language.mapping(EXPLANATIONS)[key].format(**values)


def about(intent: Intent) -> list[str]:
    """The tables the question was understood to be about: its metric's, then those named."""
    metric = (
        [intent.measures.metric.metric.table]
        if intent.measures.metric and intent.measures.metric.metric
        else []
    )
    filtered = [t for t, _c in intent.where.filters]
    return list(dict.fromkeys([*metric, *intent.subject.tables, *filtered]))


def suggestions(
    tables: list[str],
    catalog: Catalog,
    lang: str,
    today: date,
    answered: Callable[[str], bool] | None = None,
) -> list[str]:
    """Two or three questions the offline model answers about `tables` (those `answered`
    says it answers, when given): their metrics by month, their rows counted by a categorical
    column, their most recent row, how many there are. When none of those is answered, the
    same of the catalog's other tables: never an empty list."""
    asked = [q for q in _asks(tables, catalog, lang, today) if answered is None or answered(q)]
    if len(asked) < 2 and answered is not None:
        others = [t for t in catalog.tables if t not in tables]
        asked += [q for q in _asks(others, catalog, lang, today) if answered(q)][: 3 - len(asked)]
    return list(dict.fromkeys(asked))[:3]


def _asks(tables: list[str], catalog: Catalog, lang: str, today: date) -> list[str]:
    """The questions `suggestions` tries about `tables`, in order."""
    found: list[str] = []
    for name in tables:
        table = catalog.table(name)
        for term in catalog.glossary:
            if term.metric and term.metric.table == name and term.metric.date_column:
                label = term.synonyms[-1] if lang == "en" and term.synonyms else term.term
                found.append(_written("by_month", lang, label=label, year=today.year))
                break
        plural = _name(table, lang)
        for column in table.columns:
            if column.meta.values and column.name != table.tenant_column:
                said = _first(column.meta.synonyms.en if lang == "en" else column.meta.synonyms.pt)
                said = said or column.name.replace("_", " ")
                found.append(_written("counted_by", lang, plural=plural, said=said))
                break
        if date_column(table) is not None:
            found.append(_written("latest_rows", lang, plural=plural))
        found.append(_written("how_many_rows", lang, plural=plural))
    return list(dict.fromkeys(found))


def _name(table: Table, lang: str) -> str:
    """How people call the table's rows, in the plural when the catalog has one."""
    said = table.meta.synonyms.en if lang == "en" else table.meta.synonyms.pt
    plural = [s for s in said if s.endswith("s") and len(words(s)) == 1]
    return (plural or said or [table.name.replace("_", " ")])[0]


def _first(options: list[str]) -> str:
    return next((o for o in options if len(words(o)) <= 2), options[0] if options else "")
