"""The values of the data a question names, and where they are: "Alfreds Futterkiste" is a
row of `customers.company_name`, "Tofu" of `products.product_name`, "JFK" of `airports.faa`.

The catalog cannot know such names: there are too many, and in a database many tenants
share, a name belongs to one of them and may never enter what every tenant shares
(`profiling`). So they are looked up when a question names them, in the asker's own rows:

1. `value_spans`: what the question writes that may be a row's value — a run of capitalised
   words, one capitalised word or code the catalog and the languages do not know, a quoted
   text; at most `MAX_SPANS`.
2. `searchable_columns`: where such a value may be — the text columns that are neither
   enumerated (the catalog matches those itself), free text, dates, amounts nor the tenant's
   key; at most `MAX_COLUMNS`, names first.
3. `lookup_sql`: one statement that reads, for each column, the shortest values containing
   a span (`PER_COLUMN`). It is SQL like any other: the guard scopes it to the asker's rows
   and the database's row-level security holds it there (`graph.data_values` runs it).
4. `found_values`: for each span, the columns holding it best — the value itself, then a
   value that starts with it ("Delta" → "Delta Air Lines Inc."), then one holding it as whole
   words. A span only found inside other words is not found. A span that is not a value
   itself and that several values hold ("Atlanta") names the table, not a row: it is not
   `certain`.

What is found serves that turn only (its sources and its SQL writer's prompt), never a
cache or anything another tenant sees.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from orquestra.ddl_catalog.model import Catalog, Column, Table, base_type, per_catalog
from orquestra.ddl_catalog.naming import (
    column_kind,
    is_free_text,
    language_of,
    said,
    vocabularies,
)
from orquestra.ddl_catalog.question_words import WORD_CHARACTERS, as_typed
from orquestra.ddl_catalog.selection_words import EVERYDAY, Vocabulary
from orquestra.ddl_catalog.text import fold, literal, quoted, stem, words

MAX_SPANS = 4
"""Texts of one question looked up at most."""
MAX_COLUMNS = 48
"""Columns one lookup reads at most (names first, then codes, then the other texts)."""
PER_COLUMN = 8
"""Values read per column, shortest first: the value itself, when there, is among them."""
SPAN_LETTERS = 2
"""Shortest span looked up ("SP", "AA")."""
MAX_OTHERS = 3
"""Other values holding a span kept, to show which rows it may mean."""
NAME_PARTS = 3
"""Words of a span at most that are also looked up one by one, for a name kept in two
columns of a row (first name, last name)."""
TEXT_TYPES = frozenset(
    {"text", "varchar", "character varying", "char", "character", "bpchar", "citext", "name"}
)
Level = Literal["exact", "starts", "words"]
LEVELS: dict[Level, int] = {"exact": 3, "starts": 2, "words": 1}
CAPITALISED = re.compile(r"^[A-ZÀ-Ý][\w'&.\-]*$")
QUOTED = re.compile(r"[\"“”«]([^\"“”«»]{2,60})[\"“”»]")


@dataclass(frozen=True)
class Span:
    """A text of the question that may be a row's value, and where it is (word positions of
    `text.words(question)`)."""

    at: tuple[int, ...]
    text: str


@dataclass(frozen=True)
class FoundValue:
    """A span of the question found in the data: where, and as what value."""

    said: str
    """As the question wrote it."""
    at: tuple[int, ...]
    table: str
    column: str
    value: str
    """As the data holds it (one of the asker's own rows)."""
    level: Level
    rest: tuple[tuple[str, str], ...] = ()
    """A name split over columns of one row ("Roberto Almeida": `first_name` holds the
    first word, `last_name` the rest): the other columns and their values."""
    others: tuple[str, ...] = ()
    """Other values of the column that hold the span as well, when it is not the value
    itself ("Atlanta": "Atlanta Regional Airport" and "Hartsfield Jackson Atlanta Intl"):
    which row is meant is then not known."""

    @property
    def certain(self) -> bool:
        """The row's value is known: the span itself, or the only value holding it."""
        return self.level == "exact" or not self.others

    @property
    def parts(self) -> tuple[tuple[str, str], ...]:
        """Every (column, value) the span is found as."""
        return ((self.column, self.value), *self.rest)

    def as_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            "said": self.said,
            "at": list(self.at),
            "table": self.table,
            "column": self.column,
            "value": self.value,
            "level": self.level,
        }
        if self.rest:
            found["rest"] = [list(part) for part in self.rest]
        if self.others:
            found["others"] = list(self.others)
        return found

    @classmethod
    def of(cls, found: dict[str, Any]) -> FoundValue:
        rest = tuple((str(c), str(v)) for c, v in found.get("rest", ()))
        return cls(
            found["said"],
            tuple(found["at"]),
            found["table"],
            found["column"],
            found["value"],
            found["level"],
            rest,
            tuple(found.get("others", ())),
        )


