"""librarian: concept questions answered from the glossary and the documents.

The whole glossary goes into the prompt while it is small; past that, only the terms most
similar to the question. Documents (Markdown FAQs and procedures) are chunked, embedded
(cached in pgvector) and the closest chunks retrieved. A judge then checks the answer.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime
from pydantic import BaseModel

from orquestra.ddl_catalog.model import GlossaryTerm
from orquestra.ddl_catalog.wording import voice_of
from orquestra.graph.context import RunContext
from orquestra.graph.hints import GlossaryLine, ModelHints
from orquestra.graph.llm import Meter, chat
from orquestra.graph.models import model_for
from orquestra.graph.resources import Resources
from orquestra.graph.stage import stage
from orquestra.graph.state import AgentState
from orquestra.nodes.prompts import prompt, sections

GLOSSARY_INLINE_CHARS = 24_000
TERMS_WHEN_LARGE = 8


class LibrarianAnswer(BaseModel):
    """The librarian's structured output."""

    answer: str
    terms: list[str] = []


def glossary_lines(terms: list[GlossaryTerm], lang: str) -> tuple[GlossaryLine, ...]:
    """The terms as the librarian is shown them: every synonym (a term asked for by its
    ninth name must still be recognised), the definition in the turn's language."""
    return tuple(
        GlossaryLine(
            term.term,
            tuple(term.synonyms),
            term.definition_en if lang == "en" and term.definition_en else term.definition,
        )
        for term in terms
    )


def glossary_text(terms: list[GlossaryTerm], lang: str) -> str:
    """`glossary_lines` as the prompt's `- term (synonyms): definition` lines."""
    lines = []
    for line in glossary_lines(terms, lang):
        synonyms = f" ({', '.join(line.synonyms)})" if line.synonyms else ""
        lines.append(f"- {line.term}{synonyms}: {line.definition}")
    return "\n".join(lines)


async def relevant_terms(resources: Resources, question: str, *, asker: str) -> list[GlossaryTerm]:
    terms = list(resources.catalog.glossary)
    if len(glossary_text(terms, "pt")) <= GLOSSARY_INLINE_CHARS:
        return terms
    query = await resources.vectors.query(question, asker=asker)
    passages = [f"{t.term}: {t.definition}" for t in terms]
    return [terms[i] for i in await resources.vectors.nearest(passages, query, TERMS_WHEN_LARGE)]


@stage("librarian", summary=lambda u: f"{len(u.get('knowledge') or '')} chars")
async def librarian(
    state: AgentState, runtime: Runtime[RunContext], resources: Resources
) -> dict[str, Any]:
    context = runtime.context
    lang = state.get("lang", "pt")
    terms = await relevant_terms(resources, state["question"], asker=context.asker)
    chunks = await resources.nearest_chunks(state["question"], asker=context.asker)
    documents = "\n\n".join(f"[{c.source}] {c.title}\n{c.text}" for c in chunks)
    system = prompt(
        "librarian",
        glossary=glossary_text(terms, lang),
        documents=documents or "(none)",
        **voice_of(resources).prompt_values(lang),
    )
    feedback = state.get("judge_feedback")
    user = sections(
        question=state["question"],
        previous_answer=state.get("knowledge") if feedback else "",
        reviewer_feedback=feedback,
    )
    meter = Meter.of(state, context, context.today_date(resources.settings))
    model = model_for("librarian", context, resources.settings)
    hints = ModelHints(
        question=state["question"], glossary=glossary_lines(terms, lang), documents=tuple(chunks)
    )
    messages = chat(system, user)
    answer = await meter.structured(model, "librarian", LibrarianAnswer, messages, hints)
    return {
        **meter.update(),
        "knowledge": answer.answer.strip(),
        "knowledge_sources": f"{glossary_text(terms, lang)}\n\n{documents}",
        "judge_feedback": None,
    }
