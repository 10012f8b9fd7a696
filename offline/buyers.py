"""Rows named by what they did or have in other rows: "quantos clientes compraram em maio",
"the five customers who bought the most in 2025", "quais clientes têm títulos vencidos";
and two values of one column compared ("Unimed ou Bradesco, quem pagou mais?").

A verb shares its root with a synonym of a reference column of another table ("comprou" and
the order's customer column, called "comprador"; "bought" and "buyer"): the rows of that
other table are the acts, and the rows named are those the acts refer to. Counted, each
one that acted in the period counts once; ranked, by the acts' headline amount (the first
glossary metric over them that sums and is better higher). Rows that "have" filtered rows
of a table referring to them are listed once each.

Only the languages' own words live here; the rest comes from the catalog.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from orquestra.ddl_catalog.model import Catalog, GlossaryTerm
from orquestra.ddl_catalog.text import stem, words
from orquestra.offline.intent import Group, Intent, Others
from orquestra.offline.lang import alternation, mapping, word_set
from orquestra.offline.lang.morphology import ACT_PLURALS, LENGTHS, PRESENT_ENDINGS, verb_roots
from orquestra.offline.lexicon import NEGATIONS, display_column, is_numeric
from orquestra.offline.question import Question
from orquestra.offline.ranking import FAST, SLOW, better

IRREGULAR_AGENTS = mapping("irregular_agents")
"""English verb forms whose root starts their agent noun ("buyer", "payer")."""


def rows_that_acted(q: Question, intent: Intent) -> None:
    """The rows named, read as those that did what the verb says in another table's rows
    (a word of the catalog's own is no such verb); the word read so is taken ("por
    compras": never unknown)."""
    acted = _acting_word(intent, q.tokens, q.catalog, q.lexicon.vocabulary)
    intent.unread.taken.update(i for i, t in enumerate(q.tokens) if t == acted)


def _acting_word(
    intent: Intent, tokens: Sequence[str], catalog: Catalog, known: set[str]
) -> str | None:
    """`rows_that_acted`, the word of `tokens` read as the verb, if any (a word of `known`
    is none)."""
    if intent.subject.entity and intent.measures.aggregate == "sum":
        _how_much_one_did(intent, tokens, catalog, known)
        return None
    if intent.subject.entity or intent.measures.metric or intent.measures.measure or intent.groups:
        return None
    # "qual estado compra mais": a column of the rows that act, ranked, names them by it
    by_column = {
        t: c for t, c in intent.subject.columns if not is_numeric(catalog.table(t).column(c))
    }
    named_rows = intent.subject.tables or (list(by_column) if intent.ordering.top else [])
    if not named_rows:
        return None
    stated = bool(intent.where.filters)
    for token in (t for t in tokens if stem(t) not in known):
        roots = _agent_roots(token, nouns=not stated)  # "compras canceladas": not the acts
        acts = _acts(roots, named_rows, catalog) if roots else None
        if acts is None:
            continue
        table, named = acts
        index = tokens.index(token)
        negated = any(t in NEGATIONS for t in tokens[max(0, index - 2) : index])
        if (negated and not intent.ordering.top) or not (
            intent.ordering.top or intent.measures.aggregate
        ):
            # "clientes que (não) compraram em 2026": the rows with (or without) such acts
            # in the period said, not the rows made in it
            period = intent.time.periods[0] if intent.time.periods else None
            intent.time.periods, intent.time.period = intent.time.periods[1:], None
            (intent.where.without if negated else intent.where.having).append(Others(table, period))
            intent.subject.tables = [named]
            return token
        if intent.ordering.top:
            metric = _amount(table, catalog)
            if metric is None:
                return None
            shown = by_column.get(named)  # "qual segmento comprou mais": by that column
            intent.measures.metric, intent.subject.tables = metric, [named]
            intent.groups.append(Group(named, shown or display_column(catalog.table(named)).name))
            intent.ordering.ascending = False
        elif intent.measures.aggregate == "count":
            intent.subject.tables = [table, named]
            intent.subject.distinct_table = named
        else:
            return None
        return token
    return None


def _how_much_one_did(
    intent: Intent, tokens: Sequence[str], catalog: Catalog, known: set[str]
) -> None:
    """ "quanto o dono 12 comprou em maio": how much one row did in another table's rows is
    those acts' headline amount, of that row."""
    if intent.measures.metric or intent.measures.measure or intent.groups:
        return
    assert intent.subject.entity is not None
    for token in (t for t in tokens if stem(t) not in known):
        roots = _agent_roots(token)
        acts = _acts(roots, [intent.subject.entity[0]], catalog) if roots else None
        metric = _amount(acts[0], catalog) if acts else None
        if metric is not None:
            intent.measures.metric = metric
            return


def _agent_roots(token: str, nouns: bool = True) -> list[str]:
    """The roots a verb shares with its agent noun: "bought" → "buy", "comprou" → "compr",
    in the present, "compra"/"compram" → "compr", and (with `nouns`) the acts' plural noun,
    "compras" → "compr"."""
    if token in IRREGULAR_AGENTS:
        return [IRREGULAR_AGENTS[token]]
    roots = verb_roots(token)
    if not roots and len(token) > LENGTHS.root:  # a present form longer than a root
        roots = [token[: -len(end)] for end in PRESENT_ENDINGS if token.endswith(end)][:1]
    if nouns and not roots and token.endswith(ACT_PLURALS):
        # "top 5 clientes por compras": the acts named by their noun, of a whole root
        end = next(end for end in ACT_PLURALS if token.endswith(end))
        roots = [token[: -len(end)]] if len(token) - len(end) >= LENGTHS.root else []
    return roots


def _acts(roots: list[str], named: list[str], catalog: Catalog) -> tuple[str, str] | None:
    """(the acting table, the table named) when a reference column's synonym is the verb's."""
    for table in catalog.tables.values():
        for join in table.meta.joins:
            if join.to not in named or join.to == table.name:
                continue
            for column in join.on:
                spelled = words(" ".join(table.column(column).meta.synonyms.all()))
                if any(w.startswith(root) for root in roots for w in spelled):
                    return table.name, join.to
    return None


def _amount(table: str, catalog: Catalog) -> GlossaryTerm | None:
    """The first glossary metric over `table` that sums an amount and is better higher."""
    return next(
        (
            t
            for t in catalog.glossary
            if t.metric is not None
            and t.metric.table == table
            and t.metric.shape.aggregate == "sum"
            and better(t) != "lower"
        ),
        None,
    )


HAVE = word_set("owning")
"""The languages' words for rows having others ("clientes com títulos vencidos")."""


def owners_listed(q: Question, intent: Intent) -> None:
    """ "quais clientes têm títulos vencidos", "which customers have overdue bills": the
    rows of the table named first that the rows asked about refer to, listed; not when the
    rows asked about are named first ("as tarefas atrasadas com dono e prazo": their own
    columns)."""
    tokens, matches, catalog = q.tokens, q.matches, q.catalog
    if (
        not intent.asked.listing
        or intent.subject.entity
        or intent.groups
        or intent.ordering.top
        or not intent.subject.tables
    ):
        return
    if not HAVE & set(tokens):
        return
    if FAST.search(" ".join(tokens)) or SLOW.search(" ".join(tokens)):
        return  # "which team has the fastest turnaround": a ranking, not the owners
    named = intent.subject.tables[0]
    filtered = [t for t, _c in intent.where.filters if t != named]
    measured = (
        intent.measures.metric.metric.table
        if intent.measures.metric and intent.measures.metric.metric
        else None
    )
    acts = measured or next(iter(filtered), None)
    if acts is None or acts == named:
        return
    if not any(j.to == named for j in catalog.table(acts).meta.joins):
        return
    said = {
        table: min(
            (s for s, _e, found in matches if any(m.table == table for m in found)), default=0
        )
        for table in (named, acts)
    }
    if said[acts] < said[named]:
        return
    intent.subject.owners, intent.measures.aggregate = named, None
    intent.subject.tables = [acts, *(t for t in intent.subject.tables if t != acts)]


COUNTED = mapping("counted_thresholds")
"""Words before a number of other rows a row has, and how its count compares ("more than")."""


def owners_counted(q: Question, intent: Intent) -> None:
    """ "which customers have more than 20 orders", "clientes com mais de 5 pedidos": the
    rows of a table named before a threshold, a number and another table whose rows refer to
    them, kept when those rows (in the period said) are that many; the threshold and the
    number are taken."""
    tokens, catalog = q.tokens, q.catalog
    if intent.subject.entity or intent.groups or intent.ordering.top:
        return
    for start, _end, meanings in q.matches:
        number = start - 1
        if number < 1 or not tokens[number].isdigit():
            continue
        said = next(
            (
                (n, w)
                for w, operator in COUNTED.items()
                if list(tokens[number - (n := len(w.split())) : number]) == w.split()
            ),
            None,
        )
        if said is None:
            continue
        here = [m.table for m in meanings if m.kind == "table"]  # "itens": items or products
        pairs = [
            (acts, owner)
            for acts in here
            for owner in intent.subject.tables
            if owner != acts
            and any(j.to == owner for j in catalog.table(acts).meta.joins)
            and _said_before(q, owner, start)
        ]
        if not pairs:
            continue
        acts, owner = pairs[0]
        period = intent.time.periods[0] if intent.time.periods else None
        intent.time.periods, intent.time.period = intent.time.periods[1:], None
        count = (COUNTED[said[1]], int(tokens[number]))
        intent.where.having.append(Others(acts, period, count=count))
        intent.subject.tables = [
            owner,
            *(t for t in intent.subject.tables if t != owner and t not in here),
        ]
        intent.unread.taken.update(range(number - said[0], number + 1))
        return


def _said_before(q: Question, table: str, position: int) -> bool:
    """`table` is named by a phrase of the question that starts before `position`."""
    return any(
        s < position and any(m.table == table and m.kind == "table" for m in found)
        for s, _e, found in q.matches
    )


EITHER = re.compile(rf"\b({alternation('or_words')})\b")
WHICH_MORE = re.compile(
    rf"\b({alternation('who_or_which')})\b.*\b({alternation('more', 'less')})\b"
)
LESS = re.compile(rf"\b({alternation('less')})\b")
"""Asked for the least ("quem pagou menos"): the compared values ranked ascending."""


def either_ranked(q: Question, intent: Intent) -> None:
    """ "Unimed ou Bradesco, quem pagou mais em 2025?": two values of one column named with
    "ou"/"or" and compared are the groups, side by side, ranked by the rows' amount (the
    first glossary metric over their table that sums), else counted."""
    text, catalog = q.text, q.catalog
    if (
        intent.groups
        or intent.subject.entity
        or not (EITHER.search(text) and WHICH_MORE.search(text))
    ):
        return
    compared = [(t, c) for (t, c), values in intent.where.filters.items() if len(values) >= 2]
    if len(compared) != 1:
        return
    table, column = compared[0]
    if intent.measures.metric is None and intent.measures.measure is None:
        intent.measures.metric = _amount(table, catalog)
        intent.measures.aggregate = None if intent.measures.metric else "count"
    intent.groups.append(Group(table, column))
    intent.ordering.top = len(intent.where.filters[table, column])
    intent.ordering.ascending = bool(LESS.search(text))