def value_spans(question: str, vocabulary: Vocabulary) -> list[Span]:
    """What `question` writes that may be a row's value: quoted texts, runs of capitalised
    words (with and without a first word that opens the sentence), and single capitalised
    words or codes; each with a word the catalog and the languages do not know.

    >>> from orquestra.ddl_catalog.selection_words import Vocabulary
    >>> [s.text for s in value_spans("Who placed order 10300 for Alfreds Futterkiste?",
    ...                              Vocabulary())]
    ['Alfreds Futterkiste']
    >>> [s.text for s in value_spans("Gorgonzola Telino é de qual categoria?", Vocabulary())]
    ['Gorgonzola Telino', 'Telino']
    """
    typed = as_typed(question)
    folded = words(question)
    if len(typed) != len(folded):
        return []
    spans: list[Span] = []

    def add(at: tuple[int, ...]) -> None:
        text = " ".join(typed[i] for i in at)
        new = text not in {s.text for s in spans}
        if new and len(text) >= SPAN_LETTERS and _may_be_value([folded[i] for i in at], vocabulary):
            spans.append(Span(at, text))

    for said_quoted in QUOTED.finditer(question):
        inside = words(said_quoted.group(1))
        start = _find(folded, inside)
        if start is not None:
            add(tuple(range(start, start + len(inside))))
    run: list[int] = []
    breaks = _punctuated(question)
    connectors = said("name_connectors")
    for at, word in enumerate([*typed, ""]):
        capital = _capitalised(word)
        if capital and not (run and breaks[run[-1]]):
            run.append(at)
            continue
        if (  # "Central de Compras": a name goes on through its small words (not the
            # question's first word alone, capitalised as every first word is)
            run
            and run != [0]
            and at + 1 < len(typed)
            and folded[at] in connectors
            and not breaks[run[-1]]
            and _capitalised(typed[at + 1])
        ):
            run.append(at)
            continue
        if len(run) > 1:
            add(tuple(run))
            if run[0] == 0:
                add(tuple(run[1:]))
        elif len(run) == 1 and (run[0] > 0 or _may_open_a_name(folded[0])):
            add(tuple(run))
        run = [at] if capital else []
    return spans[:MAX_SPANS]


def _capitalised(word: str) -> bool:
    return bool(CAPITALISED.match(word)) or (word.isupper() and len(word) >= SPAN_LETTERS)


def _may_open_a_name(word: str) -> bool:
    """A question's first word, capitalised as every first word is, may be a name alone
    ("Tofu é de qual categoria?") when long enough and no word of the languages' own."""
    return len(word) > 3 and word not in _language_words()


@cache
def _language_words() -> frozenset[str]:
    return frozenset().union(*(v.all_words() for v in vocabularies().values()))


