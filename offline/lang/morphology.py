"""The languages' word forms, as data: each language's `morphology.yaml` (beside its concepts)
gives the endings stripped to find a word's root ("concluímos" → "conclu", "cancelled" →
"cancell"), how plurals, genders and past forms change a word, and the lengths a root is
compared from.

The offline model reads a word before it knows its language ("top 5 clientes"), so the
functions here work over every language's data at once: each constant joins the languages'
lists, Portuguese first, then English, then the rest by code, keeping each language's order
(the order a root function tries them in). The lengths must be the same in every language that
gives them.

>>> verb_roots("concluimos"), verb_roots("cancelled")
(['conclu'], ['cancell'])
>>> LENGTHS.root, length("shared_prefix")
(5, 6)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import yaml

from orquestra.ddl_catalog.text import stem
from orquestra.offline.lang import HERE, LANGUAGES, MORPHOLOGY_FILE, LanguageDataError, Words


@dataclass(frozen=True)
class Lengths:
    """The lengths (in letters) a root or a word's start is compared from."""

    root: int
    """Shortest root compared: shorter ones ("emit", "pag") meet unrelated words."""
    short_root: int
    """A root compared only whole with another form's ("falt" of "faltaram" and "faltou")."""
    first_person_root: int
    """A first-person or English subject's verb root ("gast" of "gastamos", "bill")."""
    shared_prefix: int
    """Shortest common start that ties a verb to a column ("entregues" ~ "entrega")."""
    shared_start: int
    """Shortest common start that ties a verb to a date column ("issued" ~ "issue date")."""
    head: int
    """Shortest word read as the head of a column's name ("data", "valor", "date")."""


@dataclass(frozen=True)
class Morphology:
    """One language's word forms, read from its `morphology.yaml`."""

    code: str
    verb_endings: Words = ()
    """Endings of the verb forms people ask with ("concluímos", "cadastraram", "closed")."""
    participle_endings: Words = ()
    """Endings of a state's word or a done act, singular ("vendido", "sold")."""
    plural_participle_endings: Words = ()
    """The same, plural ("revisadas")."""
    finite_past_endings: Words = ()
    """Endings of a verb said in the past of its subject ("faltaram", "a gente vendeu")."""
    happening_endings: Words = ()
    """Gerunds that say something is happening ("faltando"), read with the past forms."""
    noun_endings: Words = ()
    """Endings of the nouns of an act ("agendamento", "cancellation")."""
    progressive_endings: Words = ()
    """The progressive's ending, of any verb ("recebendo", "receiving")."""
    first_person_endings: Words = ()
    """Endings of a verb said of oneself ("faturei", "faturamos")."""
    first_person_past: Mapping[str, str] | None = None
    """The first person's past ending → the end of its participle's stem ("i" → "id")."""
    present_endings: Words = ()
    """Present endings of a verb said of what rows do ("compra", "compram")."""
    act_plural_endings: Words = ()
    """Plural endings of a noun naming acts ("compras", "vendas")."""
    regular_past_endings: Words = ()
    """The ending of a regular past, added to the verb ("signed")."""
    negating_prefixes: Words = ()
    """Prefixes that negate a participle ("unsigned")."""
    adverb_endings: Words = ()
    """An adverb's ending ("exatamente", "exactly")."""
    person_endings: Words = ()
    """Endings of a verb said of a person ("pagamos", "clientes pagarem")."""
    irregular_participle_endings: Words = ()
    """Participles spelled without the regular endings ("aberto", "feita")."""
    gender_endings: Mapping[str, str] | None = None
    """A word's gender ending → the other gender's ("a" → "o")."""
    preterite_plurals: Mapping[str, str] | None = None
    """A past ending said of one → said of many ("eu" → "eram")."""
    plural_stems: Mapping[str, str] | None = None
    """A singular's ending → how the stemmer leaves its plural ("y" → "ie", "m" → "n")."""
    irregular_roots: Mapping[str, str] | None = None
    """Verb forms whose root is not the start of their noun ("sold" → "sale")."""
    plural_endings: Words = ()
    """Endings of a plural noun or adjective ("pedidos urgentes")."""
    verb_only_endings: Words = ()
    """Endings only a verb's forms have, of any root ("viajam", "pagarem")."""
    dropped_before_endings: Words = ()
    """A base form's last letters dropped before an ending ("place" → "placed", "handling")."""
    adjectives_after_noun: bool = False
    """An adjective that says a kind of a thing stands after its noun, agreeing with it
    ("pedidos urgentes"), not before ("urgent orders")."""
    lengths: Lengths | None = None


