"""The offline model's vocabulary, built from the catalog's metadata alone.

Every table name and synonym, column name and synonym, enumerated value and glossary term
becomes a phrase pointing at what it means. Nothing here names the demo's tables: a new
system added to the catalog with the same kind of metadata is understood the same way.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from pglast import ast, parse_sql
from pglast.parser import ParseError

from orquestra.ddl_catalog.data_values import FoundValue
from orquestra.ddl_catalog.model import (
    Catalog,
    Column,
    GlossaryTerm,
    Table,
    is_money,
    is_ratio,
    per_catalog,
)
from orquestra.ddl_catalog.text import fold, is_code_name, phrase_key, stem, words
from orquestra.offline.lang import LANGUAGES, mapping, morphology, word_set
from orquestra.offline.lang import words as words_of

# The word forms, from each language's `morphology.yaml` (readings import them from here)
FINITE_PAST = morphology.FINITE_PAST
IRREGULAR = morphology.IRREGULAR
NOUN_ENDINGS = morphology.NOUN_ENDINGS
PARTICIPLE_ENDINGS = morphology.PARTICIPLE_ENDINGS
PARTICIPLES = morphology.PARTICIPLES
PAST_ENDINGS = morphology.PAST_ENDINGS
PLURAL_STEMS = morphology.PLURAL_STEMS
PRETERITE_PLURALS = morphology.PRETERITE_PLURALS
ROOT_LENGTH = morphology.ROOT_LENGTH
SHORT_ROOT = morphology.SHORT_ROOT
VERB_ENDINGS = morphology.VERB_ENDINGS
_plural_stem = morphology._plural_stem
genderless = morphology.genderless
is_participle = morphology.is_participle
noun_roots = morphology.noun_roots
other_gender = morphology.other_gender
past_of_many = morphology.past_of_many
shares_root = morphology.shares_root
short_verb_roots = morphology.short_verb_roots
verb_roots = morphology.verb_roots

DATE_TYPES = ("date", "timestamp", "timestamptz", "timestamp with time zone")
NUMERIC_TYPES = ("numeric", "integer", "bigint", "smallint", "real", "double", "float")
FUNCTION_WORDS: set[str] = set(words_of("function_words"))
"""Words of the languages themselves, never taken for an enumerated value spelled the same."""
NEGATIONS: tuple[str, ...] = words_of("negation")
"""Words that say something did not happen or is left out. (Not "no": in Portuguese it is
"in the", as in "no mês passado".)"""
EVENT_VERBS: dict[str, str] = dict(mapping("event_verbs"))
"""Everyday verbs for the event a date records in its own words: "que dia foi feito" asks
when it was performed ("realizado em"), "when did it leave" / "quando sai" its departure,
"quando chegou" its arrival, "vencem"/"falling due" its due date."""
DISPLAY_NAMES: tuple[str, ...] = tuple(
    dict.fromkeys(
        w
        for concept in (
            "name_columns",
            "legal_name_columns",
            "description_columns",
            "title_columns",
        )
        for w in words_of(concept)
    )
)
"""Column names that name a row for people, the likeliest first (a name, a company's legal
name, a description, a title)."""


WAITING: dict[str, tuple[str, ...]] = {
    opener: language.words("waiting_state_rephrasings")
    for language in LANGUAGES.values()
    for opener in language.words("waiting_state_openers")
}
"""The languages' other ways to say a state of waiting for something ("aguardando
assinatura": "esperando a assinatura", "waiting for a signature")."""


INFINITIVE_MARKERS = word_set("infinitive_markers")
"""Words before an infinitive ("a vencer", "to expire"): what is still to happen."""


def _said_of_many(phrase: str) -> list[str]:
    """A state's phrase with a verb in the past said of many rows: "não apareceu" is also
    "não apareceram" (one word alone is matched by its root already)."""
    said = words(phrase)
    if len(said) < 2:
        return []
    plural = [past_of_many(w) if len(w) > 4 else w for w in said]
    return [" ".join(plural)] if plural != said else []