def _punctuated(question: str) -> list[bool]:
    """For each word of `as_typed(question)`: whether punctuation follows it (a comma, a
    full stop), which ends a name ("Ana Lima, Beto Silva" are two)."""
    after: list[bool] = []
    inside = False
    for ch in question:
        folded = fold(ch)
        if folded and all(c in WORD_CHARACTERS for c in folded):
            inside = True
            continue
        if inside:
            after.append(False)
            inside = False
        if after and not ch.isspace() and ch not in "'&.-":
            after[-1] = True
    return [*after, False]


def _may_be_value(said_words: Sequence[str], vocabulary: Vocabulary) -> bool:
    """Words that may be a row's value: not a phrase of the catalog's own (a table, a column,
    a value it lists: "Delta" when it lists "Delta Air Lines"; a word of a listed value is no
    phrase by itself, "Honolulu" of "Pacific/Honolulu"), nor only the languages' everyday
    words, numbers and months."""
    key = tuple(vocabulary.word(stem(w)) for w in said_words)
    if vocabulary.phrases.get(key):
        return False
    return not all(w.isdigit() or w in EVERYDAY or w in said("time_words") for w in said_words)


def _find(folded: Sequence[str], inside: Sequence[str]) -> int | None:
    for start in range(len(folded) - len(inside) + 1):
        if inside and list(folded[start : start + len(inside)]) == list(inside):
            return start
    return None


def _searchable_columns(catalog: Catalog) -> list[tuple[Table, Column]]:
    """The text columns a named value may be in (`MAX_COLUMNS`, names first): not
    enumerated, not prose or contact details, not a date, amount or quantity stored as text,
    not the table's tenant key, not a key to another catalog table (that table's own column
    holds the same values, in fewer rows)."""
    lang = language_of([c.name for t in catalog.tables.values() for c in t.columns])
    ranked: list[tuple[int, Table, Column]] = []
    for table in catalog.tables.values():
        referring = {
            *(c for fk in table.foreign_keys if fk.to in catalog.tables for c in fk.columns),
            *(c for join in table.meta.joins if join.to in catalog.tables for c in join.on),
        }
        keys = referring | set(table.primary_key)
        for column in table.columns:
            if base_type(column.type_sql) not in TEXT_TYPES or column.meta.values:
                continue
            if column.name in referring:
                continue
            if column.name == table.tenant_column or is_free_text(column.name):
                continue
            kind = column.meta.kind or column_kind(
                column.name, column.type_sql, lang, key=column.name in keys
            )
            if kind in {"date", "amount", "quantity"}:
                continue
            rank = {"name": 0, "identifier": 1}.get(kind or "", 2)
            ranked.append((rank, table, column))
    ranked.sort(key=lambda item: item[0])  # stable: catalog order within a rank
    return [(table, column) for _, table, column in ranked[:MAX_COLUMNS]]


searchable_columns = per_catalog(_searchable_columns)
"""A catalog's searchable columns, found once."""


def lookup_sql(columns: Sequence[tuple[Table, Column]], spans: Sequence[Span]) -> str:
    """One statement: for each column (its position as `source`), the `PER_COLUMN` shortest
    distinct values that contain a span, case aside."""
    patterns = [literal("%" + _like_escaped(s.text) + "%") for s in spans]
    parts = []
    for source, (table, column) in enumerate(columns):
        name = quoted(column.name)
        wanted = " OR ".join(
            [
                *(f"{name} ILIKE {p}" for p in patterns),
                *(f"lower({name}) = lower({literal(w)})" for w in _name_parts(spans)),
            ]
        )
        parts.append(
            f"(SELECT {source} AS source, v FROM (SELECT DISTINCT {name}::text AS v "
            f"FROM {quoted(table.name)} WHERE {wanted}) AS found "
            f"ORDER BY length(v), v LIMIT {PER_COLUMN})"
        )
    return "\nUNION ALL\n".join(parts)