_LISTS = {f.name for f in fields(Morphology) if str(f.type) == "Words"}
"""The keys whose value is a list of endings (the annotations are strings here)."""
_MAPS = {f.name for f in fields(Morphology) if str(f.type).startswith("Mapping")}
"""The keys whose value is a mapping of an ending or word to another."""
_FLAGS = {f.name for f in fields(Morphology) if str(f.type) == "bool"}
"""The keys whose value is true or false."""
_LENGTHS = next(f.name for f in fields(Morphology) if str(f.type).startswith("Lengths"))
"""The key of the lengths."""


def _words(path: Path, key: str, value: Any) -> Words:
    if not isinstance(value, list) or not all(isinstance(w, str) and w for w in value):
        raise LanguageDataError(f"{path}: {key!r} must be a list of endings or words")
    return tuple(dict.fromkeys(value))


def _map(path: Path, key: str, value: Any) -> Mapping[str, str]:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and k and isinstance(v, str) for k, v in value.items()
    ):
        raise LanguageDataError(f"{path}: {key!r} must be a mapping of words to words")
    return dict(value)


def _lengths(path: Path, value: Any) -> Lengths:
    names = [f.name for f in fields(Lengths)]
    if not isinstance(value, dict):
        raise LanguageDataError(f"{path}: {_LENGTHS!r} must be a mapping of names to lengths")
    unknown = sorted(set(value) - set(names))
    missing = [n for n in names if n not in value]
    if unknown or missing:
        raise LanguageDataError(
            f"{path}: {_LENGTHS!r} has unknown names {unknown} or lacks {missing}; "
            f"it names exactly {names}"
        )
    if not all(isinstance(value[n], int) and not isinstance(value[n], bool) for n in names):
        raise LanguageDataError(f"{path}: every length must be a whole number of letters")
    if not all(value[n] > 0 for n in names):
        raise LanguageDataError(f"{path}: every length must be positive")
    return Lengths(**{n: value[n] for n in names})


def read(path: Path, code: str) -> Morphology:
    """One language's morphology from `path`, checked: unknown keys, lists that are not of
    words, mappings that are not of words to words, and missing or odd lengths are errors
    that name the file."""
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict):
        raise LanguageDataError(f"{path}: expected word forms as a mapping")
    known = _LISTS | _MAPS | _FLAGS | {_LENGTHS}
    unknown = sorted(str(k) for k in data if k not in known)
    if unknown:
        raise LanguageDataError(f"{path}: unknown keys {unknown}; known are {sorted(known)}")
    given: dict[str, Any] = {}
    for key, value in data.items():
        if key in _LISTS:
            given[key] = _words(path, key, value)
        elif key in _MAPS:
            given[key] = _map(path, key, value)
        elif key in _FLAGS:
            if not isinstance(value, bool):
                raise LanguageDataError(f"{path}: {key!r} must be true or false")
            given[key] = value
        else:
            given[key] = _lengths(path, value)
    return Morphology(code, **given)


def _load() -> dict[str, Morphology]:
    found = {code: HERE / code / MORPHOLOGY_FILE for code in LANGUAGES}
    return {code: read(path, code) for code, path in found.items() if path.is_file()}


MORPHOLOGIES: dict[str, Morphology] = _load()
"""Every language's word forms, in `LANGUAGES` order (Portuguese, English, the rest)."""


def _joined(name: str) -> Words:
    """Every language's list `name`, joined in language order, each ending once."""
    said: list[str] = []
    for morphology in MORPHOLOGIES.values():
        said.extend(getattr(morphology, name))
    return tuple(dict.fromkeys(said))


