"""The languages the offline model reads, as data: a folder per language (`pt/`, `en/`) of
YAML files, each file a family of concepts ("negation", "largest", "number_words"), each
concept the words a language says it with.

A concept's value is a list of words or phrases (folded: lower case, no accents, unless a
concept says it is matched on the question as typed), or a mapping of a word to what it
stands for ("feito" → "realizado"). A concept's name is the same in every language; a
language may leave out a concept it has no words for. Readings ask for concepts, never for
a word of one language, and get every language's words at once, because a question may mix
them ("top 5 clientes").

>>> "nao" in word_set("negation") and "not" in word_set("negation")
True
>>> LANGUAGES["pt"].words("negation")[:2]
('nao', 'nunca')
>>> concepts_of("never") >= {"negation"}
True
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent

Words = tuple[str, ...]
MORPHOLOGY_FILE = "morphology.yaml"
"""A language's word forms (endings, root lengths), not concepts: read by `morphology`."""


class LanguageDataError(ValueError):
    """A language file that cannot be read as concepts: the message names file and concept."""


@dataclass(frozen=True)
class Language:
    """One language's concepts, read from its folder."""

    code: str
    lists: Mapping[str, Words] = field(default_factory=dict)
    maps: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    @property
    def concepts(self) -> frozenset[str]:
        return frozenset(self.lists) | frozenset(self.maps)

    def words(self, concept: str) -> Words:
        """The language's words for `concept`, in the file's order (none if it has none)."""
        if concept in self.maps:
            return tuple(self.maps[concept])
        return self.lists.get(concept, ())

    def mapping(self, concept: str) -> Mapping[str, str]:
        return self.maps.get(concept, {})


@cache
def _read(folder: Path) -> Language:
    lists: dict[str, Words] = {}
    maps: dict[str, dict[str, str]] = {}
    for path in sorted(folder.glob("*.yaml")):
        if path.name == MORPHOLOGY_FILE:
            continue  # the language's word forms, read by `morphology`
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        if not isinstance(data, dict):
            raise LanguageDataError(f"{path}: expected concepts as a mapping")
        for concept, value in data.items():
            if concept in lists or concept in maps:
                raise LanguageDataError(f"{path}: concept {concept!r} is defined twice")
            if isinstance(value, list) and all(isinstance(w, str) for w in value):
                lists[concept] = tuple(dict.fromkeys(value))
            elif isinstance(value, dict) and all(
                isinstance(k, str) and isinstance(v, str) for k, v in value.items()
            ):
                maps[concept] = dict(value)
            else:
                raise LanguageDataError(
                    f"{path}: concept {concept!r} must be a list of words or a mapping of "
                    "words to words"
                )
    return Language(folder.name, lists, maps)


READ_ENV = "ORQUESTRA_OFFLINE_LANGUAGES"
"""The languages the offline model reads, by code, comma-separated, in order of precedence
(default `pt,en`). A language's words are read in every question, whatever language it is
in, so a pack is read only when named: Spanish "no" says "not", Portuguese "no" is "in the"."""
DEFAULT_LANGUAGES = ("pt", "en")


def read_codes(setting: str | None) -> tuple[str, ...]:
    """The language codes a setting names, each once, in its order (the default if unset).

    >>> read_codes(None), read_codes(" es, en ,es")
    (('pt', 'en'), ('es', 'en'))
    """
    codes = [c.strip() for c in (setting or "").split(",") if c.strip()]
    return tuple(dict.fromkeys(codes)) or DEFAULT_LANGUAGES


def _load(codes: tuple[str, ...]) -> dict[str, Language]:
    packs = {p.name: p for p in HERE.iterdir() if p.is_dir() and any(p.glob("*.yaml"))}
    missing = [code for code in codes if code not in packs]
    if missing:
        raise LanguageDataError(
            f"{READ_ENV} names {', '.join(missing)}, which offline/lang/ has no data for "
            f"(it has: {', '.join(sorted(packs))})"
        )
    # In precedence order: where languages share a word, its first language's meaning is kept
    return {code: _read(packs[code]) for code in codes}


LANGUAGES: dict[str, Language] = _load(read_codes(os.environ.get(READ_ENV)))
"""The languages read, in precedence order: Portuguese then English unless configured."""


@cache
def _every_concept() -> frozenset[str]:
    """The concepts of every language on disk, read or not."""
    packs = (p for p in HERE.iterdir() if p.is_dir() and any(p.glob("*.yaml")))
    return frozenset(c for pack in packs for c in _read(pack).concepts)


def _known(concept: str) -> None:
    """A concept no language has is a mistake in the code (a read language may lack one)."""
    if concept not in _every_concept():
        raise KeyError(f"no language has the concept {concept!r}")


@cache
def words(concept: str) -> Words:
    """Every language's words for `concept`, each once, languages in `LANGUAGES` order."""
    _known(concept)
    said = [w for language in LANGUAGES.values() for w in language.words(concept)]
    return tuple(dict.fromkeys(said))


