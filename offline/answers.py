"""The offline librarian, judge, chat reply and final answer writer.

Each reads the facts its stage hands over (`graph.hints.ModelHints`), never the prompt. The
final answer is composed only from the rows it is shown (never a computed or guessed
number): one value is stated, a few rows are listed, money and dates are formatted for
people, truncation and assumptions are said. A column is money or a measure only when the
stage's units say so (the catalog's column metadata), never from its name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime
from typing import Any

from orquestra.core.texts import language, plural, say
from orquestra.ddl_catalog.knowledge import Chunk
from orquestra.ddl_catalog.model import GlossaryTerm, currency_symbol, is_money, is_ratio
from orquestra.ddl_catalog.text import words
from orquestra.ddl_catalog.wording import Voice
from orquestra.graph.hints import GlossaryLine, ModelHints
from orquestra.offline.lang import LANGUAGES, alternation, word_set
from orquestra.offline.lang import words as concept_words

STOP = word_set("definition_question_fillers")
"""Words of a question about a term that say nothing of the term ("o que significa")."""
TEXTS = "offline_texts"
"""The concept of the offline model's sentences, keyed by what each says."""


def written(key: str, lang: str, otherwise: str = "en", **values: object) -> str:
    """The offline model's sentence `key` in `lang` (in `otherwise` when `lang` has none),
    filled with `values`.

    >>> written("rows_found", "pt", count=3), written("rows_found", "de", count=1)
    ('Encontrei 3 linhas', 'I found 1 row')
    """
    said = LANGUAGES[lang].mapping(TEXTS) if lang in LANGUAGES else {}
    text = said.get(key) or LANGUAGES[otherwise].mapping(TEXTS)[key]
    return plural(text, values).format(**values)


def librarian(
    glossary: Sequence[GlossaryLine],
    documents: Sequence[Chunk],
    question: str,
    lang: str,
    named: Sequence[GlossaryTerm] = (),
) -> dict[str, Any]:
    """The definition of the term asked about: `named` are the glossary terms the question
    names by any of their synonyms (the catalog's, longest phrase first); the glossary the
    librarian is shown (definitions in the turn's language) is matched by its synonyms;
    else the document passage sharing most words with the question."""
    lines = {line.term: line.definition for line in glossary}
    asked = " ".join(words(question))
    # "a diferença entre X e Y": both definitions, side by side; otherwise the term asked
    compared = named[:2] if len(named) > 1 and COMPARED.search(asked) else named[:1]
    if compared:
        said = []
        for term in compared:
            definition = lines.get(term.term) or (
                term.definition_en if lang == "en" and term.definition_en else term.definition
            )
            heading = _heading(term.term, _names_in(asked, [term.term, *term.synonyms]))
            said.append(f"{heading}: {definition}")
        return {"answer": "\n\n".join(said), "terms": [t.term for t in compared]}
    best = None
    for line in glossary:
        names = [line.term, *[s.strip() for s in line.synonyms if s.strip()]]
        hits = _names_in(asked, names)
        if hits and (best is None or len(hits[0]) > len(best[0][0])):
            best = (hits, line.term, line.definition)
    if best is not None:
        return {"answer": f"{_heading(best[1], best[0])}: {best[2]}", "terms": [best[1]]}
    chunk = _best_document(documents, asked)
    if chunk:
        return {"answer": chunk, "terms": []}
    return {"answer": written("term_not_found", lang, otherwise="pt"), "terms": []}


COMPARED = re.compile(rf"\b{alternation('comparing_words')}\b")
"""A question that sets two terms side by side."""


def _names_in(asked: str, names: list[str]) -> list[str]:
    """The names (a term and its synonyms) the question's words hold, longest first."""
    padded = f" {asked} "
    hits = [n for n in names if (said := " ".join(words(n))) and f" {said} " in padded]
    return sorted(hits, key=len, reverse=True)


def _heading(term: str, hits: list[str]) -> str:
    """The definition's heading: the term, led by the question's own name for it when that
    is a synonym ("Overtime (hora extra)"), so that a reader, and the judge, see the word
    they asked about."""
    if not hits or words(hits[0]) == words(term):
        return f"{term[0].upper()}{term[1:]}"
    return f"{hits[0][0].upper()}{hits[0][1:]} ({term})"


