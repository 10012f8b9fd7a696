"""Which tables a question's words choose, and what spoke for each table.

The tables the question names come first (the best `MAX_NAMED_TABLES`); then each other
phrase a column answers brings the best table holding it, unless one chosen already does:
the best kind of hit (`KIND_RANK`), then the nearest by joins to the tables chosen, then the
best scored. The languages' words for sales, then for time and who, are taken last: they ask
for whatever the tables chosen for the others lack.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from orquestra.ddl_catalog.join_paths import JoinGraph
from orquestra.ddl_catalog.question_words import Match, QuestionWords

TABLE_HIT = 1.0
VALUE_HIT = 0.6
COLUMN_HIT = 0.25
MAX_NAMED_TABLES = 4


@dataclass(frozen=True)
class Reason:
    """What spoke for a table: the question's words that name it, its columns and values
    the question mentions, glossary terms that read it, how near its description is to the
    question (standard deviations above the catalog's mean), and for a table that only
    connects others, the join path that brought it."""

    chosen_for: str
    """`named`, `term`, `value`, `column`, `measure` (the question asks about sales and the
    table holds them), `date` (the question is placed in time and the table holds the
    date), `name` (the question writes a proper name or asks who, and the table holds
    names), `similar` or `join`."""
    words: tuple[str, ...] = ()
    columns: tuple[str, ...] = ()
    values: tuple[str, ...] = ()
    terms: tuple[str, ...] = ()
    similarity: float = 0.0
    path: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, object]:
        found: dict[str, object] = {"chosen_for": self.chosen_for}
        for key in ("words", "columns", "values", "terms", "path"):
            if getattr(self, key):
                found[key] = list(getattr(self, key))
        found["similarity"] = round(self.similarity, 2)
        return found


NAMING = frozenset({"named", "term"})
"""Hits that choose their table by themselves: its name, or a glossary term reading it."""
KIND_RANK = {"value": 3, "column": 2, "key": 2, "head": 1, "sale": 1, "time": 0, "party": 0}
"""Which hit wins when several tables hold a phrase: a value, a column's own name (or a key
column's), the head word of a measure column or a transaction's amounts, a date or a name."""
WHY = {"value": "value", "sale": "measure", "time": "date", "party": "name"}
"""What a table brought by a hit was chosen for (`Reason.chosen_for`); else `column`."""


def chosen_tables(
    found: QuestionWords, scores: dict[str, float], graph: JoinGraph
) -> dict[str, str]:
    """Table → what chose it: the tables named (the best `MAX_NAMED_TABLES`), then for each
    phrase no chosen table answers, the best table holding it: longest phrases first, the
    languages' words for sales and for time last (they ask for whatever the others chose
    lacks); the best holder is the best kind of hit, then the nearest by joins to the tables
    chosen, then the best scored."""
    named: dict[str, str] = {}
    for match in found.matches:
        for hit in match.hits:
            if hit.kind in NAMING and named.get(hit.table) != "named":
                named[hit.table] = hit.kind
    ranked = sorted(named, key=lambda n: (named[n] == "named", scores[n]), reverse=True)
    chosen = {name: named[name] for name in ranked[:MAX_NAMED_TABLES]}
    covered = {
        at
        for match in found.matches
        if any(h.kind in NAMING and h.table in chosen for h in match.hits)
        for at in match.at
    }
    for match in sorted(found.matches, key=_concept_last):
        holders = [h for h in match.hits if h.kind not in NAMING]
        if not holders or set(match.at) <= covered:
            continue
        covered |= set(match.at)
        answering = [h for h in holders if h.table in chosen]
        if not answering:
            distance = graph.distances(set(chosen)) if chosen else {}
            best = max(
                holders,
                key=lambda h: (KIND_RANK[h.kind], -distance.get(h.table, FAR), scores[h.table]),
            )
            chosen[best.table] = WHY.get(best.kind, "column")
            answering = [best]
        for hit in answering:  # a key the question names brings what it names
            for target in hit.refers_to:
                chosen.setdefault(target, "column")
    return chosen


def _concept_last(match: Match) -> int:
    """Where a match is taken: the catalog's own phrases (as found, longest first), then the
    words for sales, then those for time."""
    kinds = {hit.kind for hit in match.hits}
    return 2 if kinds <= {"time", "party"} else 1 if kinds <= {"sale", "time"} else 0


FAR = 1_000
"""The distance of a table no join reaches."""


@dataclass
class Evidence:
    """What the question's words say of one table, gathered from its matches: the words
    that name it, its columns and values mentioned, the glossary terms that read it."""

    words: list[str] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    values: list[str] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)

    def lexical(self) -> float:
        named = TABLE_HIT if self.words else 0.0
        return (
            named
            + TABLE_HIT * len(self.terms)
            + VALUE_HIT * len(self.values)
            + (COLUMN_HIT * len({c.split(" ")[0] for c in self.columns}))
        )

    def reason(self, why: str, similarity: float, path: tuple[str, ...]) -> Reason:
        return Reason(
            why,
            tuple(self.words),
            tuple(self.columns),
            tuple(self.values),
            tuple(self.terms),
            similarity,
            path,
        )


def evidence_of(found: QuestionWords) -> dict[str, Evidence]:
    said: dict[str, Evidence] = {}
    for match in found.matches:
        for hit in match.hits:
            entry = said.setdefault(hit.table, Evidence())
            if hit.kind == "named":
                _add(entry.words, match.said)
            elif hit.kind == "term":
                _add(entry.terms, hit.label)
            elif hit.kind == "value":
                _add(entry.values, f"{hit.label} ({match.said})")
            else:
                _add(entry.columns, f"{hit.label} ({match.said})")
    return said


def _add(items: list[str], item: str) -> None:
    if item not in items:
        items.append(item)
