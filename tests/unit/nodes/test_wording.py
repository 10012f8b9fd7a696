"""Prompts, greetings and refusals speak in the deployment's words, whatever the business."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from orquestra.core.deployment import Profile, TenantLabel
from orquestra.ddl_catalog import Catalog
from orquestra.ddl_catalog.knowledge import Example
from orquestra.ddl_catalog.language import detect_language, language_words
from orquestra.ddl_catalog.wording import Voice, spoken_list, voice_for
from orquestra.guards.rails.contracts import RailResult
from orquestra.nodes.input_rails import blocked_text
from orquestra.nodes.prompts import HERE, placeholders, prompt
from orquestra.nodes.short_circuit import reply

PROFILE = Profile(
    name="rental",
    assistant_name="Reel",
    languages=["pt", "en"],
    default_language="en",
    business={"en": "A film rental chain: stores rent films to customers.", "pt": "Locadora."},
    tenant={
        "pt": TenantLabel(singular="loja", plural="lojas"),
        "en": TenantLabel(singular="store", plural="stores"),
    },
    currency="USD",
    examples={"en": ["payments by month in 2026", "status of rental 7"]},
    topics={"en": ["rentals", "payments", "customers"]},
)
EXAMPLES = [
    Example(question="status of rental 7", lang="en", kind="tracking", sql="SELECT 1"),
    Example(question="payments by month", lang="en", kind="analytics", sql="SELECT 1"),
]
DEMO_WORDS = re.compile(r"(?<![a-z])notas?(?![a-z])|fornecedor|faturamento|log[ií]stic|invoice")
NODE_VALUES = {"schema": "-- schema", "examples": "(none)", "today": "2026-06-30"}
NODE_VALUES |= {"can_ask": "yes", "glossary": "-", "documents": "(none)"}


@pytest.fixture
def voice(rental: Catalog) -> Voice:
    return voice_for(PROFILE, rental, EXAMPLES)


@pytest.mark.parametrize("name", sorted(p.stem for p in Path(HERE).glob("*.md")))
def test_every_prompt_is_filled_from_the_deployment(name: str, voice: Voice) -> None:
    values = voice.prompt_values("en") | NODE_VALUES
    assert placeholders(name) <= set(values), f"{name}.md needs a value no stage gives"
    text = prompt(name, **values)
    assert "{{" not in text
    assert not DEMO_WORDS.search(text), DEMO_WORDS.search(text)


def test_prompts_name_the_assistant_business_and_tenant(voice: Voice) -> None:
    values = voice.prompt_values("en") | NODE_VALUES
    assert "Reel" in prompt("chat", **values) and "film rental chain" in prompt("chat", **values)
    assert "`store_id`" in prompt("sql_analytics", **values)
    assert '"status of rental 7"' in prompt("router", **values)
    assert '"what does average ticket mean?"' in prompt("router", **values)


def test_the_greeting_offers_the_deployments_topics_and_examples(voice: Voice) -> None:
    assert reply("greeting", "en", voice) == (
        "Hello, I'm Reel! I can look up rentals, payments and customers in your data, or "
        'explain a business term. For example: "payments by month in 2026" or '
        '"status of rental 7".'
    )
    # No Portuguese topics or examples in the profile: the default language's are used.
    assert "rentals, payments e customers" in reply("greeting", "pt", voice)


def test_refusals_name_the_tenant_as_the_deployment_does(voice: Voice) -> None:
    blocked = RailResult(allowed=False, reason="x", score=1.0, code="PINJ")
    assert "(loja 1)" in blocked_text(blocked, "GRL.002", "pt", "1", voice)
    outside = RailResult(allowed=False, reason="x", score=0.0, code="OOS")
    text = blocked_text(outside, "GRL.003", "en", "1", voice)
    assert "rentals, payments and customers" in text and '"payments by month in 2026"' in text


def test_topics_fall_back_to_the_catalogs_systems(rental: Catalog) -> None:
    silent = PROFILE.model_copy(update={"topics": {}, "examples": {}})
    voice = voice_for(silent, rental)
    assert voice.topics("en") == "rentals"
    assert reply("greeting", "en", voice).endswith("or explain a business term.")


def test_an_imported_catalog_is_named_by_its_main_tables_never_its_schema(
    rental: Catalog,
) -> None:
    """`init` titles a system with its schema's name until a person writes one: the greeting
    and the fallbacks then say what the main tables hold, not "public"."""
    imported = replace(
        rental,
        systems=tuple(replace(s, title=s.db_schema, name=s.db_schema) for s in rental.systems),
    )
    silent = PROFILE.model_copy(update={"topics": {}, "examples": {}})
    voice = voice_for(silent, imported)
    topics = voice.topics("en")
    schemas = {s.db_schema for s in rental.systems}
    assert not any(schema in topics.split() for schema in schemas), topics
    most_joined = max(
        rental.tables,
        key=lambda name: (
            sum(1 for t in rental.tables.values() for j in t.meta.joins if j.to == name)
            + len(rental.tables[name].meta.joins)
        ),
    )
    assert most_joined.replace("_", " ") in topics or any(
        synonym in topics for synonym in rental.tables[most_joined].meta.synonyms.en
    ), topics
    assert reply("greeting", "en", voice).startswith("Hello")


def test_the_catalogs_synonyms_help_detect_the_language(rental: Catalog) -> None:
    words = language_words(rental)
    assert "patron" in words["en"] and "fregues" in words["pt"]
    assert detect_language("patron 7", default="pt", vocabulary=words) == "en"
    assert detect_language("patron 7", default="pt") == "pt"


@pytest.mark.parametrize(
    ("question", "lang"),
    [
        # "a" and "as" are words of both languages: they tip neither way
        ("what counts as a return?", "en"),
        ("is it a late shipment?", "en"),
        ("a nota 40908 foi entregue?", "pt"),
        ("as notas de maio", "pt"),
    ],
)
def test_words_of_both_languages_count_for_neither(question: str, lang: str) -> None:
    assert detect_language(question, default="pt") == lang


def test_spoken_lists() -> None:
    assert spoken_list(["a", "b", "c"], "pt") == "a, b e c"
    assert spoken_list(["a"], "en") == "a" and spoken_list([], "en") == ""
