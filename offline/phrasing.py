"""Readings of people's own phrasing on top of the parser's words: which group wins ("o mês
com mais pedidos", "which carrier had the most delays"), ranked by an attribute of a related
table ("top 3 categorias de produto"), and the direction of a ranking ("fewest").

Each reading works on the catalog's vocabulary (the lexicon's matches) and the languages'
own words only, so it holds for any deployment described the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from orquestra.ddl_catalog.model import Catalog
from orquestra.ddl_catalog.text import stem, words
from orquestra.offline.intent import Group, Intent
from orquestra.offline.lexicon import (
    DATE_TYPES,
    FUNCTION_WORDS,
    Lexicon,
    Meaning,
    display_column,
    is_measure,
    is_numeric,
    verb_roots,
)

LEAD_WORDS = {
    *("qual", "quais", "which", "what", "quem", "who", "em", "in", "que", "o", "a", "os"),
    *("as", "the", "top", "ranking", "de", "of", "mais", "most", "menos", "least", "fewest"),
    *("maior", "maiores", "menor", "menores", "pior", "piores", "melhor", "melhores"),
    *("worst", "best", "biggest", "largest", "highest", "lowest", "principais"),
}
"""Words that open a ranking question before its subject ("qual foi o", "in which", "top 3")."""
RANK_WORDS = ("mais", "most", "menos", "fewest", "least")
FEWEST = re.compile(r"(?<!pelo )(?<!at )\b(menos|fewest|least|lowest)\b")
"""Ascending rankings ("o mês com menos pedidos"); "pelo menos", "at least" are bounds."""


NEWEST = re.compile(
    r"\b(mais recentes?|ultim[oa]s?|latest|most recent|newest|last|derradeir[oa])\b"
)
OLDEST = re.compile(r"\b(mais antig[oa]s?|primeir[oa]s?|oldest|earliest|first)\b")
PLURAL_RECENCY = re.compile(r"\b(recentes|ultim[oa]s|antig[oa]s|primeir[oa]s)\b")


def recency(intent: Intent, text: str) -> None:
    """ "a tarefa mais recente", "o primeiro pedido do cliente 7", "the latest task": rows
    in the order of their own date, newest or oldest first, the first one (or the number
    asked). Words that named a period ("últimos 90 dias", "first quarter") are not read."""
    for period in intent.periods:
        text = text.replace(period.phrase, " ")
    newest, oldest = NEWEST.search(text), OLDEST.search(text)
    if not (newest or oldest):
        return
    first = min((m for m in (newest, oldest) if m), key=lambda m: m.start())
    intent.recency = "DESC" if first is newest else "ASC"
    around = text[max(0, first.start() - 4) : first.end() + 4]
    counted = re.search(r"\b(\d+)\b", around)  # "os 5 mais recentes", "last 5 orders"
    if counted:
        intent.top = int(counted.group(1))
    elif not re.search(r"\b(?:top|os|as|the)\s+\d+\b", text):
        intent.top = 10 if PLURAL_RECENCY.search(first.group(0)) else 1


WHY = re.compile(r"\b(why|por que|porque|por qual motivo|how come)\b")
REASON_WORDS = ("motivo", "razao", "causa", "reason", "cause")
"""The languages' words for a reason: a "why" question asks for the column named so."""
HEAD_LENGTH = 4
"""Shortest word read as the head of a column's name ("data", "valor", "date")."""


def entity_columns(
    intent: Intent,
    tokens: list[str],
    matches: list[tuple[int, int, list[Meaning]]],
    used: set[int],
    catalog: Catalog,
) -> None:
    """The columns a question about one row asks for: "qual o valor e a data do pedido 12"
    names two columns by their head words alone; "está concluída? qual o motivo?" asks the
    state a value belongs to, beside the reason."""
    if intent.entity is None or intent.metric or intent.aggregate or intent.groups:
        return
    table = catalog.table(intent.entity[0])
    own = {
        i
        for start, end, meanings in matches
        if any(m.table == table.name for m in meanings)
        for i in range(start, end)
    }
    said = [(i, t) for i, t in enumerate(tokens) if i not in used and i not in own]
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
            if (table.name, name) not in intent.columns:
                intent.columns.append((table.name, name))
    # A state of the row itself ("a tarefa 12 está bloqueada? qual o motivo?") asks for its
    # state column beside what else was asked (alone, every column shows it anyway).
    asked_own = any(t == table.name for t, _c in intent.columns)
    said = {(m.table, m.column) for _s, _e, found in matches for m in found if m.kind == "value"}
    for owner, column in list(intent.filters):
        if owner == table.name and (owner, column) in said:
            del intent.filters[owner, column]
            if asked_own and (owner, column) not in intent.columns:
                intent.columns.insert(0, (owner, column))


