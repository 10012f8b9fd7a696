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

import re
from collections.abc import Mapping
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


def _load() -> dict[str, Language]:
    folders = sorted(p for p in HERE.iterdir() if p.is_dir() and not p.name.startswith("_"))
    # Portuguese first: where languages share a word, its first meaning is the one kept
    ordered = sorted(folders, key=lambda p: (p.name != "pt", p.name != "en", p.name))
    return {p.name: _read(p) for p in ordered if any(p.glob("*.yaml"))}


LANGUAGES: dict[str, Language] = _load()
"""Every language with data, Portuguese then English then the rest by code."""


@cache
def words(concept: str) -> Words:
    """Every language's words for `concept`, each once, languages in `LANGUAGES` order."""
    said = [w for language in LANGUAGES.values() for w in language.words(concept)]
    if not said and not any(concept in lang.concepts for lang in LANGUAGES.values()):
        raise KeyError(f"no language has the concept {concept!r}")
    return tuple(dict.fromkeys(said))


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
    if not merged and not any(concept in lang.concepts for lang in LANGUAGES.values()):
        raise KeyError(f"no language has the concept {concept!r}")
    return merged


def alternation(*concepts: str) -> str:
    """The concepts' words as a regular-expression alternation, escaped, longest first (so
    "em aberto" is tried before "em"), spaces matching any run of spaces.

    >>> alternation("negation").startswith("(?:")
    True
    """
    said = dict.fromkeys(w for c in concepts for w in words(c))
    ordered = sorted(said, key=len, reverse=True)
    return "(?:" + "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in ordered) + ")"


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