def _best_document(documents: Sequence[Chunk], asked: str) -> str | None:
    """The first sentences of the paragraph sharing most words with the question. The
    passages are laid out and read as the librarian's prompt shows them (each headed
    `[source] title`, a paragraph's first line taken for its heading), so the first passage
    is quoted with its heading line: kept as it was when this was read from the prompt."""
    text = "\n" + "\n\n".join(f"[{c.source}] {c.title}\n{c.text}" for c in documents)
    wanted = {w for w in asked.split() if w not in STOP and len(w) > 3}
    best, score = None, 0
    for block in text.split("\n\n"):
        found = len(wanted & set(words(block)))
        if found > score:
            best, score = block, found
    if best is None:
        return None
    sentences = re.split(r"(?<=[.!?])\s+", " ".join(best.splitlines()[1:]).strip())
    return " ".join(sentences[:3]) or None


NO_DATA = concept_words("no_data_openings")
"""How a data answer that found nothing opens, as written."""
NOT_FOUND = concept_words("not_found_openings")
"""How an explanation that found nothing opens, as written."""
MONTH_COLUMNS = word_set("month_column_names")
"""A result's month column, by any of its names ("mes")."""


def judge(question: str, answer: str, data_answer: bool = False) -> dict[str, Any]:
    """Whether `answer` addresses `question`: a data answer (the final one, written from
    the rows) when it says anything; a concept explanation when it names the question's
    words."""
    answer = answer.strip()
    if data_answer:
        # The offline writer composes data answers only from the rows of the question's own
        # query, so what is left to check is that there is an answer at all.
        found = bool(answer.strip()) and not answer.startswith(NO_DATA)
        return {"addresses_question": found, "feedback": "" if found else "state the result"}
    wanted = {w for w in words(question) if w not in STOP and len(w) > 2}
    echoed = wanted & set(words(answer))
    addresses = bool(echoed) and not answer.startswith(NOT_FOUND)
    feedback = "" if addresses else "answer the concept the question names"
    return {"addresses_question": addresses, "feedback": feedback}


def chat(lang: str, voice: Voice) -> str:
    """Who the assistant is and what it can do, in the deployment's words."""
    lang = language(lang)
    text = say(
        "offline.chat", lang, assistant=voice.profile.assistant_name, topics=voice.topics(lang)
    )
    examples = voice.quoted_examples(lang)
    return text + (say("offline.try", lang, examples=examples) if examples else "")


def answer(hints: ModelHints, lang: str) -> str:
    """The data answer from the rows, units, labels and analysis the stage hands over."""
    units = dict(hints.units)
    labels = hints.labels

    def _label(name: str) -> str:
        return labels.get(name) or _raw_label(name)

    shown = hints.rows
    rows = [dict(row) for row in shown.rows] if shown is not None else []
    parts = []
    if explained := hints.concept_explanation.strip():
        parts.append(explained)
    if assumed := hints.assumption.strip():
        parts.append(assumed)
    if hints.reviewed_example is not None:
        parts.append(say("answer.reviewed_example", lang))
    parts += _findings(hints.analysis, lang, _label)
    total = shown.row_count if shown is not None else None
    truncated = shown is not None and shown.truncated
    if len(rows) == 1 and rows[0] and all(v is None for v in rows[0].values()):
        # A sum or an average over no rows is null, not a figure to print as "—".
        what = ", ".join(_label(name).lower() for name in rows[0])
        parts.append(say("offline.none_matched", lang, what=what))
    elif len(rows) == 1 and len(rows[0]) == 1:
        name, value = next(iter(rows[0].items()))
        parts.append(f"{_label(name)}: {_format(name, value, lang, units)}.")
    elif len(rows) == 1:
        parts.append(
            "; ".join(f"{_label(k)}: {_format(k, v, lang, units)}" for k, v in rows[0].items())
            + "."
        )
    else:
        count = str(total if total is not None else len(rows))
        intro = written("rows_found", lang, count=count)
        parts.append(intro + (":" if rows else "."))
        for row in rows[:10]:
            parts.append("- " + " · ".join(_format(k, v, lang, units) for k, v in row.items()))
        if len(rows) > 10 or truncated:
            parts.append(written("first_rows_shown", lang))
    return "\n".join(parts)