def rank_subject(
    intent: Intent,
    tokens: list[str],
    matches: list[tuple[int, int, list[Meaning]]],
    grains: dict[str, str],
    catalog: Catalog,
) -> None:
    """A ranking's subject is what the question opens with ("qual mês", "which carrier",
    "top 3 categorias"): the groups ranked. What follows "mais"/"most" is what is counted
    when no measure was named ("mais pedidos": the orders, counted)."""
    if not intent.top or intent.groups or intent.entity or intent.recency:
        return
    intent.ascending = bool(FEWEST.search(" ".join(tokens)))
    counted = _counted(intent, tokens, matches)
    base = _measured_table(intent) or counted
    if base is None:
        return
    subject = next(
        (i for i, t in enumerate(tokens) if t not in LEAD_WORDS and not t.isdigit()), None
    )
    if subject is None:
        return
    group = None
    if tokens[subject] in grains:
        group = Group("", "", grains[tokens[subject]])
    else:
        group = _group_for(_subject_meanings(subject, matches), base, catalog)
    if group is None:
        return
    intent.groups.append(group)
    if counted and not (intent.metric or intent.measure):
        intent.aggregate = "count"
    elif intent.aggregate in ("max", "min"):
        # "o cliente com o maior valor vencido": "maior" ranks the groups' totals
        intent.ascending = intent.aggregate == "min"
        intent.aggregate = None if intent.metric else "sum"
    # The counted table is the query's base; the ranked one is joined to it.
    intent.tables = [base, *(t for t in intent.tables if t != base)]


def _subject_meanings(subject: int, matches: list[tuple[int, int, list[Meaning]]]) -> list[Meaning]:
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


def _counted(
    intent: Intent, tokens: list[str], matches: list[tuple[int, int, list[Meaning]]]
) -> str | None:
    """ "com mais pedidos", "the most orders": the table named right after the rank word;
    "com mais faltas": the table whose rows are in the state named there (the state is
    already a filter)."""
    for start, _end, meanings in matches:
        if start and tokens[start - 1] in RANK_WORDS:
            table = next((m.table for m in meanings if m.kind == "table"), None)
            if table is None:
                filtered = [m.table for m in meanings if m.kind == "value"]
                table = next((t for t in filtered if _filters_on(intent, t)), None)
            if table is not None:
                return table
    return None


def _filters_on(intent: Intent, table: str) -> bool:
    return any(owner == table for owner, _column in intent.filters)


def _measured_table(intent: Intent) -> str | None:
    if intent.metric and intent.metric.metric:
        return intent.metric.metric.table
    return intent.measure[0] if intent.measure else None


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


CONJUNCTION = re.compile(r"(?:,\s*|\s+)(?:e|and)\s+")
"""Where a question may ask a second thing: "quantos … e qual o valor total"."""


def several_measures(
    intent: Intent, text: str, read: Callable[[str], Intent], catalog: Catalog
) -> None:
    """ "quantos pedidos e qual o valor total", "OTIF e lead time por modal": each clause's
    own measure, over the same rows (the whole question's tables, filters, groups and
    period). `read` parses one clause; a clause that names an amount ("qual o valor") asks
    for its total."""
    if intent.entity is not None:
        return
    for found in CONJUNCTION.finditer(text):
        first, second = read(text[: found.start()]), read(text[found.end() :])
        for part in (first, second):
            amounts = [(t, c) for t, c in part.columns if is_measure(catalog.table(t), c)]
            if not (part.metric or part.measure or part.aggregate) and amounts:
                part.measure, part.aggregate = amounts[0], "sum"
        if not all(part.metric or part.measure or part.aggregate for part in (first, second)):
            continue
        if _measure_of(first) == _measure_of(second) or _a_condition(first, second):
            continue
        intent.metric, intent.measure = first.metric, first.measure
        intent.aggregate = first.aggregate
        intent.also.append(second)
        return


