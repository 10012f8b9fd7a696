"""What the librarian's prompt shows of the glossary: every synonym of every term, in the
turn's language, so a hosted model recognises a term however it is asked for."""

from __future__ import annotations

import pytest

from orquestra.core.settings import Settings
from orquestra.ddl_catalog import load_catalog
from orquestra.nodes.librarian import glossary_text
from tests.deployment_cases import DEPLOYMENTS


@pytest.mark.parametrize("name", DEPLOYMENTS)
def test_every_synonym_of_every_term_is_shown(name: str) -> None:
    terms = list(load_catalog(Settings(deployment=name).catalog_folder).glossary)
    shown = glossary_text(terms, "en")
    for term in terms:
        line = next(line for line in shown.splitlines() if line.startswith(f"- {term.term} ("))
        assert all(synonym in line for synonym in term.synonyms), term.term
    assert any(len(term.synonyms) > 5 for term in terms)  # more than the five once shown


def test_definitions_follow_the_turns_language() -> None:
    otif = next(t for t in load_catalog().glossary if t.term == "OTIF")
    assert "The closer to 1" in glossary_text([otif], "en")
    assert "Quanto mais perto de 1" in glossary_text([otif], "pt")
