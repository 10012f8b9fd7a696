"""What kind of answer a question asks by its words: an aggregate ("quantos", "média",
"how much"), and a ranking's size ("top 5", "os cinco maiores", "the three cities").

Only the languages' own words live here.
"""

from __future__ import annotations

import re

from orquestra.offline.intent import Intent
from orquestra.offline.lexicon import FUNCTION_WORDS, PARTICIPLES, Meaning

AGGREGATES = {
    "total": ("total de", "total of"),
    "count": (
        "quantos",
        "quantas",
        *("quantidade", "qtd", "qtde"),
        "numero de",
        "how many",
        "count",
        "number of",
        "contagem",
    ),
    "sum": (
        *("total", "soma", "somatorio", "sum", "valor total", "montante", "how much"),
        *("add up", "added up", "adds up", "somaram", "somam", "somou", "somando"),
        *("combined", "somados", "somadas", "juntos", "juntas"),
        # "what were they worth altogether", "quanto valeram" ("the average order worth" avg)
        *("they worth", "it worth", "altogether", "ao todo", "no total", "valeram", "valem"),
    ),
    "avg": ("media", "medio", "average", "avg", "mean"),
    "max": ("maximo", "max", "highest", "maior valor"),
    "min": ("minimo", "min", "lowest", "menor valor"),
}

COUNT_WORDS = ("quantos", "quantas", "quanto", "quanta")