def first_word(concept: str) -> str:
    """The first read language's word for `concept`, for where the model writes one word
    (the SQL's column name, the word a shorthand is read as): a configuration whose languages
    have none is a clear error at start, not an index error.

    >>> first_word("date_of")
    'de'
    """
    said = words(concept)
    if not said:
        raise LanguageDataError(
            f"none of the languages read ({', '.join(LANGUAGES)}) has a word for {concept!r}: "
            f"add it to one of them, or name another language in {READ_ENV}"
        )
    return said[0]


@cache
def word_set(concept: str) -> frozenset[str]:
    """`words(concept)` as a set, for membership."""
    return frozenset(words(concept))


@cache
def mapping(concept: str) -> Mapping[str, str]:
    """Every language's mapping for `concept`, merged (the first language's entry wins)."""
    merged: dict[str, str] = {}
    for language in LANGUAGES.values():
        for word, meaning in language.mapping(concept).items():
            merged.setdefault(word, meaning)
    _known(concept)
    return merged


def alternation_of(
    said: Iterable[str], *, longest_first: bool = True, any_spaces: bool = True
) -> str:
    """Words and phrases as a regular-expression group, escaped, each once: longest first
    (so "em aberto" is tried before "em"; words of one length in the order given) or, with
    `longest_first=False`, in the order given; a phrase's space matching any run of spaces
    (a line break, two spaces) or, with `any_spaces=False`, one space only.

    >>> alternation_of(["em", "em aberto", "a", "em"])
    '(?:em\\\\s+aberto|em|a)'
    >>> alternation_of(["em", "em aberto", "a.b"], longest_first=False, any_spaces=False)
    '(?:em|em\\\\ aberto|a\\\\.b)'
    """
    ordered = list(dict.fromkeys(said))
    if longest_first:
        ordered.sort(key=len, reverse=True)
    escaped = [re.escape(w) for w in ordered]
    if any_spaces:
        escaped = [w.replace(r"\ ", r"\s+") for w in escaped]
    return "(?:" + "|".join(escaped) + ")"


@cache
def alternation(*concepts: str, longest_first: bool = True, any_spaces: bool = True) -> str:
    """Every language's words for the concepts (`words`, languages and files in order) as
    a regular-expression group: `alternation_of` them, longest first and spaces matching
    any run of spaces unless told otherwise. Remembered: readings build some per question.

    >>> alternation("negation").startswith("(?:")
    True
    >>> alternation("today", "yesterday", longest_first=False, any_spaces=False)
    '(?:hoje|today|ontem|yesterday)'
    >>> alternation("today", "yesterday")
    '(?:yesterday|today|ontem|hoje)'
    """
    said = (w for c in concepts for w in words(c))
    return alternation_of(said, longest_first=longest_first, any_spaces=any_spaces)


SLOT = re.compile(r"\{([a-z_]\w*)\}")
"""A concept's place in a template ("{what_pronoun}"); a regex's repetition ("{2}") is none."""


def each_language(*templates: str, longest_first: bool = True, any_spaces: bool = True) -> str:
    """The templates' `{concept}`s filled with one language's words at a time (an
    `alternation_of` that language's words for each), never one language's word beside
    another's ("do highest to lowest" is no order): languages in `LANGUAGES` order, each
    language's templates in the order given, one it lacks a concept of skipped; the
    alternatives joined by "|", each once.

    >>> print(each_language("{permission_asks} {list_first}"))
    (?:podemos|posso) (?:primeiro)|(?:can\\s+we|may\\s+we|can\\s+i|may\\s+i) (?:first)
    >>> print(each_language("{permission_asks}", "{become} {classed_as}", longest_first=False))
    (?:posso|podemos)|(?:can\\s+i|can\\s+we|may\\s+i|may\\s+we)|(?:get|gets|be|become|becomes) \
(?:considered\\s+as|classed\\s+as|classified\\s+as|counted\\s+as)
    >>> each_language("{permission_asks} {no_such_concept}")
    Traceback (most recent call last):
    KeyError: "no language has the concept 'no_such_concept'"
    """
    for concept in {c for template in templates for c in SLOT.findall(template)}:
        _known(concept)
    filled = []
    for language in LANGUAGES.values():
        for template in templates:
            said = {
                concept: alternation_of(
                    language.words(concept), longest_first=longest_first, any_spaces=any_spaces
                )
                for concept in SLOT.findall(template)
                if language.words(concept)
            }
            if len(said) == len(set(SLOT.findall(template))):
                filled.append(_filled(template, said))
    return "|".join(dict.fromkeys(filled))


def _filled(template: str, said: Mapping[str, str]) -> str:
    """`template` with each `{concept}` replaced by what `said` has for it."""
    return SLOT.sub(lambda slot: said[slot[1]], template)


@cache
def _index() -> dict[str, frozenset[str]]:
    found: dict[str, set[str]] = {}
    for language in LANGUAGES.values():
        for concept in language.concepts:
            for word in language.words(concept):
                found.setdefault(word, set()).add(concept)
    return {word: frozenset(concepts) for word, concepts in found.items()}


def concepts_of(word: str) -> frozenset[str]:
    """The concepts a word or phrase says, in any language: the question normalised."""
    return _index().get(word, frozenset())