def _waiting_said_otherwise(phrase: str) -> list[str]:
    first, _, rest = fold(phrase).partition(" ")
    if first not in WAITING or not rest:
        return []
    return [f"{other} {rest}" for other in WAITING[first]]


def _is_table(meaning: Meaning, table: str) -> bool:
    return meaning.kind == "table" and meaning.table == table


@dataclass(frozen=True)
class Meaning:
    """What a phrase refers to: a table, a column, an enumerated value or a metric term."""

    kind: str
    """`table`, `column`, `value` or `metric`."""
    table: str
    column: str = ""
    value: str = ""
    term: GlossaryTerm | None = field(default=None, compare=False, hash=False)


class Lexicon:
    """Phrases (as stemmed word tuples) → meanings, longest first when matching."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.phrases: dict[tuple[str, ...], list[Meaning]] = {}
        self.value_roots: dict[str, list[Meaning]] = {}
        """Verb roots of one-word states ("conclu" of CONCLUIDO): "concluímos" means it."""
        self.value_short_roots: dict[str, list[Meaning]] = {}
        """Four-letter roots of states said as verbs ("falt" of "faltou")."""
        self.short_states: dict[str, Meaning] = {}
        """A state's word that a glossary term says beside its table's name ("travada" of
        "tarefa travada"), by its root without gender: that state, of that table's rows."""
        self.terms: dict[tuple[str, ...], GlossaryTerm] = {}
        """Every glossary term's phrases (concepts, matched without consuming words)."""
        self.searched: frozenset[str] = frozenset()
        """The question's names looked up in the asker's rows and found in none (folded): no
        row has such a name (`with_values`)."""
        self.split_names: dict[str, FoundValue] = {}
        """A name found kept in two columns of a row ("Margaret Peacock": first and last
        name), by its folded text."""
        for table in catalog.tables.values():
            self._add_table(table)
        self._add_units(catalog)
        for term in catalog.glossary:
            for phrase in [term.term, *term.synonyms]:
                self.terms.setdefault(phrase_key(phrase), term)
                if term.metric:
                    self._add(phrase, Meaning("metric", term.metric.table, term=term))
        for term in catalog.glossary:
            self._add_states_named(term)
        self._add_other_genders()
        self.longest = max(len(k) for k in [*self.phrases, *self.terms])
        self.metric_phrases = [
            (phrase, m.term)
            for phrase, meanings in self.phrases.items()
            for m in meanings
            if m.kind == "metric" and m.term is not None
        ]
        """Every metric's phrases, in the catalog's order (looked up, not scanned per word)."""
        self.metric_words = [
            (term, [phrase_key(p) for p in [term.term, *term.synonyms] if phrase_key(p)])
            for term in catalog.glossary
            if term.metric is not None
        ]
        """Each metric's phrases, as stemmed words ("gasto com frete"): a verb may name them."""
        self.vocabulary = {w for k in [*self.phrases, *self.terms] for w in k} | {
            part
            for name in catalog.tables.values()
            for c in name.columns
            for part in c.name.split("_")
        }
        """Every (stemmed) word of the catalog's phrases and column names: a word outside it
        is unknown to the catalog."""

    def reading(self, said_as: Sequence[tuple[str, str]]) -> Lexicon:
        """This lexicon with each word of `said_as` read as its catalog phrase (a word of
        another language read by meaning: "pedidos" as "orders"), the phrase's meanings
        then the word's; itself when none of the phrases is one of its own."""
        extra: dict[tuple[str, ...], list[Meaning]] = {}
        for word, phrase in said_as:
            key = phrase_key(fold(word))
            found = self.match(words(phrase))
            if len(key) == 1 and len(found) == 1 and found[0][:2] == (0, len(words(phrase))):
                extra[key] = found[0][2]
        if not extra:
            return self
        read = copy.copy(self)
        read.phrases = {**self.phrases, **extra}
        read.vocabulary = self.vocabulary | {w for key in extra for w in key}
        return read

    def with_values(self, found: Sequence[FoundValue], searched: Sequence[str] = ()) -> Lexicon:
        """This lexicon with each name the question writes that was found in the data
        (`graph.data_values`) read as that column's value, like a value the catalog lists
        ("Tofu" as `products.product_name` = 'Tofu'), before any other reading of its words
        — when it is `certain` (several rows' names holding it name no row); a name kept in
        two columns of a row in `split_names`; and the texts `searched`."""
        if not found and not searched:
            return self
        read = copy.copy(self)
        read.searched = frozenset(fold(s) for s in searched) - {fold(f.said) for f in found}
        read.split_names = {fold(f.said): f for f in found if f.rest and f.certain}
        whole = [f for f in found if not f.rest and f.certain and phrase_key(f.said)]
        if not whole:
            return read
        read.phrases = dict(self.phrases)
        added: dict[tuple[str, ...], list[Meaning]] = {}
        for value in whole:
            meaning = Meaning("value", value.table, value.column, value.value)
            added.setdefault(phrase_key(value.said), []).append(meaning)
        for key, meanings in added.items():
            others = [m for m in self.phrases.get(key, []) if m not in meanings]
            read.phrases[key] = [*meanings, *others]
        read.longest = max(self.longest, *(len(key) for key in added))
        read.vocabulary = self.vocabulary | {w for key in added for w in key}
        return read

    def not_in_data(self, name: str | None) -> bool:
        """`name` was looked up in the asker's rows and no row's name holds it."""
        return bool(name) and fold(name or "") in self.searched

    def terms_in(self, tokens: Sequence[str]) -> list[GlossaryTerm]:
        """Glossary terms mentioned anywhere in `tokens`; first, a term whose name's words
        are all said apart, when it has more of them than the longest said together ("uma
        tarefa ser reaberta" is tarefa reaberta, not tarefa; "which tasks are classed as
        urgent" is urgent task)."""
        stems = [stem(t) for t in tokens]
        found: list[GlossaryTerm] = []
        longest = 0
        for size in range(self.longest, 0, -1):
            for start in range(len(stems) - size + 1):
                phrase = tuple(stems[start : start + size])
                term = self.terms.get(phrase)
                if term is not None and term not in found:
                    longest = max(longest, len(_content(phrase)))
                    found.append(term)
        said = set(stems)
        apart = [
            (len(content), term)
            for phrase, term in self.terms.items()
            if len(content := _content(phrase)) > max(longest, 1) and said.issuperset(content)
        ]
        first: list[GlossaryTerm] = []
        for _size, term in sorted(apart, key=lambda pair: -pair[0]):
            if term not in first:
                first.append(term)
        return [*first, *(t for t in found if t not in first)]

    def metrics_in(
        self, tokens: Sequence[str], matches: Sequence[tuple[int, int, list[Meaning]]] = ()
    ) -> list[GlossaryTerm]:
        """Metric terms mentioned anywhere, longest phrase first; not one said only inside a
        longer phrase of `matches` that means something else ("sales" in "sales channel")."""
        stems = [stem(t) for t in tokens]
        said: dict[tuple[str, ...], list[int]] = {}
        for size in range(1, self.longest + 1):
            for i in range(len(stems) - size + 1):
                said.setdefault(tuple(stems[i : i + size]), []).append(i)
        found = [
            (len(phrase), term)
            for phrase, term in self.metric_phrases
            if any(not _inside(i, len(phrase), term, matches) for i in said.get(phrase, []))
        ]
        return [term for _, term in sorted(found, key=lambda pair: -pair[0])]

    def tables_ending_at(self, tokens: Sequence[str], end: int) -> list[str]:
        """Tables named by a phrase that ends just before position `end` (longest first)."""
        stems = [stem(t) for t in tokens]
        for size in range(min(self.longest, end), 0, -1):
            tables = [
                m.table
                for m in self.phrases.get(tuple(stems[end - size : end]), [])
                if m.kind == "table"
            ]
            if tables:
                return tables
        return []

    def _add_states_named(self, term: GlossaryTerm) -> None:
        """A term with no metric whose name is one of its tables with one of that table's
        states ("tarefa bloqueada"): each of its other names ("tarefa travada", "on hold")
        means that state too (and the table, when it names it). Phrases the catalog already
        gives a meaning keep theirs; a name that negates something is left alone."""
        if term.metric is not None:
            return
        name = set(phrase_key(term.term))
        for table in term.tables:
            if table not in self.catalog.tables:
                continue
            named = [k for k, ms in self.phrases.items() if any(_is_table(m, table) for m in ms)]
            if not any(set(k) <= name for k in named):
                continue
            states = [
                m
                for k, ms in self.phrases.items()
                if len(k) == 1 and k[0] in name
                for m in ms
                if m.kind == "value" and m.table == table
            ]
            if len(states) != 1:
                continue
            for synonym in term.synonyms:
                key = phrase_key(synonym)
                if not key or key in self.phrases or set(key) & {stem(w) for w in NEGATIONS}:
                    continue
                table_words = [k for k in named if set(k) <= set(key)]
                if table_words:
                    self._add(synonym, Meaning("table", table))
                    # "a tarefa 7 está travada": the state's own word, the table named apart
                    # (read only of that table's rows: `readings._short_states`)
                    rest = [w for w in key if not any(w in k for k in table_words)]
                    if (
                        len(rest) == 1
                        and len(rest[0]) >= ROOT_LENGTH
                        and (*rest,) not in self.phrases
                    ):
                        self.short_states.setdefault(genderless(rest[0]), states[0])
                self._add(synonym, states[0])
            return

    def _add_other_genders(self) -> None:
        """ "só as rodoviárias" of RODOVIARIO: a one-word state's own name said in the other
        gender (of another noun, "as transportadoras rodoviárias") means it, when that word
        means nothing else in the catalog."""
        others: dict[tuple[str, ...], list[Meaning]] = {}
        for key, meanings in self.phrases.items():
            # the state's own name only: a synonym's gender says which rows it is said of
            values = [m for m in meanings if m.kind == "value" and phrase_key(m.value) == key]
            said = other_gender(key[0]) if len(key) == 1 and values else None
            if said is None or len(key[0]) < 5:
                continue
            if is_participle(key[0]):
                continue  # a participle's gender says which rows it is said of ("abertas")
            other = (said,)
            if other not in self.phrases:
                others.setdefault(other, []).extend(values)
        for key, meanings in others.items():
            self.phrases[key] = list(dict.fromkeys(meanings))

    def _add(self, phrase: str, meaning: Meaning) -> None:
        words_key = phrase_key(phrase)
        # Plurals the stemmer leaves apart from their singular: English "-ies" ("categories"
        # stems to "categorie"), Portuguese "-ais", "-éis", "-ns" ("modais", "itens").
        plural = tuple(_plural_stem(w) for w in words_key)
        for key in dict.fromkeys((words_key, plural)):
            if key and meaning not in self.phrases.setdefault(key, []):
                self.phrases[key].append(meaning)

    def _add_units(self, catalog: Catalog) -> None:
        """ "quantos kg": a measure's unit names it (every measure in that unit, as a word many
        tables' columns answer to), where no other phrase is spelled so; not money, whose
        code names every amount."""
        units: dict[tuple[str, ...], list[Meaning]] = {}
        for table in catalog.tables.values():
            for column in table.columns:
                unit = column.meta.unit
                if unit and not is_money(unit) and not is_ratio(unit):
                    units.setdefault(phrase_key(unit), []).append(
                        Meaning("column", table.name, column.name)
                    )
        for key, meanings in units.items():
            if key and key not in self.phrases:
                self.phrases[key] = meanings

    def _add_table(self, table: Table) -> None:
        for phrase in [table.name, *table.meta.synonyms.all()]:
            self._add(phrase, Meaning("table", table.name))
        for column in table.columns:
            if column.name == table.tenant_column:
                continue
            for phrase in [column.name, *column.meta.synonyms.all()]:
                self._add(phrase, Meaning("column", table.name, column.name))
            for value in column.meta.values:
                # A code that spells a function word ("DO", "E") is found through its
                # synonyms only: "do" in a question is a preposition, not the code.
                spelled = [] if fold(value) in FUNCTION_WORDS else [value]
                for phrase in [*spelled, *column.meta.value_synonyms.get(value, [])]:
                    self._add(phrase, Meaning("value", table.name, column.name, value))
                    for said in _waiting_said_otherwise(phrase):  # "esperando a assinatura"
                        self._add(said, Meaning("value", table.name, column.name, value))
                    for said in _said_of_many(phrase):  # "não apareceram" of "não apareceu"
                        self._add(said, Meaning("value", table.name, column.name, value))
                    key = phrase_key(phrase)
                    for root in verb_roots(key[0]) if len(key) == 1 else []:
                        meanings = self.value_roots.setdefault(root, [])
                        meanings.append(Meaning("value", table.name, column.name, value))
                    for root in short_verb_roots(key[0]) if len(key) == 1 else []:
                        meanings = self.value_short_roots.setdefault(root, [])
                        meanings.append(Meaning("value", table.name, column.name, value))

    def match(self, tokens: Sequence[str]) -> list[tuple[int, int, list[Meaning]]]:
        """Greedy longest matches as (start, end, meanings) over stemmed `tokens`."""
        stems = [stem(t) for t in tokens]
        found, position = [], 0
        while position < len(stems):
            for size in range(min(self.longest, len(stems) - position), 0, -1):
                meanings = self.phrases.get(tuple(stems[position : position + size]))
                if meanings:
                    found.append((position, position + size, meanings))
                    position += size
                    break
            else:
                said = tokens[position]
                # "realizamos", and the bare verb ("did we perform") when long enough
                forms = [*verb_roots(said), *([said] if len(said) >= ROOT_LENGTH else [])]
                forms += noun_roots(said)  # "cancellations", "agendamentos": the act's state
                verbs = [m for r in forms for m in self.value_roots.get(r, [])]
                # "faltaram", "faltando": a verb whose short root is a value's verb's ("faltou")
                still = position and tokens[position - 1] in INFINITIVE_MARKERS
                verbs = verbs or [
                    m
                    for r in ([] if still else short_verb_roots(said))
                    for m in self.value_short_roots.get(r, [])
                ]
                if verbs:  # "quantas tarefas concluímos": the tasks in state CONCLUIDA
                    found.append((position, position + 1, list(dict.fromkeys(verbs))))
                position += 1
        return found


