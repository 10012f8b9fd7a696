"""More of the ways people ask what a term means (found by rewording development questions):
the term before "quer dizer", a thing just named asked "what is that", when the business
considers or classes something as a term, a rule asked of any one, how a process works —
knowledge in both languages, on both deployments, while the same words about one numbered
row or over a period stay data."""

from __future__ import annotations

import pytest

from orquestra.ddl_catalog.text import words
from orquestra.offline.answers import librarian
from orquestra.offline.languages import language_of
from orquestra.offline.lexicon import lexicon_for
from tests.unit.graph.offline.offline_sql import CATALOGS, route_of


@pytest.mark.parametrize(
    ("deployment", "question"),
    [
        ("logistics", "OTIF quer dizer o quê, na prática?"),
        ("logistics", "CFOP - o que é esse código na nota?"),
        ("logistics", "quando vocês consideram uma carga atrasada?"),
        ("logistics", "When do you consider a load to be late?"),
        ("logistics", "CFOP - what is that code on the invoice?"),
        ("logistics", "in your system, when does a delivery get classed as a return?"),
        ("clinics", "TAT quer dizer o quê?"),
        ("clinics", "when is a report considered late?"),
        ("clinics", "sobreaviso - o que é isso?"),
        # a rule asked of any one, and how a process works
        ("clinics", "Qual o prazo pra liberar um laudo de ressonância?"),
        ("clinics", "How long do we have to sign off an MRI report?"),
        ("clinics", "How does the second-read quality review of reports work?"),
    ],
)
def test_what_a_term_means_in_other_wordings_is_knowledge(deployment: str, question: str) -> None:
    assert route_of(deployment, question) == "KNOWLEDGE"


@pytest.mark.parametrize(
    ("deployment", "question", "expected"),
    [
        ("logistics", "when is invoice 40908 expected?", "TRACKING"),
        ("logistics", "what is that invoice 40908 status?", "TRACKING"),
        ("logistics", "quantas cargas atrasadas em 2026?", "ANALYTICS"),
        ("clinics", "how many reports were considered late in 2026?", "ANALYTICS"),
        ("clinics", "qual o prazo para assinar o laudo 5012?", "TRACKING"),
        ("logistics", "how long does a shipment take to arrive on average in 2026?", "ANALYTICS"),
    ],
)
def test_the_same_words_about_data_stay_data(deployment: str, question: str, expected: str) -> None:
    assert route_of(deployment, question) == expected


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
