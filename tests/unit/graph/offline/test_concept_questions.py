"""What a term means, asked in people's own words, is a knowledge question in both languages
and on both sample deployments, answered with the term the question names by any synonym,
in the question's language; a question that asks for the term's values stays data."""

from __future__ import annotations

import pytest

from orquestra.ddl_catalog.text import words
from orquestra.nodes.librarian import glossary_lines
from orquestra.offline.answers import librarian
from orquestra.offline.languages import language_of
from orquestra.offline.lexicon import lexicon_for
from tests.unit.graph.offline.offline_sql import CATALOGS, route_of


@pytest.mark.parametrize(
    ("deployment", "question"),
    [
        ("logistics", "what counts as a late shipment?"),
        ("logistics", "how do you define revenue?"),
        ("logistics", "what's the difference between revenue and sales value?"),
        ("logistics", "what's OTIF?"),
        ("logistics", "what do you mean by delinquency?"),
        ("logistics", "does a blocked invoice count as revenue?"),
        ("logistics", "how is the on-time rate computed?"),
        ("logistics", "o que conta como carga atrasada?"),
        ("logistics", "qual a diferença entre faturamento e valor vendido?"),
        ("logistics", "o que vocês chamam de nota bloqueada?"),
        ("logistics", "me explica o que é OTIF"),
        ("logistics", "quando uma nota é considerada bloqueada?"),
        ("logistics", "o que entra no faturamento?"),
        ("logistics", "qual a definição de ticket médio?"),
        ("clinics", "o que conta como laudo atrasado?"),
        ("clinics", "what do you mean by turnaround time?"),
        ("clinics", "qual a diferença entre laudo retificado e laudo assinado?"),
        ("clinics", "how is the no-show rate calculated?"),
        ("clinics", "o que vocês chamam de achado crítico?"),
    ],
)
def test_what_a_term_means_is_knowledge(deployment: str, question: str) -> None:
    assert route_of(deployment, question) == "KNOWLEDGE"


@pytest.mark.parametrize(
    ("deployment", "question"),
    [
        ("logistics", "what is the OTIF?"),
        ("logistics", "qual é o OTIF?"),
        ("logistics", "what is our OTIF this year?"),
        ("logistics", "what's the difference in revenue between May and June?"),
        ("logistics", "qual a diferença de faturamento entre maio e junho?"),
        ("logistics", "how many late shipments did we have?"),
        ("clinics", "what is the no-show rate this year?"),
        ("clinics", "qual o absenteísmo por convênio?"),
    ],
)
def test_the_terms_values_are_data(deployment: str, question: str) -> None:
    assert route_of(deployment, question) == "ANALYTICS"


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