def _inside(
    start: int, size: int, term: GlossaryTerm, matches: Sequence[tuple[int, int, list[Meaning]]]
) -> bool:
    """Words `start`…`start + size` lie inside a longer match that is not this metric."""
    return any(
        first <= start
        and start + size <= end
        and end - first > size
        and not any(m.term is term for m in meanings)
        for first, end, meanings in matches
    )


def key_column(table: Table, catalog: Catalog | None = None) -> Column | None:
    """The column a person means by "<table> 123": the number unique within the tenant when
    the catalog declares one (`UNIQUE (tenant, number)` beside a surrogate key), else the
    numeric, non-tenant primary key column."""
    natural = natural_keys(catalog).get(table.name) if catalog is not None else None
    if natural is not None:
        return table.column(natural)
    candidates = [table.column(c) for c in table.primary_key if c != table.tenant_column]
    numeric = [c for c in candidates if any(t in c.type_sql for t in ("int", "numeric"))]
    named = [c for c in numeric if is_code_name(c.name)]
    return named[-1] if named else numeric[-1] if numeric else None


@per_catalog
def natural_keys(catalog: Catalog) -> dict[str, str]:
    """Table → the numeric column a unique index pairs with the tenant column: the number
    people use when the primary key is an internal one. Read once per catalog object."""
    found: dict[str, str] = {}
    for system in catalog.systems:
        for source in system.index_ddl:
            try:
                statements = parse_sql(source)
            except ParseError:
                continue
            for raw in statements:
                index = raw.stmt
                if not isinstance(index, ast.IndexStmt) or not index.unique:
                    continue
                relation = index.relation
                table = catalog.tables.get(relation.relname or "") if relation else None
                columns = [p.name for p in index.indexParams or () if p.name]
                if table is None or table.tenant_column is None or len(columns) != 2:
                    continue
                others = [c for c in columns if c != table.tenant_column]
                if len(others) == 1 and others[0] in table.column_names:
                    column = table.column(others[0])
                    if any(t in column.type_sql for t in ("int", "numeric")):
                        found[table.name] = column.name
    return found


