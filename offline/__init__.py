"""The embedded offline model: every role of the graph, with no weights and no network.

A deterministic, catalog-driven semantic parser behind LangChain's chat-model contract: it
returns the same structured outputs a real model does, and streams its answers. What it
answers from is the calling stage's facts (`graph.hints.ModelHints`: the question, the
failing SQL, the SQL tried, the rows…), never the prompt's wording. It understands questions
through the catalog's metadata (synonyms, enumerated values, join keys, glossary metrics),
so a new source system described the same way is understood without changing this code.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import date
from functools import partial
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage
from pydantic import BaseModel

from orquestra.core.deployment import load_deployment
from orquestra.ddl_catalog import DEMO_CATALOG_DIR, Catalog, load_catalog
from orquestra.ddl_catalog.knowledge import load_examples
from orquestra.ddl_catalog.language import language_words
from orquestra.ddl_catalog.text import fold, words
from orquestra.ddl_catalog.wording import Voice, voice_for
from orquestra.deployments import DEFAULT_DEPLOYMENT
from orquestra.graph.hints import ModelHints
from orquestra.graph.local_model import LocalChatModel
from orquestra.graph.meaning import catalog_languages
from orquestra.offline import answers
from orquestra.offline.conversation import augment, route
from orquestra.offline.coverage import LeftOut
from orquestra.offline.fixer import follow, repair
from orquestra.offline.joins import Unmappable
from orquestra.offline.languages import language_of
from orquestra.offline.lexicon import Lexicon, lexicon_for
from orquestra.offline.parser import parse
from orquestra.offline.result_names import named_in
from orquestra.offline.reviewed import reuse
from orquestra.offline.sql import build_sql
from orquestra.offline.understanding import explain
from orquestra.offline.unread import the_languages_own

_catalogs: dict[str, Catalog] = {}
_voices: dict[tuple[str, str], Voice] = {}


def catalog_in_use(folder: str = str(DEMO_CATALOG_DIR)) -> Catalog:
    """The catalog in `folder`, loaded once per process."""
    if folder not in _catalogs:
        _catalogs[folder] = load_catalog(Path(folder))
    return _catalogs[folder]


def voice_in_use(deployment: str, folder: str) -> Voice:
    """The deployment's words (profile, catalog, examples), built once per process."""
    if (deployment, folder) not in _voices:
        profile = load_deployment(deployment).profile
        examples = load_examples(Path(folder))
        _voices[deployment, folder] = voice_for(profile, catalog_in_use(folder), examples)
    return _voices[deployment, folder]


class OfflineChatModel(LocalChatModel):
    """Serves one role of the graph (`role`) from the prompt and the deployment's catalog."""

    deployment: str = DEFAULT_DEPLOYMENT
    catalog_dir: str = str(DEMO_CATALOG_DIR)
    """The run's catalog folder (the settings' `catalog_dir`), passed in when built."""

    async def respond(
        self, messages: list[BaseMessage], schema: type[BaseModel] | None, hints: ModelHints
    ) -> str | dict[str, Any]:
        # Reading the catalog's files (the first call) and parsing are blocking work: off the
        # event loop, as a remote model's wait would be (LangGraph Server's rule).
        return await asyncio.to_thread(self.reply, hints)

    def prepare(self) -> None:
        """Read the catalog and the deployment's words now (at start-up), not in a run."""
        catalog = catalog_in_use(self.catalog_dir)
        lexicon_for(catalog)
        language_words(catalog)  # ~26 ms once: the first turn's language detection
        voice_in_use(self.deployment, self.catalog_dir)

    def reply(self, hints: ModelHints) -> str | dict[str, Any]:
        """What this role answers, from the calling stage's facts alone (blocking: files on
        the first call, CPU). Without a date or a language: today and the question's own."""
        catalog = catalog_in_use(self.catalog_dir)
        lexicon = lexicon_for(catalog)
        today = hints.today or date.today()
        question = hints.question.strip()
        lang = hints.lang or language_of(question or hints.message.strip(), catalog)
        if self.role == "augmenter":
            return augment(hints, catalog, lexicon, today)
        if self.role == "router":
            return route(question, catalog, lexicon, today)
        if self.role == "sql_writer":
            asked = _without(question, hints.own_company_names)
            # in a language the catalog does not speak, "pedidos" is read as its "orders"
            # (never "ones" as "units": the languages' own words are theirs)
            foreign = lang not in catalog_languages(catalog)
            said = [(w, p) for w, p in hints.read_as if foreign and not the_languages_own(fold(w))]
            reused = reuse(hints.reviewed, question, hints.found_values, hints.names_searched)
            if reused is not None and reused[0] not in hints.tried_sql:
                sql, example = reused
                return {
                    "thought_process": f"reviewed example {example.id}, this question's values",
                    "sql": sql,
                    "missing_info": None,
                    "confidence": 0.9,
                    "reviewed_example": example.id,
                }
            # a name found in the data is that column's value ("Tofu": the product's name)
            read = lexicon.reading(said).with_values(hints.found_values, hints.names_searched)
            return _write_sql(asked, catalog, read, today, hints.tried_sql, lang)
        if self.role == "fixer":
            failing = hints.failing_sql.strip()
            followed = follow(failing, [dict(p) for p in hints.sql_problems])
            if followed:
                return {"sql": followed, "explanation": "the catalog check's suggestions"}
            fixed = repair(failing, hints.error.strip(), catalog, lexicon)
            return {"sql": fixed, "explanation": "repaired from the error"}
        if self.role == "librarian":
            named = lexicon.terms_in(words(question))
            return answers.librarian(hints.glossary, hints.documents, question, lang, named)
        if self.role == "judge":
            return answers.judge(question, hints.answer, hints.answer_kind == "answer")
        if self.role == "chat":
            return answers.chat(lang, voice_in_use(self.deployment, self.catalog_dir))
        return answers.answer(hints, lang)


