"""A concept asked by any of its English names gets its definition at once, offline.

The offline librarian answered "what does absenteeism mean?" with the Portuguese term's
heading and the English definition; the offline judge, which looks for the question's words
in the answer, found none and sent it back until the refine cap, so the turn cost ten model
calls and ended "not fully verified". The definition is now headed by the name the question
used ("Absenteeism (absenteísmo): …"). Every English name of every glossary term with an
English definition, on each deployment, through the real graph with the default model."""

from __future__ import annotations

from orquestra.ddl_catalog.language import detect_language, language_words
from orquestra.ddl_catalog.text import words
from tests.integration.graph.conftest import Harness, ask_offline


async def test_every_english_name_of_a_concept_is_answered_first_time(
    offline: Harness,
) -> None:
    catalog = offline.deployment.catalog
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
        turn = await ask_offline(offline, f"what does {name} mean?", thread)
        state = await offline.state(thread)
        answer = turn.result.get("answer") or ""
        if not (  # a name that is also a measure ("total freight") adds its value: a hybrid
            turn.result["route"] in ("KNOWLEDGE", "ANALYTICS")
            and words(answer)[: len(words(name))] == words(name)
            and term.definition_en.split()[0] in answer  # the English definition
            and state.get("refine_rounds", 0) == 0
        ):
            wrong.append((name, turn.result["route"], state.get("refine_rounds"), answer[:60]))
    assert not wrong, wrong
