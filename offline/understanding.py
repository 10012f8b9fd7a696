"""What the offline model says when it cannot map a question: what it understood, and two
or three questions it can answer about the same tables (a clear non-answer beats a wrong
number).

A question is not mapped when it would only list a table's rows while naming something the
catalog does not know ("a cor das tarefas"), or when it groups by something unknown ("por
cor"): answering the listing or the ungrouped total would be answering something else.
"""

from __future__ import annotations

from datetime import date

from orquestra.ddl_catalog.model import Catalog, Table
from orquestra.ddl_catalog.text import words
from orquestra.offline.intent import Intent
from orquestra.offline.lexicon import FUNCTION_WORDS, Meaning, date_column

QUESTION_WORDS = {
    *("qual", "quais", "quanto", "quanta", "quantos", "quantas", "quando", "onde", "quem"),
    *("como", "porque", "pode", "podes", "poderia", "favor", "por", "para", "pra", "pro"),
    *("mostre", "mostrar", "mostra", "liste", "listar", "lista", "ver", "veja", "quero"),
    *("queria", "gostaria", "saber", "diga", "dizer", "informe", "traga", "trazer", "me"),
    *("meu", "minha", "meus", "minhas", "nosso", "nossa", "nossos", "nossas", "eu", "nos"),
    *("tenho", "temos", "tive", "tivemos", "tem", "teve", "tiveram", "existe", "existem"),
    *("ha", "houve", "todos", "todas", "todo", "toda", "cada", "isso", "isto", "esse"),
    *("essa", "este", "esta", "aquele", "aquela", "foi", "foram", "ser", "sao", "estao"),
    *("agora", "hoje", "ainda", "ja", "sempre", "tambem", "mais", "menos", "muito", "pouco"),
    *("what", "which", "when", "where", "who", "how", "many", "much", "show", "list", "give"),
    *("tell", "please", "can", "could", "would", "want", "need", "know", "see", "get", "got"),
    *("have", "has", "had", "did", "does", "do", "done", "was", "were", "are", "there"),
    *("my", "mine", "our", "ours", "we", "us", "me", "you", "all", "every", "each", "any"),
    *("this", "that", "these", "those", "now", "today", "still", "already", "also", "with"),
    *("from", "about", "into", "than", "then", "some", "more", "less", "most", "least"),
    *("maior", "maiores", "menor", "menores", "pior", "piores", "melhor", "melhores", "top"),
    *("principais", "ranking", "biggest", "largest", "highest", "lowest", "worst", "best"),
    *("recente", "recentes", "ultimo", "ultima", "ultimos", "ultimas", "antigo", "antiga"),
    *("antigos", "antigas", "primeiro", "primeira", "primeiros", "primeiras", "latest"),
    *("newest", "oldest", "earliest", "first", "last", "recent", "fewest", "menos", "mais"),
    *("recently", "recentemente", "cheapest", "cheaper", "barato", "barata", "baratos"),
    *("baratas", "caro", "cara", "caros", "caras", "expensive", "person", "pessoa"),
    *("someone", "alguem"),
    *("distinto", "distintos", "distinta", "distintas", "diferentes", "distinct", "different"),
    *("separate", "separado", "separada", "separados", "separadas", "strongest", "weakest"),
    *("forte", "fortes", "fraco", "fraca", "fracos", "fracas", "stronger", "weaker"),
    *("unique", "unico", "unicos", "depois", "antes", "apos", "after", "before", "later"),
    *("earlier", "media", "medio", "average", "mean", "total", "soma", "sum", "count"),
    *("entre", "between", "ate", "until", "till", "off", "up", "out"),
    *("gentileza", "kindly", "obrigado", "obrigada", "thanks"),
}
"""Words of the languages that ask, point or link: never the thing a question is about."""


def unknown_words(
    intent: Intent,
    tokens: list[str],
    matches: list[tuple[int, int, list[Meaning]]],
    used: set[int],
    known_words: set[str],
) -> list[str]:
    """The question's content words the catalog does not know (nor the period, nor the
    languages' own words, nor `known_words`: the parser's own, such as time grains)."""
    known = set(used) | {i for start, end, _m in matches for i in range(start, end)}
    others = [o.period for o in [*intent.having, *intent.without] if o.period]
    period_words = {w for p in [*intent.periods, *others] for w in words(p.phrase)}
    return [
        token
        for index, token in enumerate(tokens)
        if index not in known
        and len(token) > 2
        and not token.isdigit()
        and token not in FUNCTION_WORDS | QUESTION_WORDS | period_words | known_words
    ]