NUMBER_WORDS = {
    **{"dois": 2, "duas": 2, "tres": 3, "quatro": 4, "cinco": 5, "seis": 6, "sete": 7},
    **{"oito": 8, "nove": 9, "dez": 10, "two": 2, "three": 3, "four": 4, "five": 5},
    **{"six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10},
}
"""Small numbers said in words ("os cinco clientes", "the three cities"): a ranking's size."""

TOP = re.compile(
    r"\b(?:top|os|as|the|dos|das)\s+(\d+)\b(?!\s+(?:ultim|primeir|last|first|dias|meses|semanas"
    r"|anos|days|months|weeks|years))"
    r"|\b(\d+)\s+(?:maiores|principais|melhores|piores|menores|biggest|largest|top)\b"
)
"""A ranking's size ("top 5", "as 3 maiores", "das 5 cidades"); not a period's count ("dos
3 últimos meses", "the 2 last weeks")."""


SORTED = re.compile(
    r"\b(?:(?:do|da) (maior|menor) (?:pro|pra|para o|para a|ao|a) (?:maior|menor)"
    r"|from (?:the )?(highest|largest|biggest|most|lowest|smallest|least|fewest)"
    r" to (?:the )?(?:highest|largest|biggest|most|lowest|smallest|least|fewest)"
    r"|(?:em )?ordem (de)?(crescente|decrescente)|in (ascending|descending) order"
    r"|(ascending|descending)"
    r"|(cheapest|lowest|smallest|least|fewest|highest|largest|biggest|most expensive) first"
    r"|(menor(?:es)?|maior(?:es)?|mais barat[oa]s?|mais car[oa]s?) primeiro)\b"
)
"""An order asked for a whole list ("do maior pro menor", "from highest to lowest",
"em ordem crescente", "cheapest first"): how to sort it, not a ranking's first rows."""
LOW_FIRST = {"menor", "lowest", "smallest", "least", "fewest", "crescente", "ascending"}
LOW_FIRST |= {"cheapest", "menores", "mais barato", "mais barata", "mais baratos", "mais baratas"}


SINGLE_SUBJECT = re.compile(
    r"^(?:(?:o|a|the)\s+)?(?:mes|[a-z]+[^s\W])\s+(?:com|with|que|that|having)\s+(?:(?:o|a|the)\s+)?"
    r"(?:mais|most)$"
)
"""A ranking that opens with one thing, singular ("mês" too), and "com mais"/"with the most"."""


DATE_SORTED = re.compile(
    r"\b(?:(mais recentes?|newest|latest|most recent|ultimos)|mais antig[oa]s?|oldest"
    r"|earliest) (?:first|primeiro)\b"
)
"""A whole list in date order ("newest first", "mais antigos primeiro"): not one row."""


LIST_ORDERS = (
    *("liste", "listar", "lista", "list", "mostre", "mostra", "me mostre", "me mostra"),
    *("show me", "show", "me passa", "me passe", "give me"),
)
"""How a question orders rows listed ("liste…", "show me…"), as it opens."""
LIST_OPENER = "|".join(LIST_ORDERS)


def top_asked(intent: Intent, text: str) -> None:
    text = " ".join(str(NUMBER_WORDS.get(w, w)) for w in text.split(" "))
    text = DATE_SORTED.sub(" ", text)  # "mais antigos primeiro": no ranking of the most
    if sorted_by := SORTED.search(text):
        first = next(g for g in sorted_by.groups() if g)
        intent.ascending, intent.sorted = first in LOW_FIRST, "amount"
        text = f"{text[: sorted_by.start()]} {text[sorted_by.end() :]}"
    # "… no 2º tri de 2026? top 5": "top N" said outright, before a year read as "2026 top"
    found = re.search(r"\btop\s+(\d+)\b()", text) or TOP.search(text)
    if found:
        intent.top = int(found.group(1) or found.group(2))
    elif re.search(r"\b(maiores|principais|ranking|biggest|largest|piores|melhores)\b", text):
        intent.top = 10
    elif re.search(
        r"\b(maior|menor|largest|biggest|highest|lowest|smallest|pior|melhor|worst|best"
        r"|cheapest|busiest|strongest|weakest|top)\b",
        text,
    ):
        intent.top = 1  # "qual foi a maior venda": the single largest
    elif (ranked := re.search(r"\b(most|mais|fewest|least|menos)\b", text)) and not re.search(
        r"\b(pelo menos|at least)\b", text
    ):
        # "qual …", and "das transportadoras, qual é a que menos …": one asked for
        one = r"\b(qual|which|quem|who|what|em que|em qual|in which|on which)\b"
        # "mês com mais pedidos", "the month with the most": one subject, singular
        subject = SINGLE_SUBJECT.search(text[: ranked.end()])
        single = subject and not re.match(r"\s+(de|than)\b", text[ranked.end() :])  # "mais de 10"
        intent.top = 1 if re.search(one, text[: ranked.start()]) or single else 10


def aggregate_asked(
    intent: Intent, text: str, numeric_phrases: set[str], amounts: set[str]
) -> None:
    """The aggregate word; one that is also the name of a numeric column ("quantidade em
    estoque"), or a count word before an amount ("quantos quilos"), means that column's
    total, not a count of rows."""
    amounts_said = "|".join(re.escape(p) for p in amounts)
    for name, phrases in AGGREGATES.items():
        for phrase in phrases:
            if re.search(rf"\b{phrase}\b", text):
                # "quantos quilos", "how many hours": the count word asks for that amount
                counted = amounts_said and re.search(rf"\b{phrase} ({amounts_said})\b", text)
                total = phrase in numeric_phrases or (name == "count" and counted)
                intent.aggregate = "total" if total else name
                return
    if re.search(r"\b(quanto|qto)\b", text):  # "e quanto isso rendeu": how much, no other word
        intent.aggregate = "sum"


COUNT_NAMES = {"quantidade", "qtd", "qtde", "numero", "number", "count", "quantity", "qty"}
"""Words of counting: a list's bare "quantidade" asks how many; a column called so is also
how people ask how many ("quantidade de tarefas")."""


INTERROGATIVES = {"qual", "quais", "quem", "quanto", "quanta", "quantos", "quantas", "quando"}
INTERROGATIVES |= {"onde", "como", "what", "which", "who", "whom", "whose", "how", "when"}
INTERROGATIVES |= {"where", "cade", "name", "nome"}
ORDERS = {"list", "liste", "listar", "show", "mostre", "mostra", "mostrar", "give", "traga"}
"""Words that ask for rows when they open the question ("show me…"; "show up" is a verb)."""
ADVERBS = {"ja", "already", "ainda", "still", "yet", "really", "mesmo", "realmente", "nao", "not"}
"""Words between a subject and its verb ("o dono já aprovou")."""
AUXILIARIES = {"did", "does", "do", "has", "have", "had", "is", "was", "were", "are", "will"}
"""Words an English yes/no question opens with."""


def state_of_a_yes_no(
    intent: Intent, tokens: list[str], matches: list[tuple[int, int, list[Meaning]]]
) -> None:
    """ "Did the client already get task 12?", "o dono faltou à reunião 7?": a
    yes/no question about one row whose other table is the subject of a verb asks the row's
    state, not that table's row (the client's name). A table is a verb's subject when the
    word after it (past "já"/"already") is neither the catalog's table or column nor a
    function word, nor a participle right after it ("tarefa aberta"); no interrogative asks for
    anything else, nor is it a ranking ("a última tarefa aberta pro dono 7")."""
    if intent.entity is None or intent.recency or intent.top:
        return
    if any(t in INTERROGATIVES for t in tokens) or (tokens and tokens[0] in ORDERS):
        return
    if "?" not in intent.question and not (tokens and tokens[0] in AUXILIARIES):
        return  # "tarefa 12 dono urgente": no yes/no asked
    naming = {
        start: (end, meanings)
        for start, end, meanings in matches
        if any(m.kind == "table" for m in meanings)
    }
    catalog_words = {
        i
        for start, end, meanings in matches
        if any(m.kind in ("table", "column") for m in meanings)
        for i in range(start, end)
    }
    for end, meanings in naming.values():
        tables = {m.table for m in meanings if m.kind == "table"}
        others = tables - {intent.entity[0]}
        if not others or intent.entity[0] in tables:
            continue
        after = end
        while after < len(tokens) and tokens[after] in ADVERBS:
            after += 1
        if after >= len(tokens) or after in catalog_words or tokens[after] in FUNCTION_WORDS:
            continue
        verb = tokens[after]
        if verb.isdigit() or (after == end and verb.endswith(PARTICIPLES)):
            continue  # "tarefa aberta": the rows in a state, not a subject and its verb
        intent.tables = [t for t in intent.tables if t not in others]
        said = {(m.table, m.column) for m in meanings if m.kind == "column"}
        intent.columns = [
            (t, c) for t, c in intent.columns if t not in others and (t, c) not in said
        ]
        intent.wants_status = True