def _merged(name: str) -> dict[str, str]:
    """Every language's mapping `name`, merged (the first language's entry wins)."""
    merged: dict[str, str] = {}
    for morphology in MORPHOLOGIES.values():
        for word, other in (getattr(morphology, name) or {}).items():
            merged.setdefault(word, other)
    return merged


def _agreed_lengths() -> Lengths:
    given = {code: m.lengths for code, m in MORPHOLOGIES.items() if m.lengths is not None}
    if not given:
        raise LanguageDataError(f"no language's {MORPHOLOGY_FILE} gives the lengths")
    first = next(iter(given.values()))
    differ = sorted(code for code, lengths in given.items() if lengths != first)
    if differ:
        raise LanguageDataError(
            f"the lengths of {differ} differ from the others': words are compared before "
            "their language is known, so every language gives the same lengths"
        )
    return first


VERB_ENDINGS: Words = _joined("verb_endings")
"""Endings of the verb forms people ask with ("concluímos", "cadastraram", "closed"),
stripped to find the root a value or a column shares ("concluido", "data_conclusao")."""
PARTICIPLE_ENDINGS: Words = _joined("participle_endings")
"""Endings of a state's word or a done act, singular ("vendido", "sold")."""
PARTICIPLES: Words = (*PARTICIPLE_ENDINGS, *_joined("plural_participle_endings"))
"""Endings of a state's word or a done act ("vendido", "revisadas", "sold")."""
FINITE_PAST: Words = _joined("finite_past_endings")
"""Endings of a verb said in the past of its subject ("faltaram", "a gente vendeu")."""
HAPPENING: Words = _joined("happening_endings")
"""Gerunds that say something is happening ("faltando", "vencendo")."""
PAST_ENDINGS: Words = (*FINITE_PAST, *HAPPENING, *PARTICIPLES)
"""Endings of a verb form that says something happened or is happening ("faltaram",
"faltou", "faltando", "vencido"); not the infinitive nor "-ing" ("a vencer", "working":
what is still to happen)."""
NOUN_ENDINGS: Words = _joined("noun_endings")
"""Endings of the nouns of an act ("cancellation", "agendamento", "realização"), whose root
is its verb's ("cancelled", "agendado", "realizado")."""
PROGRESSIVE_ENDINGS: Words = _joined("progressive_endings")
"""The progressive's ending, of any verb ("recebendo", "receiving")."""
FIRST_PERSON: Words = _joined("first_person_endings")
"""Endings of a verb said of oneself ("faturei", "faturamos"): the verbs people ask about
their own business with."""
FIRST_PERSON_PAST: dict[str, str] = _merged("first_person_past")
"""The first person's past ending → the end of its participle's stem ("vendi" → "vendid")."""
PRESENT_ENDINGS: Words = _joined("present_endings")
"""Present endings of a verb said of what rows do ("compra", "compram", "vendem")."""
ACT_PLURALS: Words = _joined("act_plural_endings")
"""Plural endings of a noun naming acts ("compras", "vendas"), whose root is the verb's."""
REGULAR_PAST_ENDINGS: Words = _joined("regular_past_endings")
"""The ending of a regular past, added to the verb ("sign" → "signed")."""
NEGATING_PREFIXES: Words = _joined("negating_prefixes")
"""Prefixes that negate a participle ("unsigned", "unpaid")."""
ADVERB_ENDINGS: Words = _joined("adverb_endings")
"""An adverb's ending ("exatamente", "exactly")."""
PERSON_ENDINGS: Words = _joined("person_endings")
"""Endings of a verb said of a person ("pagamos", "clientes pagarem")."""
PLURAL_ENDINGS: Words = _joined("plural_endings")
VERB_ONLY_ENDINGS: Words = _joined("verb_only_endings")
"""Endings only a verb's forms have ("viajam", "pagarem")."""
DROPPED: Words = _joined("dropped_before_endings")
"""A base form's last letters dropped before an ending ("place" → "placed")."""
"""Endings of a plural noun or adjective ("pedidos urgentes", "orders")."""
IRREGULAR_PARTICIPLES: Words = _joined("irregular_participle_endings")
"""Endings of participles spelled without the regular endings ("aberto", "feita")."""
GENDER_ENDINGS: dict[str, str] = _merged("gender_endings")
"""A word's gender ending → the other gender's ("rodoviária" → "rodoviário")."""
PRETERITE_PLURALS: dict[str, str] = _merged("preterite_plurals")
"""Past endings of one and of many ("apareceu" → "apareceram")."""
PLURAL_STEMS: tuple[tuple[str, str], ...] = tuple(_merged("plural_stems").items())
"""A singular's ending and how the stemmer leaves its plural ("category" → "categorie",
"particular" → "particulare"); the endings exclude each other, so their order is moot."""
IRREGULAR: dict[str, str] = _merged("irregular_roots")
"""Verb forms whose root is not the start of their noun ("sold" → "sales")."""
LENGTHS: Lengths = _agreed_lengths()
"""The lengths roots and starts are compared from: `LENGTHS.root`, `LENGTHS.head`…"""
ROOT_LENGTH = LENGTHS.root
"""Shortest root compared: shorter ones ("emit", "pag") meet unrelated words."""
SHORT_ROOT = LENGTHS.short_root
"""A root of four letters: compared only whole, with another verb form's ("falt" of
"faltaram" and of "faltou"), never as the start of a word, and only of forms that say
something happened (`PAST_ENDINGS`)."""