def _without(question: str, companies: Sequence[str]) -> str:
    """The question with the asker's own company names left out: they say whose data this
    is (the guard keeps the asker's rows), not a row's name to look for.

    >>> _without("rentals of Acme Video in 2026", ("Acme Video",))
    'rentals of   in 2026'
    """
    for company in companies:
        question = question.replace(company, " ")
    return question


def _answered(catalog: Catalog, lexicon: Lexicon, today: date, question: str) -> bool:
    """The offline model writes SQL for `question` (a suggestion is only made of those)."""
    intent = parse(question, catalog, lexicon, today)
    try:
        build_sql(intent, catalog, today.isoformat())
    except Unmappable:
        return False
    return True


def _write_sql(
    question: str,
    catalog: Catalog,
    lexicon: Lexicon,
    today: date,
    tried: Sequence[str] = (),
    lang: str = "pt",
) -> dict[str, Any]:
    """The SQL for `question`: none when it maps to nothing the catalog holds, or when the
    only reading is one already `tried` this turn (a retry after zero rows)."""
    intent = parse(question, catalog, lexicon, today)
    if lexicon.not_in_data(intent.subject.named):  # looked up: no row has that name
        answered = partial(_answered, catalog, lexicon, today)
        said = explain(intent, catalog, lang, today, answered, not_found=intent.subject.named)
        return {
            "thought_process": "no such name",
            "sql": "",
            "missing_info": said,
            "confidence": 0.0,
        }
    try:
        sql = build_sql(intent, catalog, today.isoformat())
        # its computed columns named in the question's language ("count", not "quantidade")
        sql = named_in(sql, lang)
    except Unmappable as reason:
        if isinstance(reason, LeftOut):  # said, and left out of the query: said so
            intent = intent.but(unmapped=reason.words)
        elif not intent.understood and intent.unread.unknown:  # nothing read: say its words
            intent = intent.but(unmapped=intent.unread.unknown)
        # What was understood and what can be asked instead: a clear non-answer.
        if intent.unread.unmapped:
            answered = partial(_answered, catalog, lexicon, today)
            unused = isinstance(reason, LeftOut)
            said = explain(intent, catalog, lang, today, answered, unused)
        else:
            said = str(reason)
        return {
            "thought_process": "no mapping",
            "sql": "",
            "missing_info": said,
            "confidence": 0.0,
        }
    if any(sql in before for before in tried):
        return {
            "thought_process": "no other reading",
            "sql": "",
            "missing_info": "no other reading of the question",
            "confidence": 0.0,
        }
    return {
        "thought_process": f"tables {', '.join(intent.subject.tables) or '-'}",
        "sql": sql,
        "missing_info": None,
        "confidence": 0.7,
    }
