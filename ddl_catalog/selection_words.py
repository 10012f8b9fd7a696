"""The catalog's words as source selection matches them, indexed once per catalog.

Every phrase the catalog offers — a table's name and synonyms, a column's name (its short
forms spelled out), synonyms and enumerated values, a key column's name without its key
word ("customer" of `customer_id`), the head word of an amount or quantity column ("price"
of `unit_price`), a glossary term — is folded to a key (`phrase_key`, then each word as its
plural would stem, so "category" meets "categories"). The languages' words for sales, time
and who (`ddl_catalog/lang/*.yaml`) stand for the columns that answer them: the amounts of
the table the catalog calls sales (else of the transactions no other table points to), the
date columns, the name columns. A question is matched by looking each of its runs of words
up in that index (`question_words`).

>>> vocabulary = Vocabulary()
>>> vocabulary.add("Unit_Prices", Hit("order_lines", "column", "order_lines.unit_price"))
>>> vocabulary.key("unit price"), [h.table for h in vocabulary.phrases[("unit", "price")]]
(('unit', 'price'), ['order_lines'])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from orquestra.ddl_catalog.language import ENGLISH, PORTUGUESE
from orquestra.ddl_catalog.model import Catalog, Column, GlossaryTerm, Table, per_catalog
from orquestra.ddl_catalog.naming import column_kind, language_of, name_words, said, vocabularies
from orquestra.ddl_catalog.text import CODE_PREFIXES, CODE_SUFFIXES, fold, phrase_key, words

Phrase = tuple[str, ...]
"""A phrase as matched: folded words, each as its plural stems."""
HitKind = Literal["named", "term", "value", "column", "key", "head", "sale", "time", "party"]
TypedAs = Literal["", "upper", "title"]
"""How a question must type a phrase for it to match: anyhow, in capitals, capitalised."""
MEASURES = frozenset({"amount", "quantity"})
"""Column kinds whose head word ("price", "quantity") a question asks for on its own."""
CONCEPTS = frozenset({"sale", "time", "party"})
"""Hits of the languages' own words for a kind of column, not of the catalog's phrases."""
SHORT = 2
"""A value this short ("SP", "NO") is matched only as typed in capitals: in lower case it is
a word of the language more often than a code. A value of several words is matched by its
first word alone too, as typed with a capital ("Delta" for "Delta Air Lines Inc."), when no
other value of its column starts with it."""
EVERYDAY = frozenset(fold(w) for w in PORTUGUESE | ENGLISH)
"""The languages' small and everyday words: never compared by meaning with the catalog's."""
FOREIGN_LETTERS = 4
"""Shortest word compared by meaning with the catalog's words."""


@dataclass(frozen=True)
class Hit:
    """A catalog phrase and what it stands for: a table's name, a column, a value, a term."""

    table: str
    kind: HitKind
    label: str
    """What it names, for people: the synonym, `column`, `column = VALUE`, the term."""
    refers_to: tuple[str, ...] = ()
    """For a key column: the tables its joins lead to (the thing it names)."""
    typed_as: TypedAs = ""
    """How the question must type it to match: in capitals (a short code), with a capital
    first letter (a proper name's first word), or anyhow."""