def length(name: str) -> int:
    """The length named `name` (a field of `Lengths`).

    >>> length("head"), length("short_root")
    (4, 4)
    """
    if name not in {f.name for f in fields(Lengths)}:
        raise KeyError(f"no length named {name!r}")
    value: int = getattr(LENGTHS, name)
    return value


def adjectives_after_noun(lang: str) -> bool:
    """In language `lang`, an adjective saying a kind of a thing follows its noun ("pedidos
    urgentes"); else it goes before ("urgent orders"), as in a language without data.

    >>> adjectives_after_noun("pt"), adjectives_after_noun("en"), adjectives_after_noun("xx")
    (True, False, False)
    """
    morphology = MORPHOLOGIES.get(lang)
    return morphology is not None and morphology.adjectives_after_noun


def verb_roots(token: str) -> list[str]:
    """The roots a question's word may share with a value or a column: the word without a
    verb or participle ending ("cadastramos" → "cadastr", "revisadas" → "revis",
    "approved" → "approv"), when long enough to mean something.

    >>> verb_roots("cadastraram"), verb_roots("approved"), verb_roots("pago")
    (['cadastr'], ['approv'], [])
    """
    found = [
        word[: -len(end)]
        for word in dict.fromkeys((token, stem(token)))
        for end in (*VERB_ENDINGS, *PARTICIPLE_ENDINGS)
        if word.endswith(end)
    ]
    return [root for root in dict.fromkeys(found) if len(root) >= ROOT_LENGTH]


def short_verb_roots(token: str) -> list[str]:
    """The four-letter roots of a verb form that says something happened ("faltaram" →
    "falt", "vencido" → "venc"); none of other words, nor of "a vencer" or "emitir".

    >>> short_verb_roots("faltaram"), short_verb_roots("vencido"), short_verb_roots("vencer")
    (['falt'], ['venc'], [])
    """
    found = [token[: -len(end)] for end in PAST_ENDINGS if token.endswith(end)]
    return [root for root in dict.fromkeys(found) if len(root) == SHORT_ROOT]


def noun_roots(token: str) -> list[str]:
    """The verb root of a noun naming an act: "cancellations" → "cancell".

    >>> noun_roots("agendamentos"), noun_roots("cancellation"), noun_roots("pedidos")
    (['agend'], ['cancell'], [])
    """
    return [
        token[: -len(end)]
        for end in NOUN_ENDINGS
        if token.endswith(end) and len(token) - len(end) >= ROOT_LENGTH
    ][:1]


def shares_root(token: str, spelled: list[str]) -> bool:
    """`token` is a form of the verb one of the words in `spelled` is made of.

    >>> shares_root("entregaram", ["data", "entrega"]), shares_root("sold", ["sale"])
    (True, False)
    """
    return any(word.startswith(root) for root in verb_roots(token) for word in spelled)