def _a_condition(first: Intent, second: Intent) -> bool:
    """ "quantas tarefas saíram em maio e chegaram atrasadas": a count, then a metric that
    counts rows, is one count of the rows the metric's filter keeps, not two measures."""
    rule = second.metric.metric if second.metric else None
    counts_rows = rule is not None and rule.expression.replace(" ", "").upper() == "COUNT(*)"
    return counts_rows and first.aggregate == "count" and not (first.metric or first.measure)


def _measure_of(part: Intent) -> tuple[object, ...]:
    return (part.metric.term if part.metric else None, part.measure, part.aggregate)


DISTINCT = re.compile(r"\b(distint[oa]s|diferentes|distinct|different|unique|unic[oa]s)\b")


def distinct_count(
    intent: Intent, tokens: list[str], matches: list[tuple[int, int, list[Meaning]]]
) -> None:
    """ "quantas tarefas distintas", "how many different customers": the rows of the table
    named beside the word, each counted once — by its whole key, whichever table holds the
    rows the question filters."""
    spots = [i for i, t in enumerate(tokens) if DISTINCT.fullmatch(t)]
    if not spots:
        return
    for start, end, meanings in matches:
        if end == spots[0] or start == spots[0] + 1:
            table = next((m.table for m in meanings if m.kind == "table"), None)
            if table is not None:
                intent.distinct_table = table
                intent.aggregate = intent.aggregate or "count"
                # The rows where it happens are the query's base: "clientes diferentes que
                # fizeram pedidos" counts customers over the orders.
                others = [t for t in intent.tables if t != table]
                intent.tables = [*others, table] if others else intent.tables
                return


AFTER = ("depois", "apos", "after", "later")
BEFORE = ("antes", "before", "earlier")
LINKS = ("da", "de", "do", "das", "dos", "of", "the", "than", "a", "o", "que", "sua", "seu", "its")
SHARED_PREFIX = 6
"""Shortest common start that ties a verb to a column ("entregues" ~ "entrega")."""


def date_comparison(
    intent: Intent,
    tokens: list[str],
    matches: list[tuple[int, int, list[Meaning]]],
    catalog: Catalog,
) -> None:
    """ "entregues depois da previsão", "signed after the deadline": one date column of a
    row against another. The verb names the first (its root is the column's), the words
    after "depois"/"after" the second. When a glossary metric's filter makes the same
    comparison, the question is in that metric's terms: its date column places the rows."""
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
        intent.comparisons.append((table, left, operator, other))
        # The verb and the compared column are the condition, not a state or a named date.
        intent.columns = [c for c in intent.columns if c not in {(table, left), (table, other)}]
        for start, end, meanings in matches:
            if start <= position < end:
                for meaning in meanings:
                    values = intent.filters.get((meaning.table, meaning.column), [])
                    if meaning.kind == "value" and meaning.value in values:
                        values.remove(meaning.value)
                        if not values:
                            del intent.filters[meaning.table, meaning.column]
        if table not in intent.tables:
            intent.tables.insert(0, table)
        for term in catalog.glossary:
            rule = term.metric
            if rule and rule.table == table and _compares(rule.filter or "", left, operator, other):
                intent.date_column = rule.date_column
                break
        return