def date_column(table: Table) -> Column | None:
    """The column that places a row in time: the first date/timestamp column."""
    dated = [c for c in table.columns if c.type_sql.startswith(DATE_TYPES)]
    return dated[0] if dated else None


NAMING_FIRST = len(words_of("name_columns")) + len(words_of("legal_name_columns"))
"""How many of `DISPLAY_NAMES` are names proper (before descriptions and titles)."""


def display_column(table: Table) -> Column:
    """The column that names a row for people: one called a name (nome, razão social), else
    the first that profiling read as a name (`kind: name`: "company_name", "product_name"),
    else a description or a title, else the key."""
    for name in DISPLAY_NAMES[:NAMING_FIRST]:
        if name in table.column_names:
            return table.column(name)
    named = [c for c in table.columns if c.meta.kind == "name"]
    if named:
        return named[0]
    for name in DISPLAY_NAMES[NAMING_FIRST:]:
        if name in table.column_names:
            return table.column(name)
    return key_column(table) or table.columns[0]


GIVEN_NAMES = word_set("given_name_columns")
FAMILY_NAMES = word_set("family_name_columns")


def person_name(table: Table, alias: str) -> str | None:
    """A person's whole name, when the table keeps it in two columns (a given name and a
    family name) and shows its rows by one of them: the two joined ("first last"), as people
    say it ("s.first_name || ' ' || s.last_name"). None for any other table."""
    given = [c for c in table.column_names if c in GIVEN_NAMES]
    family = [c for c in table.column_names if c in FAMILY_NAMES]
    if not given or not family or display_column(table).name not in {given[0], family[0]}:
        return None
    return f"{alias}.{given[0]} || ' ' || {alias}.{family[0]}"