def plural_stem(word: str) -> str:
    """How the stemmer leaves the plural of `word` ("category" → "categorie", "modal" →
    "modai", "item" → "iten", "particular" → "particulare"); the word itself when its
    plural just adds an "s".

    >>> [plural_stem(w) for w in ("category", "modal", "item", "valor", "pedido")]
    ['categorie', 'modai', 'iten', 'valore', 'pedido']
    """
    for singular, plural in PLURAL_STEMS:
        if len(word) > 3 and word.endswith(singular):
            return word[: -len(singular)] + plural
    return word


_plural_stem = plural_stem


def genderless(word: str) -> str:
    """ "travada", "travado" → "travad": a participle compared in either gender.

    >>> genderless("travada"), genderless("travado"), genderless("closed")
    ('travad', 'travad', 'closed')
    """
    return word[:-1] if word.endswith(tuple(GENDER_ENDINGS)) else word


def other_gender(word: str) -> str | None:
    """`word` said in the other gender ("rodoviaria" → "rodoviario"), if it has one.

    >>> other_gender("rodoviaria"), other_gender("rodoviario"), other_gender("road")
    ('rodoviario', 'rodoviaria', None)
    """
    for end, other in GENDER_ENDINGS.items():
        if word.endswith(end):
            return word[: -len(end)] + other
    return None


def is_participle(word: str) -> bool:
    """`word` ends like a participle of one gender, regular or not ("aberta", "revisado"),
    so its gender says which rows it is said of.

    >>> is_participle("aberta"), is_participle("revisado"), is_participle("rodoviaria")
    (True, True, False)
    """
    return word.endswith((*PARTICIPLE_ENDINGS, *IRREGULAR_PARTICIPLES))


def past_of_many(word: str) -> str:
    """A verb's past said of one, said of many ("apareceu" → "apareceram"); other words as
    they are.

    >>> past_of_many("apareceu"), past_of_many("faltou"), past_of_many("pedido")
    ('apareceram', 'faltaram', 'pedido')
    """
    return next(
        (word[: -len(one)] + many for one, many in PRETERITE_PLURALS.items() if word.endswith(one)),
        word,
    )


VERB_FORM_ENDINGS: Words = tuple(
    dict.fromkeys(
        (
            *VERB_ENDINGS,
            *PARTICIPLES,
            *FINITE_PAST,
            *FIRST_PERSON,
            *PROGRESSIVE_ENDINGS,
            *ADVERB_ENDINGS,
            *REGULAR_PAST_ENDINGS,
            *VERB_ONLY_ENDINGS,
            *NOUN_ENDINGS,
        )
    )
)
"""Endings that make a word a verb's form, an act's noun or an adverb whatever its root
("cadastraram", "placed", "handling", "movimentação", "exactly"): a word ending so says what
was done or how, not a thing a question asks about."""


def looks_like_a_verb(word: str) -> bool:
    """`word` ends as a verb's form or an adverb does, with a root left before the ending.

    >>> [looks_like_a_verb(w) for w in ("cadastraram", "handled", "revenue", "agenda")]
    [True, True, False, False]
    """
    return any(
        word.endswith(end) and len(word) - len(end) >= SHORT_ROOT - 1 for end in VERB_FORM_ENDINGS
    )


def forms_of(verb: str) -> frozenset[str]:
    """Every form the languages' endings make of `verb` (an infinitive or a base form): its
    root with any ending of a verb's forms, of a present or a person, or a plural's ("vender" →
    "vendem", "vendeu"; "handle" → "handled", "handles").

    >>> sorted(w for w in forms_of("vender") if w.startswith("vendem"))
    ['vendem', 'vendemos']
    >>> {"handled", "handles", "handling"} <= forms_of("handle")
    True
    """
    endings = (
        *VERB_FORM_ENDINGS,
        *PRESENT_ENDINGS,
        *PERSON_ENDINGS,
        *PLURAL_ENDINGS,
        *FIRST_PERSON_PAST,
    )
    roots = {verb, *(verb[: -len(end)] for end in VERB_ENDINGS if verb.endswith(end))}
    roots |= {verb[: -len(end)] for end in DROPPED if verb.endswith(end)}
    forms = {root + end for root in roots for end in endings}
    return frozenset({verb, *forms, *(plural_stem(verb) + end for end in PLURAL_ENDINGS)})