def unmapped(intent: Intent, tokens: list[str], grouping_words: tuple[str, ...]) -> list[str]:
    """The unknown words that leave the question unanswered: one right after "por"/"by"
    (or a grouping only another table's rows have), or any when all that is left is a bare
    listing of rows."""
    if intent.elsewhere:
        return [word for word, _table, _column in intent.elsewhere]
    after_group = [
        t
        for i, t in enumerate(tokens)
        if i and tokens[i - 1] in grouping_words and t in intent.unknown
    ]
    if after_group:
        return after_group
    measured = intent.metric or intent.measure or intent.aggregate or intent.groups
    if intent.top and not intent.recency and not measured and intent.unknown:
        return list(intent.unknown)  # "o cliente que mais deve": ranked by what, unknown
    bare = not (
        intent.entity
        or intent.metric
        or intent.aggregate
        or intent.groups
        or intent.filters
        or intent.excluded
        or intent.unset
        or intent.periods
        or intent.having
        or intent.without
        or intent.top
        or intent.comparisons
        or intent.conditions
        or intent.recency
        or any(t in intent.tables for t, _c in intent.columns)  # a column of the rows asked
    )
    return list(intent.unknown) if bare else []


def explain(intent: Intent, catalog: Catalog, lang: str, today: date) -> str:
    """What was understood of the question, and questions that can be answered about the
    same tables."""
    tables = about(intent)
    named = ", ".join(_name(catalog.table(t), lang) for t in tables[:2])
    unknown = ", ".join(f'"{w}"' for w in intent.unmapped)
    asks = suggestions(tables or list(catalog.tables)[:1], catalog, lang, today)
    listed = "; ".join(asks)
    if intent.elsewhere and named:
        return _not_theirs(intent, catalog, lang, named, listed)
    if lang == "en":
        subject = f"it is about {named}, but " if named else ""
        return f"I understood that {subject}the data has nothing for {unknown}. Try: {listed}"
    subject = f"é sobre {named}, mas " if named else ""
    return f"entendi que {subject}os dados não têm nada para {unknown}. Experimente: {listed}"


def _not_theirs(intent: Intent, catalog: Catalog, lang: str, named: str, listed: str) -> str:
    """What was understood, and that the rows asked have no such column: only another
    table's rows do (named with the column's own words, so the asker can ask them)."""
    word, table, column = intent.elsewhere[0]
    said = catalog.table(table).column(column).meta.synonyms
    column_said = ([*(said.en if lang == "en" else said.pt), column.replace("_", " ")])[0]
    owner = _name(catalog.table(table), lang)
    if lang == "en":
        return (
            f'I understood that it is about {named}, but {named} have no "{word}": only '
            f"{owner} do ({column_said}). Try: {listed}"
        )
    return (
        f'entendi que é sobre {named}, mas {named} não têm "{word}": só {owner} têm '
        f"({column_said}). Experimente: {listed}"
    )


def about(intent: Intent) -> list[str]:
    """The tables the question was understood to be about: its metric's, then those named."""
    metric = [intent.metric.metric.table] if intent.metric and intent.metric.metric else []
    filtered = [t for t, _c in intent.filters]
    return list(dict.fromkeys([*metric, *intent.tables, *filtered]))


def suggestions(tables: list[str], catalog: Catalog, lang: str, today: date) -> list[str]:
    """Two or three questions the offline model answers about `tables`: their metrics by
    month, their rows counted by a categorical column, their most recent row."""
    found: list[str] = []
    for name in tables:
        table = catalog.table(name)
        for term in catalog.glossary:
            if term.metric and term.metric.table == name and term.metric.date_column:
                label = term.synonyms[-1] if lang == "en" and term.synonyms else term.term
                found.append(
                    f"{label} by month in {today.year}"
                    if lang == "en"
                    else f"{label} por mês em {today.year}"
                )
                break
        plural = _name(table, lang)
        for column in table.columns:
            if column.meta.values and column.name != table.tenant_column:
                said = _first(column.meta.synonyms.en if lang == "en" else column.meta.synonyms.pt)
                said = said or column.name.replace("_", " ")
                found.append(
                    f"how many {plural} by {said}?" if lang == "en" else f"{plural} por {said}"
                )
                break
        if date_column(table) is not None:
            found.append(f"the latest {plural}" if lang == "en" else f"{plural} mais recentes")
    return list(dict.fromkeys(found))[:3]


def _name(table: Table, lang: str) -> str:
    """How people call the table's rows, in the plural when the catalog has one."""
    said = table.meta.synonyms.en if lang == "en" else table.meta.synonyms.pt
    plural = [s for s in said if s.endswith("s") and len(words(s)) == 1]
    return (plural or said or [table.name.replace("_", " ")])[0]


def _first(options: list[str]) -> str:
    return next((o for o in options if len(words(o)) <= 2), options[0] if options else "")
