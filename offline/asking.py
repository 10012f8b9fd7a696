"""What kind of answer a question asks by its words: an aggregate ("quantos", "média",
"how much"), and a ranking's size ("top 5", "os cinco maiores", "the three cities").

The languages' words are concepts (`lang/<code>/asking.yaml`); only their forms live here.
"""

from __future__ import annotations

import re

from orquestra.offline.intent import Intent
from orquestra.offline.lang import alternation, each_language, mapping, word_set, words
from orquestra.offline.lang.morphology import PARTICIPLES
from orquestra.offline.lexicon import FUNCTION_WORDS
from orquestra.offline.question import Question

AGGREGATES = {
    "total": words("asks_total"),
    "count": words("asks_count"),
    "sum": words("asks_sum"),
    "avg": words("asks_average"),
    "max": words("asks_maximum"),
    "min": words("asks_minimum"),
}
"""Each aggregate by the phrases that ask it, tried in this order (the first found wins)."""

COUNT_WORDS = words("quantity_askers")

NUMBER_WORDS = {word: int(number) for word, number in mapping("small_number_words").items()}
"""Small numbers said in words ("os cinco clientes", "the three cities"): a ranking's size."""

TOP = re.compile(
    rf"\b{alternation('ranking_size_before')}\s+(\d+)\b"
    rf"(?!\s+{alternation('period_count_starts')})"
    rf"|\b(\d+)\s+{alternation('ranking_size_after')}\b"
)
"""A ranking's size ("top 5", "as 3 maiores", "das 5 cidades"); not a period's count ("dos
3 últimos meses", "the 2 last weeks")."""


SORTED = re.compile(
    r"\b(?:"
    # one language's words at a time: "do highest to lowest" is no order
    + each_language("(?:{sort_from}) ({sort_extremes}) (?:{sort_to}) (?:{sort_extremes})")
    + f"|({alternation('sort_orders')})"
    + "|"
    + each_language("({sorted_first}) {list_first}")
    + r")\b"
)
"""An order asked for a whole list ("do maior pro menor", "from highest to lowest",
"em ordem crescente", "cheapest first"): how to sort it, not a ranking's first rows."""
LOW_FIRST = word_set("low_first")


SINGLE_SUBJECT = re.compile(
    rf"^(?:{alternation('singular_articles')}\s+)?"
    rf"(?:{alternation('singular_in_s')}|[a-z]+[^s\W])\s+{alternation('subject_most_links')}"
    rf"\s+(?:{alternation('singular_articles')}\s+)?{alternation('most')}$"
)
"""A ranking that opens with one thing, singular ("mês" too), and "com mais"/"with the most"."""


DATE_SORTED = re.compile(
    rf"\b(?:({alternation('newest_sorted')})|{alternation('oldest_sorted')})"
    rf" {alternation('list_first')}\b"
)
"""A whole list in date order ("newest first", "mais antigos primeiro"): not one row."""


LIST_ORDERS = words("list_orders")
"""How a question orders rows listed ("liste…", "show me…"), as it opens."""
LIST_OPENER = "|".join(LIST_ORDERS)

TOP_SAID = re.compile(rf"\b{alternation('top')}\s+(\d+)\b()")
RANKED_MANY = re.compile(rf"\b{alternation('ranking_plural')}\b")
RANKED_ONE = re.compile(rf"\b{alternation('ranking_single')}\b")
RANKED_BY_MORE = re.compile(rf"\b{alternation('most_or_fewest')}\b")
AT_LEAST = re.compile(rf"\b{alternation('at_least')}\b")
ONE_ASKED = re.compile(rf"\b{alternation('asks_which_one')}\b")
THAN = re.compile(rf"\s+{alternation('than')}\b")
THAN_A_NUMBER = re.compile(rf"\s+{alternation('than')}\s+\d")
"""A number right after "more than" ("mais de 10"): a threshold, not a ranking."""
HOW_MUCH_ALONE = re.compile(rf"\b{alternation('how_much_alone')}\b")
AMOUNT_ASKERS = frozenset(words("asks_amount") + words("how_much") + words("how_much_alone"))
"""Words that ask an amount, never a count ("how much", "quanto", "montante")."""


