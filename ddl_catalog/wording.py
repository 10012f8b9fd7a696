"""Every business word a stage says, taken from the deployment: profile, catalog, examples.

The code keeps only generic bilingual wording ("I can look up {topics} for you"); what the
business is, what a tenant is called, the assistant's name, the currency, the topics and
the example questions come from the deployment's profile, its catalog and its question→SQL
examples. One `Voice` per deployment gives the stages and the prompt templates those words.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from orquestra.core.deployment import Profile
from orquestra.ddl_catalog.knowledge import Example
from orquestra.ddl_catalog.model import Catalog

LANGUAGE_NAMES = {"pt": "Portuguese", "en": "English"}
AND = {"pt": "e", "en": "and"}
OR = {"pt": "ou", "en": "or"}
ASK_CONCEPT = {"pt": "o que é {term}?", "en": "what does {term} mean?"}
"""How a concept question is asked, to show the knowledge route with a glossary term."""
MAIN_TABLES = 4
"""Tables a fallback names when nothing else says what the data holds."""
PROMPT_EXAMPLES = 3
"""Example questions per route in a prompt: enough to show the shape, few enough to be cheap."""


def language_name(lang: str | None) -> str:
    """The language's name as a prompt says it ("Portuguese"); English when unknown."""
    return LANGUAGE_NAMES.get(lang or "", "English")


def spoken_list(items: Sequence[str], lang: str) -> str:
    """ "a, b e c" (pt) or "a, b and c" (en)."""
    items = [item for item in items if item]
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {AND.get(lang, 'and')} {items[-1]}"


def main_table_words(catalog: Catalog, lang: str, count: int = MAIN_TABLES) -> list[str]:
    """What the catalog's main tables hold, as people say it: the tables most joined to
    others first (the entities a schema is about), each by its first synonym in `lang`, else
    its name in words (`order_details` → "order details").

    >>> from orquestra.ddl_catalog.loader import load_catalog
    >>> main_table_words(load_catalog(), "en", 2) != []
    True
    """
    degree = {name: len(table.meta.joins) for name, table in catalog.tables.items()}
    for table in catalog.tables.values():
        for join in table.meta.joins:
            if join.to in degree:
                degree[join.to] += 1
    ranked = sorted(catalog.tables.values(), key=lambda t: (-degree[t.name], t.name))
    words = []
    for table in ranked[:count]:
        said = table.meta.synonyms.pt if lang == "pt" else table.meta.synonyms.en
        words.append(said[0] if said else table.name.replace("_", " ").strip().lower())
    return words


@dataclass(frozen=True)
class Voice:
    """The deployment's words, per language, for replies and prompt templates."""

    profile: Profile
    catalog: Catalog
    examples: tuple[Example, ...] = field(default=())
    """The catalog's question→SQL examples (few-shot questions for the router and augmenter)."""

    def lang(self, lang: str | None) -> str:
        """`lang` if the deployment speaks it, else its default language."""
        return self.profile.language(lang)

    def tenant(self, lang: str | None, plural: bool = False) -> str:
        """What a tenant is called ("store", "stores")."""
        return self.profile.tenant_label(lang, plural=plural)

    def topics(self, lang: str | None) -> str:
        """What one can ask about, as a phrase: the profile's topics; else the systems' titles
        a person wrote; else the words of the catalog's main tables — never a schema's name,
        which is all an imported system's title is until someone writes one."""
        chosen = self.lang(lang)
        phrases = self.profile.topic_phrases(chosen) or [
            system.title.lower()
            for system in self.catalog.systems
            if system.title and system.title not in (system.name, system.db_schema)
        ]
        return spoken_list(phrases or main_table_words(self.catalog, chosen), chosen)

    def example_questions(self, lang: str | None, count: int = 2) -> list[str]:
        """The greeting's example questions; the catalog's examples when the profile has none."""
        chosen = self.lang(lang)
        found = self.profile.example_questions(chosen)
        if not found:
            found = [e.question for e in self.examples if e.lang in (None, chosen)]
        return found[:count]

    def quoted_examples(self, lang: str | None, count: int = 2) -> str:
        """ "q1" ou "q2" — the example questions as a reply quotes them."""
        chosen = self.lang(lang)
        quoted = [f'"{question}"' for question in self.example_questions(chosen, count)]
        return f" {OR.get(chosen, 'or')} ".join(quoted)

    def tenant_columns(self) -> str:
        """The columns that carry the tenant, as a prompt names them (`col`, `col2`)."""
        columns = sorted(set(self.catalog.tenant_tables().values()))
        return ", ".join(f"`{column}`" for column in columns) or "(none)"

    def route_examples(self, kind: str) -> str:
        """A few questions of the catalog's examples of `kind` (tracking, analytics), quoted."""
        chosen = [e.question for e in self.examples if e.kind == kind][:PROMPT_EXAMPLES]
        return ", ".join(f'"{question}"' for question in chosen) or "(none)"

    def concept_examples(self) -> str:
        """Concept questions made from the glossary's first terms (its language is the
        deployment's default one)."""
        ask = ASK_CONCEPT.get(self.profile.default_language, ASK_CONCEPT["en"])
        terms = self.catalog.glossary[:PROMPT_EXAMPLES]
        return ", ".join(f'"{ask.format(term=term.term)}"' for term in terms) or "(none)"

    def prompt_values(self, lang: str | None) -> dict[str, str]:
        """The `{{placeholders}}` every prompt template may use."""
        chosen = self.lang(lang)
        return {
            "assistant": self.profile.assistant_name,
            "business": " ".join(self.profile.text("business", chosen).split()),
            "lang": language_name(chosen),
            "tenant": self.tenant(chosen),
            "tenants": self.tenant(chosen, plural=True),
            "tenant_en": self.tenant("en") if "en" in self.profile.tenant else self.tenant(chosen),
            "tenant_columns": self.tenant_columns(),
            "topics": self.topics(chosen),
            "currency": self.profile.currency,
            "locale": self.profile.locale_for(chosen),
            "tracking_examples": self.route_examples("tracking"),
            "analytics_examples": self.route_examples("analytics"),
            "concept_examples": self.concept_examples(),
            "greeting_examples": self.quoted_examples(chosen),
        }


def voice_for(profile: Profile, catalog: Catalog, examples: Iterable[Example] = ()) -> Voice:
    """The `Voice` of one deployment (cheap: it only holds references)."""
    return Voice(profile, catalog, tuple(examples))


def voice_of(resources: Any) -> Voice:
    """The `Voice` of the deployment a run's resources serve."""
    return voice_for(resources.profile, resources.catalog, resources.examples)
