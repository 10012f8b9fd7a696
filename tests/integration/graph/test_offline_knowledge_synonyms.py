"""A concept asked by any of its English names gets its definition at once, offline.

The offline librarian answered "what does absenteeism mean?" with the Portuguese term's
heading and the English definition; the offline judge, which looks for the question's words
in the answer, found none and sent it back until the refine cap, so the turn cost ten model
calls and ended "not fully verified". The definition is now headed by the name the question
used ("Absenteeism (absenteísmo): …"). Every English name of every glossary term with an
English definition, on each deployment, through the real graph with the default model."""

from __future__ import annotations

from dataclasses import replace

import pytest

from orquestra.ddl_catalog.language import detect_language, language_words
from orquestra.ddl_catalog.text import words
from orquestra.graph.context import ROLES
from tests.integration.graph.conftest import Harness
from tests.integration.graph.test_offline_model import ask_offline


@pytest.fixture
def offline_librarian(harness: Harness) -> Harness:
    harness.base = replace(harness.base, models={role: "offline" for role in ROLES})
    harness.script_path = None
    return harness


async def test_every_english_name_of_a_concept_is_answered_first_time(
    offline_librarian: Harness,
) -> None:
    catalog = offline_librarian.deployment.catalog
    vocabulary = language_words(catalog)
    english = {  # each term's first English name
        term.term: (term, name)
        for term in catalog.glossary
        if term.definition_en
        for name in reversed(term.synonyms)
        if detect_language(name, vocabulary=vocabulary) == "en"
    }
    asked = list(english.values())
    assert len(asked) >= 10, "the deployment's glossary should have English names to ask by"
    wrong = []
    for number, (term, name) in enumerate(asked):
        thread = f"k{number}"
        turn = await ask_offline(offline_librarian, f"what does {name} mean?", thread)
        state = await offline_librarian.state(thread)
        answer = turn.result.get("answer") or ""
        if not (  # a name that is also a measure ("total freight") adds its value: a hybrid
            turn.result["route"] in ("KNOWLEDGE", "ANALYTICS")
            and words(answer)[: len(words(name))] == words(name)
            and term.definition_en.split()[0] in answer  # the English definition
            and state.get("refine_rounds", 0) == 0
        ):
            wrong.append((name, turn.result["route"], state.get("refine_rounds"), answer[:60]))
    assert not wrong, wrong