def _name_parts(spans: Sequence[Span]) -> list[str]:
    """The words of each span of a few words, each looked for as a whole value: a person's
    name is often kept in two columns (first name, last name)."""
    parts = [p for s in spans if 1 < len(s.text.split()) <= NAME_PARTS for p in s.text.split()]
    return list(dict.fromkeys(p for p in parts if len(p) >= SPAN_LETTERS))


def _like_escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def found_values(
    rows: Iterable[Sequence[Any]],
    columns: Sequence[tuple[Table, Column]],
    spans: Sequence[Span],
) -> list[FoundValue]:
    """For each span, the columns that hold it best (`LEVELS`), with the value each holds:
    the shortest at that level. A span inside a longer span found at least as well is
    dropped ("Telino" of "Gorgonzola Telino")."""
    best: dict[Span, dict[tuple[str, str], tuple[int, str]]] = {s: {} for s in spans}
    rows_by_place: dict[tuple[str, str], list[str]] = {}
    for source, value in rows:
        if value is None or not 0 <= int(source) < len(columns):
            continue
        table, column = columns[int(source)]
        rows_by_place.setdefault((table.name, column.name), []).append(str(value))
        for span in spans:
            level = _level(span.text, str(value))
            if level is None:
                continue
            place = (table.name, column.name)
            held = best[span].get(place)
            if held is None or (LEVELS[level], -len(value)) > (held[0], -len(held[1])):
                best[span][place] = (LEVELS[level], str(value))
    found: list[FoundValue] = []
    for span in spans:
        if not best[span]:
            found += _split_name(span, rows_by_place)
            continue
        top = max(level for level, _ in best[span].values())
        level_name = next(name for name, rank in LEVELS.items() if rank == top)
        for place, (rank, kept) in best[span].items():
            if rank != top:
                continue
            holding = [
                v
                for v in dict.fromkeys(rows_by_place[place])
                if v != kept and _level(span.text, v) is not None
            ]
            others = () if level_name == "exact" else tuple(holding[:MAX_OTHERS])
            table_name, column_name = place
            found.append(
                FoundValue(
                    span.text, span.at, table_name, column_name, kept, level_name, (), others
                )
            )
    return _without_inner(found)


def _split_name(span: Span, values: dict[tuple[str, str], list[str]]) -> list[FoundValue]:
    """A span of a few words found as a row's name kept in two columns of one table: its
    first words exactly a value of one column, the others of another ("Roberto Almeida":
    `first_name` "Roberto", `last_name` "Almeida"). Only the tables where one split is
    found, each once."""
    parts = span.text.split()
    if not 1 < len(parts) <= NAME_PARTS:
        return []
    found: list[FoundValue] = []
    for cut in range(1, len(parts)):
        head, tail = " ".join(parts[:cut]), " ".join(parts[cut:])
        for (table, first), held in values.items():
            first_value = next((v for v in held if _level(head, v) == "exact"), None)
            if first_value is None or any(f.table == table for f in found):
                continue
            for (other_table, second), other in values.items():
                second_value = next((v for v in other if _level(tail, v) == "exact"), None)
                if other_table == table and second != first and second_value is not None:
                    found.append(
                        FoundValue(
                            span.text,
                            span.at,
                            table,
                            first,
                            first_value,
                            "exact",
                            ((second, second_value),),
                        )
                    )
                    break
    return found


def _level(said_text: str, value: str) -> Level | None:
    said_words, value_words = words(said_text), words(value)
    if not said_words:
        return None
    if said_words == value_words:
        return "exact"
    if value_words[: len(said_words)] == said_words:
        return "starts"
    return "words" if _find(value_words, said_words) is not None else None


def _without_inner(found: list[FoundValue]) -> list[FoundValue]:
    """Found values less those of a span within a longer span found as well or better."""

    def covered(inner: FoundValue) -> bool:
        return any(
            set(inner.at) < set(outer.at) and LEVELS[outer.level] >= LEVELS[inner.level]
            for outer in found
        )

    return [f for f in found if not covered(f)]