@dataclass
class Vocabulary:
    """Every phrase of a catalog, indexed by its key."""

    phrases: dict[Phrase, list[Hit]] = field(default_factory=dict)
    terms: dict[Phrase, list[GlossaryTerm]] = field(default_factory=dict)
    plurals: tuple[tuple[str, str], ...] = ()
    longest: int = 0
    concepts: dict[str, list[Hit]] = field(default_factory=dict)
    """What a concept's word stands for (`sale`, `time`): one column of each table."""
    known: set[str] = field(default_factory=set)
    """Every word of every phrase (a question's word among them is the catalog's own)."""
    spelled: dict[Phrase, str] = field(default_factory=dict)
    """Each key as the catalog first wrote it (what its meaning is compared from)."""

    @classmethod
    def of(cls, catalog: Catalog) -> Vocabulary:
        plurals = tuple(
            (one, many)
            for language in vocabularies().values()
            for one, many in language.maps.get("plural_stems", {}).items()
        )
        vocabulary = cls(plurals=plurals)
        lang = language_of([c.name for t in catalog.tables.values() for c in t.columns])
        joins = _key_targets(catalog)
        parents = {target for targets in joins.values() for target in targets}
        parents |= {j.to for t in catalog.tables.values() for j in t.meta.joins if j.to != t.name}
        facts = []
        for table in catalog.tables.values():
            for phrase in [*_name_phrases(table.name), *table.meta.synonyms.all()]:
                vocabulary.add(phrase, Hit(table.name, "named", phrase))
            for column in table.columns:
                vocabulary.add_column(table, column, lang, joins.get((table.name, column.name), ()))
                kind = column.meta.kind or column_kind(column.name, column.type_sql, lang)
                label = f"{table.name}.{column.name}"
                if kind == "date":
                    vocabulary.add_concept(said("time_words"), Hit(table.name, "time", label))
                elif kind == "name":
                    vocabulary.add_concept(said("who_words"), Hit(table.name, "party", label))
                elif kind in MEASURES and table.name not in parents:
                    facts.append(Hit(table.name, "sale", label))
        for hit in vocabulary.called_sales() or facts:
            vocabulary.add_concept(said("sale_words"), hit)
        for term in (*catalog.glossary, *catalog.drafts):
            read = {*term.tables[:1], *([term.metric.table] if term.metric else [])}
            for phrase in [term.term, *term.synonyms]:
                if not term.draft:
                    vocabulary.terms.setdefault(vocabulary.key(phrase), []).append(term)
                for name in sorted(read & set(catalog.tables)):
                    vocabulary.add(phrase, Hit(name, "term", term.term))
        return vocabulary

    def called_sales(self) -> list[Hit]:
        """The tables the catalog calls by a word for sales (a synonym "sales"): what the
        languages' words for sales stand for there, rather than the transactions' amounts."""
        named = [
            hit
            for word in sorted(said("sale_words"))
            for hit in self.phrases.get(self.key(word), ())
            if hit.kind == "named"
        ]
        tables = dict.fromkeys(hit.table for hit in named)
        return [Hit(table, "sale", f"{table} (sales)") for table in tables]

    def add_column(self, table: Table, column: Column, lang: str, targets: tuple[str, ...]) -> None:
        label = f"{table.name}.{column.name}"
        for phrase in _name_phrases(column.name):
            if len(phrase) > SHORT:
                self.add(phrase, Hit(table.name, "column", label))
        for phrase in column.meta.synonyms.all():
            if len(phrase) > 3:  # "NF", "UF": initials that are ordinary words elsewhere
                self.add(phrase, Hit(table.name, "column", label))
        named = _without_key_word(column.name)
        if named and (targets or " " in named):  # "postal" of postal_code names nothing
            self.add(named, Hit(table.name, "key", label, targets))
        kind = column.meta.kind or column_kind(column.name, column.type_sql, lang)
        parts = name_words(column.name, lang).split()
        if kind in MEASURES and len(parts) > 1:
            self.add(parts[-1], Hit(table.name, "head", label))
        firsts = [words(v)[:1] for v in column.meta.values if len(words(v)) > 1]
        for value in column.meta.values:
            for phrase in [value, *column.meta.value_synonyms.get(value, [])]:
                key = self.key(phrase)
                if key and not all(w.isdigit() for w in key):  # numbers are ids and years
                    typed: TypedAs = "upper" if len("".join(key)) <= SHORT else ""
                    self.add(phrase, Hit(table.name, "value", f"{label} = {value}", (), typed))
            first = words(value)[:1]
            if len(words(value)) > 1 and firsts.count(first) == 1 and _proper(first[0]):
                # "Delta" for "Delta Air Lines Inc.", said with its capital
                self.add(first[0], Hit(table.name, "value", f"{label} = {value}", (), "title"))

    def meanings(self) -> list[str]:
        """The catalog's phrases a question's unknown word may mean, as the catalog writes
        them: names, synonyms, head words, values and terms (a concept's words are the
        language's own, and a value of a few letters is a code, not a word)."""
        return [
            self.spelled[key]
            for key, hits in self.phrases.items()
            if any(h.kind not in CONCEPTS and not h.typed_as for h in hits)
            and len("".join(key)) > 3
        ]

    def add_concept(self, said: frozenset[str], hit: Hit) -> None:
        """`hit` for each of a concept's words, once per table (its first column found)."""
        for word in sorted(said):
            key = self.key(word)
            if not any(
                h.table == hit.table and h.kind == hit.kind for h in self.phrases.get(key, ())
            ):
                self.add(word, hit)
        found = self.concepts.setdefault(hit.kind, [])
        if not any(h.table == hit.table for h in found):
            found.append(hit)

    def add(self, phrase: str, hit: Hit) -> None:
        key = self.key(phrase)
        if key:
            self.spelled.setdefault(key, phrase)
            self.known.update(key)
            found = self.phrases.setdefault(key, [])
            if hit not in found:
                found.append(hit)
            self.longest = max(self.longest, len(key))

    def key(self, phrase: str) -> Phrase:
        return tuple(self.word(w) for w in phrase_key(phrase))

    def word(self, stemmed: str) -> str:
        """A stemmed word as its plural stems ("category" → "categorie", "item" → "iten"),
        so a singular meets its plural whatever the language's plural changes."""
        for one, many in self.plurals:
            if len(stemmed) > 3 and stemmed.endswith(one):
                return stemmed[: -len(one)] + many
        return stemmed


vocabulary_of = per_catalog(Vocabulary.of)
"""A catalog's vocabulary, built once."""


def _proper(word: str) -> bool:
    """A first word a value may be called by alone: long enough, and no everyday word."""
    return len(word) >= FOREIGN_LETTERS and word not in EVERYDAY and not word.isdigit()


def _name_phrases(name: str) -> list[str]:
    """A name's words as each language spells out its short forms ("qty_sold" → "quantity
    sold"), the snake_case reading first."""
    return list(
        dict.fromkeys([name.replace("_", " "), *(name_words(name, c) for c in vocabularies())])
    )


def _without_key_word(name: str) -> str:
    """A key column's name without the word that says "key" ("customer_id" → "customer",
    "cod_cliente" → "cliente"); empty for any other name."""
    lowered = name.lower()
    for prefix in CODE_PREFIXES:
        if lowered.startswith(prefix):
            return lowered.removeprefix(prefix).replace("_", " ")
    for suffix in CODE_SUFFIXES:
        if lowered.endswith(suffix):
            return lowered.removesuffix(suffix).replace("_", " ")
    return ""


def _key_targets(catalog: Catalog) -> dict[tuple[str, str], tuple[str, ...]]:
    """(table, column) → the tables that column's one-column joins lead to."""
    targets: dict[tuple[str, str], list[str]] = {}
    for table in catalog.tables.values():
        pairs = [(tuple(j.on), j.to) for j in table.meta.joins]
        pairs += [(k.columns, k.to) for k in table.foreign_keys]
        for columns, target in pairs:
            if len(columns) == 1 and target != table.name and target in catalog.tables:
                targets.setdefault((table.name, columns[0]), []).append(target)
    return {key: tuple(dict.fromkeys(found)) for key, found in targets.items()}
