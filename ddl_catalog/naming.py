"""What a table's or column's name says: its words, what kind of data it holds, its language.

Names are split at underscores and at camelCase humps, and their short forms are spelled out
("custJoinDt" → "cust join date"). A column's kind — a date, an amount, a quantity, an
identifier or a name — is read from its type and its name's words. The words are language
data, one file per language (`ddl_catalog/lang/<code>.yaml`, concepts as in `offline/lang/`);
the catalog cannot read the offline model's packs (it sits below them), and names need words
of their own ("qty", "vlr", "postal"). A kind is read with every language's words at once
(a schema may mix them), except where a word of one language is an ordinary word of another
("data" is a date in Portuguese and not in English).

>>> name_words("custJoinDt", "en"), name_words("vlr_total", "pt"), name_words("HTMLPage", "en")
('cust join date', 'valor total', 'html page')
>>> column_kind("unit_price", "numeric(10,2)", "en"), column_kind("qtd_itens", "integer", "pt")
('amount', 'quantity')
>>> column_kind("ship_postal_code", "varchar(10)", "en"), column_kind("contact_name", "text", "en")
('identifier', 'name')
>>> column_kind("raw_data", "text", "en"), column_kind("data_cadastro", "varchar(8)", "pt")
(None, 'date')
>>> language_of(["order_date", "unit_price", "customer_id"]), language_of(["vlr_total", "nome"])
('en', 'pt')
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import yaml

from orquestra.ddl_catalog.language import ENGLISH, PORTUGUESE
from orquestra.ddl_catalog.model import INTEGER_TYPES, base_type
from orquestra.ddl_catalog.model import ColumnKind as Kind
from orquestra.ddl_catalog.text import fold, is_code_name, words

__all__ = [
    "Kind",
    "column_kind",
    "is_free_text",
    "is_label",
    "is_person_name",
    "language_of",
    "name_words",
    "plain_words",
    "said",
]

LANG_DIR = Path(__file__).resolve().parent / "lang"
DEFAULT_LANGUAGE = "en"
"""What a schema whose words say neither language is taken to speak."""
FUNCTION_WORDS = {"pt": PORTUGUESE, "en": ENGLISH}
"""The languages' own small words, which comments are written with."""
DATE_TYPES = {"date", "timestamp", "timestamptz", "timestamp with time zone"}
DATE_TYPES |= {"timestamp without time zone"}
DECIMAL_TYPES = {"numeric", "decimal", "money", "real", "double precision", "float4", "float8"}
TEXT_TYPES = {"text", "character varying", "varchar", "character", "char", "bpchar", "citext"}
HUMPS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
"""A camelCase name's words: "custJoinDt" → cust, Join, Dt; "HTMLPage" → HTML, Page."""


@dataclass(frozen=True)
class Vocabulary:
    """One language's words for names, by concept (`ddl_catalog/lang/<code>.yaml`)."""

    code: str
    lists: Mapping[str, frozenset[str]] = field(default_factory=dict)
    maps: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def words(self, concept: str) -> frozenset[str]:
        return self.lists.get(concept, frozenset())

    def all_words(self) -> frozenset[str]:
        """Every word the language's concepts hold, short forms and what they stand for."""
        short = self.maps.get("abbreviations", {})
        return frozenset().union(*self.lists.values(), short, short.values())


