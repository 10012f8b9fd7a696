"""The term a knowledge question asks about, found by any of its synonyms and by its words
said apart, and the librarian's answer with its definition in the question's language (both
definitions when a difference is asked)."""

from __future__ import annotations

import pytest

from orquestra.ddl_catalog.text import words
from orquestra.nodes.librarian import glossary_lines
from orquestra.offline.answers import librarian
from orquestra.offline.languages import language_of
from orquestra.offline.lexicon import lexicon_for
from tests.unit.offline.offline_sql import CATALOGS, route_of


@pytest.mark.parametrize(
    ("deployment", "question", "lang", "term"),
    [
        ("logistics", "what counts as a late shipment?", "en", "carga atrasada"),
        ("logistics", "how do you define delinquency?", "en", "inadimplência"),
        ("logistics", "pra que serve a série da nota?", "pt", "série"),
        ("clinics", "what do you mean by turnaround time?", "en", "tempo de laudo"),
        ("clinics", "o que vocês chamam de dupla leitura?", "pt", "revisão de qualidade"),
    ],
)
def test_the_librarian_finds_the_term_by_any_synonym_in_the_questions_language(
    deployment: str, question: str, lang: str, term: str
) -> None:
    catalog = CATALOGS[deployment]
    assert language_of(question, catalog) == lang
    assert route_of(deployment, question) == "KNOWLEDGE"
    # the librarian is shown the glossary; the catalog knows every synonym
    glossary = glossary_lines(list(catalog.glossary), lang)
    named = lexicon_for(catalog).terms_in(words(question))
    answer = librarian(glossary, (), question, lang, named)
    wanted = next(t for t in catalog.glossary if t.term == term)
    definition = wanted.definition_en if lang == "en" else wanted.definition
    assert answer["terms"] == [term] and definition in answer["answer"]


@pytest.mark.parametrize(
    ("deployment", "question", "term"),
    [
        ("clinics", "o que significa um laudo ser retificado?", "laudo retificado"),
        ("clinics", "Which findings are classed as critical?", "achado crítico"),
        ("clinics", "Qual o prazo pra liberar um laudo de ressonância?", "SLA de laudo"),
        ("logistics", "When do you consider a load to be late?", "carga atrasada"),
        ("logistics", "o que quer dizer uma nota estar bloqueada?", "nota bloqueada"),
        # said together, the longest still wins
        ("logistics", "qual a diferença entre faturamento e valor vendido?", "valor vendido"),
        ("logistics", "o que é OTIF?", "OTIF"),
    ],
)
def test_the_term_asked_is_found_with_its_words_said_apart(
    deployment: str, question: str, term: str
) -> None:
    """ "um laudo ser retificado" names laudo retificado, not laudo: a term whose words the
    question says apart, more of them than any name said together, is the one asked."""
    assert lexicon_for(CATALOGS[deployment]).terms_in(words(question))[0].term == term


@pytest.mark.parametrize(
    ("deployment", "question", "terms"),
    [
        (
            "logistics",
            "qual a diferença entre nota bloqueada e nota cancelada?",
            {"nota bloqueada", "nota cancelada"},
        ),
        (
            "clinics",
            "what's the difference between a late report and an amended report?",
            {"laudo atrasado", "laudo retificado"},
        ),
    ],
)
def test_a_difference_is_answered_with_both_definitions(
    deployment: str, question: str, terms: set[str]
) -> None:
    catalog = CATALOGS[deployment]
    named = lexicon_for(catalog).terms_in(words(question))
    said = librarian((), (), question, language_of(question, catalog), named)
    assert set(said["terms"]) == terms
    for term in catalog.glossary:
        if term.term in terms:  # each one's own definition, in the question's language
            definition = term.definition_en if deployment == "clinics" else term.definition
            assert definition in said["answer"]