def _date_column_after(
    index: int,
    tokens: list[str],
    matches: list[tuple[int, int, list[Meaning]]],
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
    involved = [*intent.tables, *(t for t, _c in intent.filters)]
    for table in dict.fromkeys(involved):
        for column in catalog.table(table).columns:
            if not column.type_sql.startswith(DATE_TYPES):
                continue
            spelled = [column.name.replace("_", " "), *column.meta.synonyms.all()]
            if said in {stem(w) for phrase in spelled for w in words(phrase)}:
                return table, column.name
    return None


def _verb_column(
    said: list[str], table: str, other: str, catalog: Catalog
) -> tuple[str, int] | None:
    """The table's other date column a verb before the comparison names ("entregues"), and
    where the verb is."""
    for position in range(len(said) - 1, -1, -1):
        token = said[position]
        for column in catalog.table(table).columns:
            if column.name == other or not column.type_sql.startswith(DATE_TYPES):
                continue
            spelled = words(" ".join([column.name.replace("_", " "), *column.meta.synonyms.all()]))
            roots = verb_roots(token)
            if any(w.startswith(r) for r in roots for w in spelled) or _shares_start(
                token, spelled
            ):
                return column.name, position
    return None


def _shares_start(token: str, spelled: list[str]) -> bool:
    return any(
        len(token) >= SHARED_PREFIX and fold_word[:SHARED_PREFIX] == token[:SHARED_PREFIX]
        for fold_word in (w.lower() for w in spelled)
    )


def _compares(condition: str, left: str, operator: str, right: str) -> bool:
    """The filter compares `left` with `right` the same way (casts and spacing aside)."""
    flat = re.sub(r"::\w+|\s+", "", condition.lower())
    mirrored = {">": "<", "<": ">"}[operator]
    return f"{left}{operator}{right}" in flat or f"{right}{mirrored}{left}" in flat


GAP_WORDS = {
    *("medio", "media", "medios", "medias", "average", "mean", "avg", "total", "totais"),
    *("maximo", "maxima", "minimo", "minima", "maximum", "minimum"),
}
"""Aggregate words people put inside a metric's name ("custo médio de frete")."""


def metric_with_gaps(intent: Intent, tokens: list[str], lexicon: Lexicon) -> None:
    """A metric named with an aggregate word inside its phrase ("custo médio de frete" is
    "custo de frete", averaged): the metric's filter and date column still apply."""
    if intent.metric is not None or intent.entity is not None:
        return
    kept = [t for t in tokens if t not in GAP_WORDS]
    if len(kept) == len(tokens):
        return
    metrics = lexicon.metrics_in(kept)
    if metrics:
        intent.metric = metrics[0]


def values_after_their_column(
    matches: list[tuple[int, int, list[Meaning]]],
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


FIRST_PERSON = ("ei", "amos", "emos", "imos")
"""Endings of "faturei", "faturamos": the verbs people ask about their own business with."""


def metric_by_verb(
    intent: Intent,
    tokens: list[str],
    matches: list[tuple[int, int, list[Meaning]]],
    catalog: Catalog,
) -> None:
    """ "quanto faturamos em maio": a verb whose root starts a metric's name asks for that
    metric, when the question names no table of its own (then it is a state of those rows:
    "quantas tarefas concluímos")."""
    if intent.metric is not None or intent.entity is not None or intent.tables:
        return
    for index, token in enumerate(tokens):
        roots = [*verb_roots(token), *(token[: -len(e)] for e in FIRST_PERSON if token.endswith(e))]
        roots = [r for r in roots if len(r) >= HEAD_LENGTH + 1]
        for term in catalog.glossary:
            if term.metric is None:
                continue
            heads = [words(phrase)[0] for phrase in [term.term, *term.synonyms] if words(phrase)]
            if any(head.startswith(root) for root in roots for head in heads):
                intent.metric = term
                _drop_values_at(intent, index, matches)
                return


def _drop_values_at(
    intent: Intent, index: int, matches: list[tuple[int, int, list[Meaning]]]
) -> None:
    """The states a word was read as, when it turned out to mean something else."""
    for start, end, meanings in matches:
        if start <= index < end:
            for meaning in meanings:
                values = intent.filters.get((meaning.table, meaning.column), [])
                if meaning.kind == "value" and meaning.value in values:
                    values.remove(meaning.value)
                    if not values:
                        del intent.filters[meaning.table, meaning.column]


NEGATED = ("nao", "nunca", "sem", "not", "never", "without", "nem")
PARTICIPLES = ("ado", "ada", "ados", "adas", "ido", "ida", "idos", "idas", "ed")
"""Endings of a state's word ("vendido", "sold"): what a metric's name may say its rows are."""


def implied_metric_rows(intent: Intent, tokens: list[str], catalog: Catalog) -> None:
    """ "os produtos mais vendidos em quantidade": "vendidos" is how a metric's name ("valor
    vendido") says which rows count, so its filter (and date) apply to the rows measured,
    though the measure is another (the quantity)."""
    if intent.metric is not None or intent.entity is not None:
        return
    for term in catalog.glossary:
        if term.metric is None or not term.metric.filter:
            continue
        states = [w for w in words(term.term) if w.endswith(PARTICIPLES) and len(w) > 5]
        spots = [i for i, t in enumerate(tokens) if states and stem(t) == stem(states[0])]
        negated = any(t in NEGATED for i in spots for t in tokens[max(0, i - 2) : i])
        if len(states) == 1 and spots and not negated and term not in intent.implied:
            intent.implied.append(term)