def _findings(
    analysis: Mapping[str, Any] | None, lang: str, label: Callable[[str], str] = str
) -> list[str]:
    """One line each for the trend (or for each line of several, the largest movers first)
    and the leader, quoting the analysis' own numbers."""
    if not analysis:
        return []
    out = []
    trend = analysis.get("trend") or {}
    if trend:
        out += _trend_line(trend, lang, label)
    lines = [line for line in analysis.get("lines") or [] if line.get("periods", 0) > 1]
    if len(lines) > MOVERS:
        out.append(written("largest_movers", lang))
    for line in lines[:MOVERS]:
        out += _trend_line(line, lang, label, of=_format(line["by"], line["label"], lang))
    top = analysis.get("top") or {}
    leads = top.get("items") and top["items"][0].get("label") is not None  # not a blank group
    if leads and top["items"][0].get("share_pct") is not None:
        leader = top["items"][0]
        share = _format("pct", leader["share_pct"], lang)
        listed = top.get("listed") if top.get("share_of") == "listed" else None
        whole = (
            written("share_of_total", lang)
            if listed is None
            else written("share_of_listed", lang, listed=listed)
        )
        out.append(written("leader_share", lang, label=leader["label"], share=share, whole=whole))
    return out


MOVERS = 3
"""A series of more lines than this says how its largest movers changed, not every line."""


def _trend_line(
    trend: Mapping[str, Any], lang: str, label: Callable[[str], str], of: str | None = None
) -> list[str]:
    """How the last period of a series (of the line `of`, one of several) moved."""
    growth = trend.get("last_growth_pct")
    if growth is None or trend.get("periods", 0) < 2:
        return []
    last = _format(trend["time"], trend["last"]["period"], lang)
    measure = label(trend["measure"]).lower()
    if growth == 0:  # not "subiu 0%"
        key = "trend_same" if of is None else "trend_same_of"
        return [written(key, lang, last=last, measure=measure, label=of)]
    word = written("trend_rose" if growth >= 0 else "trend_fell", lang)
    size = _format("pct", abs(growth), lang)
    key = "trend_changed" if of is None else "trend_changed_of"
    return [written(key, lang, last=last, measure=measure, word=word, size=size, label=of)]


def _localised(text: str, lang: str) -> str:
    """`1,234.56` as the language writes it (`1.234,56` in Portuguese)."""
    return text.replace(",", "X").replace(".", ",").replace("X", ".") if lang == "pt" else text


def _raw_label(name: str) -> str:
    return name.replace("_", " ").capitalize()


def _format(name: str, value: Any, lang: str, units: dict[str, str] | None = None) -> str:
    if value is None:
        return "—"
    if isinstance(value, str) and re.match(r"^\d{4}-\d{2}-\d{2}", value):
        moment = datetime.fromisoformat(value) if len(value) > 10 else date.fromisoformat(value)
        english = lang == "en"  # as the table and chart write them ("Jun 2026")
        if name in MONTH_COLUMNS:
            return moment.strftime("%b %Y" if english else "%m/%Y")
        if isinstance(moment, datetime) and (moment.hour or moment.minute):
            return moment.strftime("%b %d, %Y %H:%M" if english else "%d/%m/%Y %H:%M")
        return moment.strftime("%b %d, %Y" if english else "%d/%m/%Y")
    if isinstance(value, int | float) or (
        isinstance(value, str) and re.fullmatch(r"-?\d+\.\d+", value)
    ):
        number = float(value)
        unit = (units or {}).get(name)
        if unit is not None and is_money(unit):
            return f"{currency_symbol(unit)} {_localised(f'{number:,.2f}', lang)}"
        if is_ratio(unit):  # a share from 0 to 1, said as a percentage
            return f"{_localised(f'{number * 100:,.1f}', lang)}%"
        if isinstance(value, int) or number.is_integer():
            text = str(int(number))
        else:
            text = _localised(f"{number:,.2f}", lang)
        return f"{text} {unit}" if unit else text
    return str(value)