@cache
def vocabularies() -> dict[str, Vocabulary]:
    """Every language of `ddl_catalog/lang/`, by code."""
    found = {}
    for path in sorted(LANG_DIR.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        lists = {k: frozenset(map(fold, v)) for k, v in data.items() if isinstance(v, list)}
        maps = {k: dict(v) for k, v in data.items() if isinstance(v, dict)}
        found[path.stem] = Vocabulary(path.stem, lists, maps)
    return found


def vocabulary(lang: str) -> Vocabulary:
    """The words of `lang`, or of the default language when there are none for it."""
    return vocabularies().get(lang) or vocabularies()[DEFAULT_LANGUAGE]


@cache
def said(concept: str) -> frozenset[str]:
    """Every language's words for `concept`."""
    return frozenset().union(*(v.words(concept) for v in vocabularies().values()))


def split_name(name: str) -> list[str]:
    """A name's words as written, folded: underscores, spaces and camelCase humps split it."""
    return [fold(part) for piece in re.split(r"[\W_]+", name) for part in HUMPS.findall(piece)]


def plain_words(name: str) -> str:
    """A name read as snake_case only ("ship_country" → "ship country"): what any reader of
    the catalog already sees in it."""
    return " ".join(w for w in fold(name).split("_") if w)


def name_words(name: str, lang: str) -> str:
    """A name's words with `lang`'s short forms spelled out."""
    short = vocabulary(lang).maps.get("abbreviations", {})
    return " ".join(short.get(w, w) for w in split_name(name))


@cache
def _every_reading(name: str) -> tuple[str, ...]:
    """A name's words, each as written and as every language spells it out."""
    maps = [v.maps.get("abbreviations", {}) for v in vocabularies().values()]
    return tuple(dict.fromkeys(m.get(w, w) for w in split_name(name) for m in maps))


def _ends(name: str) -> set[str]:
    """The first and last word, spelled out: where a name says what it is ("order_id",
    "cod_cliente", "ship_postal_code")."""
    parts = split_name(name)
    maps = [v.maps.get("abbreviations", {}) for v in vocabularies().values()]
    return {m.get(w, w) for w in (parts[:1] + parts[-1:]) for m in maps}


def column_kind(name: str, type_sql: str, lang: str, *, key: bool = False) -> Kind | None:
    """What a column holds, from its type and its name's words; `key`: it is part of the
    primary key or of a foreign key (or holds the tenant)."""
    base = base_type(type_sql)
    every = set(_every_reading(name))
    if key or is_code_name(fold(name)) or (_ends(name) & said("identifier_words")):
        return "identifier"
    if type_sql.rstrip().endswith("]"):
        return None  # an array holds many of something, not one
    if base in DATE_TYPES:
        return "date"
    numeric = base in DECIMAL_TYPES or base in INTEGER_TYPES
    if numeric and base == "money":
        return "amount"
    amount, quantity = every & said("amount_words"), every & said("quantity_words")
    if numeric and (amount or quantity):
        return "quantity" if quantity and (base in INTEGER_TYPES or not amount) else "amount"
    readable = base in TEXT_TYPES or base in INTEGER_TYPES
    if readable and set(name_words(name, lang).split()) & vocabulary(lang).words("date_words"):
        return "date"  # a date stored as text or as a number (a legacy schema's "dt_x")
    if base in TEXT_TYPES and every & said("name_words"):
        return "name"
    return None


def is_free_text(name: str) -> bool:
    """A column of prose or of contact details (a description, an address, an e-mail)."""
    return bool(set(_every_reading(name)) & said("free_text_words"))


def is_person_name(name: str) -> bool:
    """A name column that names a person or a contact ("first_name", "contact_name")."""
    every = set(_every_reading(name))
    return bool(every & said("name_words")) and bool(every & said("person_words"))


def is_label(name: str, table: str) -> bool:
    """A lookup's label column: a label word alone, or after the table's own name
    ("name", "category_name", "region_description")."""
    parts = split_name(name)
    own = _every_reading(table)

    def of_table(part: str) -> bool:  # "category" of "categories", "state" of "us_states"
        return any(w == part or (len(part) > 3 and w[: len(part) - 1] == part[:-1]) for w in own)

    return bool(parts) and parts[-1] in said("label_words") and all(map(of_table, parts[:-1]))


def language_of(names: Iterable[str], texts: Iterable[str] = ()) -> str:
    """The language most of `names` (split into words) and `texts` (comments, values) are
    in, by the words only one language has; a tie is `DEFAULT_LANGUAGE`."""
    tokens = [w for n in names for w in split_name(n)] + [w for t in texts for w in words(t)]
    own = _language_words()
    scores = dict.fromkeys(own, 0)
    for token in tokens:
        speaking = [code for code, known in own.items() if token in known]
        if len(speaking) == 1:
            scores[speaking[0]] += 1
    best = max(scores.values(), default=0)
    leaders = [code for code, score in scores.items() if score == best]
    return leaders[0] if best and len(leaders) == 1 else DEFAULT_LANGUAGE


@cache
def _language_words() -> dict[str, frozenset[str]]:
    """Each language's words for names and its function words."""
    return {
        code: vocab.all_words() | FUNCTION_WORDS.get(code, frozenset())
        for code, vocab in vocabularies().items()
    }
