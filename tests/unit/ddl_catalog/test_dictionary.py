"""The languages' dictionary (`ddl_catalog/dictionary.yaml`): well formed, and read only
where it is clear (`ddl_catalog.dictionary.readings`)."""

from __future__ import annotations

import yaml

from orquestra.ddl_catalog.dictionary import DICTIONARY, concepts, readings
from orquestra.ddl_catalog.selection_words import Hit, Vocabulary
from orquestra.ddl_catalog.text import fold
from tests.unit.test_no_business_words import BUSINESS_WORDS


def test_every_concept_has_words_in_both_languages_folded() -> None:
    entries = yaml.safe_load(DICTIONARY.read_text(encoding="utf-8"))["concepts"]
    assert len(entries) == len(concepts()) > 400
    for entry in entries:
        assert entry["pt"] and entry["en"], entry
        assert all(w == fold(w) and w.strip() == w for w in entry["pt"] + entry["en"]), entry


def test_it_holds_no_word_of_the_sample_deployments_business() -> None:
    assert not [w for words in concepts() for w in words if BUSINESS_WORDS.search(w)]


def vocabulary_of(*phrases: tuple[str, str]) -> Vocabulary:
    vocabulary = Vocabulary()
    for phrase, table in phrases:
        vocabulary.add(phrase, Hit(table, "named", phrase))
    return vocabulary


def test_a_word_reads_as_the_catalog_phrase_of_its_concept() -> None:
    vocabulary = vocabulary_of(("employees", "staff_table"), ("city", "places"))
    found = readings(vocabulary)
    assert found[vocabulary.key("funcionário")] == "employees"
    assert found[vocabulary.key("cidades")] == "city"
    assert vocabulary.key("employees") not in found  # the catalog's own phrase is its own


def test_a_word_whose_concepts_lead_to_two_catalog_phrases_is_not_read() -> None:
    gender_and_genre = vocabulary_of(("gender", "people"), ("genre", "songs"))
    genre = vocabulary_of(("genre", "songs"))
    assert readings(genre)[genre.key("genero")] == "genre"
    assert gender_and_genre.key("genero") not in readings(gender_and_genre)


def test_a_listed_value_alone_is_no_catalog_phrase_to_read_as() -> None:
    vocabulary = Vocabulary()
    vocabulary.add("employee", Hit("kinds", "value", "kind = employee"))
    assert vocabulary.key("funcionario") not in readings(vocabulary)