def is_numeric(column: Column) -> bool:
    return column.type_sql.startswith(NUMERIC_TYPES) and not column.meta.values


def is_measure(table: Table, name: str) -> bool:
    """A numeric column worth adding up: not a key, a code or a join column."""
    column = table.column(name)
    keys = set(table.primary_key) | {c for j in table.meta.joins for c in j.on}
    return is_numeric(column) and name not in keys and not is_code_name(name)


CURRENCY = re.compile(r"^[A-Z]{3}$")
"""A column's unit that is a currency code (ISO 4217: "BRL", "USD")."""


def amount_column(table: Table) -> str | None:
    """The column that says how much money a row is: its first measure in a currency, else
    its only measure."""
    measures = [c for c in table.columns if is_measure(table, c.name)]
    money = [c.name for c in measures if CURRENCY.match(c.meta.unit or "")]
    return money[0] if money else (measures[0].name if len(measures) == 1 else None)


def spelling(column: Column) -> list[str]:
    """The words a column is spelled with: its name's and its synonyms' ("data_entrega",
    "delivered at" → data, entrega, delivered, at)."""
    return words(" ".join([column.name.replace("_", " "), *column.meta.synonyms.all()]))


def tied(catalog: Catalog, table: str, others: list[str]) -> bool:
    """One of `others` is `table` or joined to it, either way."""
    if table in others:
        return True
    own = {j.to for j in catalog.table(table).meta.joins}
    return any(t in own or table in {j.to for j in catalog.table(t).meta.joins} for t in others)


@per_catalog
def lexicon_for(catalog: Catalog) -> Lexicon:
    """The lexicon of `catalog`, built once per catalog object."""
    return Lexicon(catalog)


def _content(phrase: tuple[str, ...]) -> tuple[str, ...]:
    """A phrase's words but the languages' function words ("prazo da tarefa": prazo, tarefa)."""
    return tuple(w for w in phrase if w not in FUNCTION_WORDS)