def top_asked(q: Question, intent: Intent) -> None:
    text = q.unranked
    text = " ".join(str(NUMBER_WORDS.get(w, w)) for w in text.split(" "))
    text = DATE_SORTED.sub(" ", text)  # "mais antigos primeiro": no ranking of the most
    if sorted_by := SORTED.search(text):
        first = next(g for g in sorted_by.groups() if g)
        intent.ordering.ascending, intent.ordering.sorted = first in LOW_FIRST, "amount"
        text = f"{text[: sorted_by.start()]} {text[sorted_by.end() :]}"
    # "… no 2º tri de 2026? top 5": "top N" said outright, before a year read as "2026 top"
    found = TOP_SAID.search(text) or TOP.search(text)
    if found:
        intent.ordering.top = int(found.group(1) or found.group(2))
    elif RANKED_MANY.search(text):
        intent.ordering.top = 10
    elif RANKED_ONE.search(text):
        intent.ordering.top = 1  # "qual foi a maior venda": the single largest
    elif (
        (ranked := RANKED_BY_MORE.search(text))
        and not AT_LEAST.search(text)
        and not THAN_A_NUMBER.match(text[ranked.end() :])  # "mais de 10": a threshold
    ):
        # "mês com mais pedidos", "the month with the most": one subject, singular
        subject = SINGLE_SUBJECT.search(text[: ranked.end()])
        single = subject and not THAN.match(text[ranked.end() :])  # "mais de 10"
        # "qual …", and "das transportadoras, qual é a que menos …": one asked for; "which
        # countries …": its plural asks for several
        asked = ONE_ASKED.search(text[: ranked.start()])
        one = asked is not None and not _plural_follows(text, asked.end())
        intent.ordering.top = 1 if one or single else 10


SINGULAR_IN_S = word_set("singular_in_s")


def _plural_follows(text: str, end: int) -> bool:
    """Whether the word after a "which" is a plural ("which countries", "em que meses"):
    several asked for, not one.

    >>> _plural_follows("which countries bought the most", 5)
    True
    >>> _plural_follows("which month had the most", 5), _plural_follows("em que mes", 5)
    (False, False)
    >>> _plural_follows("quem mais faltou", 4)
    False
    """
    after = re.match(r"\s+(\w+)", text[end:])
    if after is None:
        return False
    word = after.group(1)
    if word in FUNCTION_WORDS or word in SINGULAR_IN_S or RANKED_BY_MORE.fullmatch(word):
        return False  # "quem mais faltou": no noun follows
    return len(word) > 3 and word.endswith("s") and not word.endswith("ss")


def aggregate_asked(q: Question, intent: Intent) -> None:
    """The aggregate word; one that is also the name of a numeric column ("quantidade em
    estoque"), or a count word before an amount ("quantos quilos"), means that column's
    total, not a count of rows."""
    text, numeric_phrases, amounts = q.unsorted, q.numeric_phrases, q.amounts
    amounts_said = "|".join(re.escape(p) for p in amounts)
    for name, phrases in AGGREGATES.items():
        for phrase in phrases:
            if re.search(rf"\b{phrase}\b", text):
                # "quantos quilos", "how many hours": the count word asks for that amount
                counted = amounts_said and re.search(rf"\b{phrase} ({amounts_said})\b", text)
                total = phrase in numeric_phrases or (name == "count" and counted)
                intent.measures.aggregate = "total" if total else name
                intent.measures.amount_asked = phrase if phrase in AMOUNT_ASKERS else ""
                return
    if alone := HOW_MUCH_ALONE.search(text):  # "e quanto isso rendeu": how much, no other word
        intent.measures.aggregate = "sum"
        intent.measures.amount_asked = alone.group(0)


COUNT_NAMES = set(words("count_nouns"))
"""Words of counting: a list's bare "quantidade" asks how many; a column called so is also
how people ask how many ("quantidade de tarefas")."""


INTERROGATIVES = word_set("interrogatives")
ORDERS = word_set("opening_orders")
"""Words that ask for rows when they open the question ("show me…"; "show up" is a verb)."""
ADVERBS = word_set("adverbs_before_verb")
"""Words between a subject and its verb ("o dono já aprovou")."""
AUXILIARIES = word_set("yes_no_auxiliaries")
"""Words an English yes/no question opens with."""


def state_of_a_yes_no(q: Question, intent: Intent) -> None:
    """ "Did the client already get task 12?", "o dono faltou à reunião 7?": a
    yes/no question about one row whose other table is the subject of a verb asks the row's
    state, not that table's row (the client's name). A table is a verb's subject when the
    word after it (past "já"/"already") is neither the catalog's table or column nor a
    function word, nor a participle right after it ("tarefa aberta"); no interrogative asks for
    anything else, nor is it a ranking ("a última tarefa aberta pro dono 7")."""
    tokens, matches = q.tokens, q.matches
    if intent.subject.entity is None or intent.ordering.recency or intent.ordering.top:
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
        others = tables - {intent.subject.entity[0]}
        if not others or intent.subject.entity[0] in tables:
            continue
        after = end
        while after < len(tokens) and tokens[after] in ADVERBS:
            after += 1
        if after >= len(tokens) or after in catalog_words or tokens[after] in FUNCTION_WORDS:
            continue
        verb = tokens[after]
        if verb.isdigit() or (after == end and verb.endswith(PARTICIPLES)):
            continue  # "tarefa aberta": the rows in a state, not a subject and its verb
        intent.subject.tables = [t for t in intent.subject.tables if t not in others]
        said = {(m.table, m.column) for m in meanings if m.kind == "column"}
        intent.subject.columns = [
            (t, c) for t, c in intent.subject.columns if t not in others and (t, c) not in said
        ]
        intent.asked.wants_status = True
