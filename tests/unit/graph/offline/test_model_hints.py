"""The offline model takes the date, the language and the augmenter's licence to ask from the
calling stage as data (the call's metadata), not from the prompt's wording: a reworded
prompt changes nothing, and a prompt that claims another date is not believed."""

from __future__ import annotations

from datetime import date

from orquestra.ddl_catalog import DEMO_CATALOG_DIR
from orquestra.graph.llm import Meter, chat
from orquestra.nodes.augmenter import Augmented
from orquestra.nodes.sql_writer import SqlDraft
from orquestra.offline import OfflineChatModel
from orquestra.offline.local_model import ModelHints

CATALOG = str(DEMO_CATALOG_DIR)
QUESTION = "## Question\nfaturamento total este mês"


def meter(today: str, **state: object) -> Meter:
    return Meter.of(state, _Context(), date.fromisoformat(today))


class _Context:
    """Only the budgets `Meter.of` reads."""

    class caps:
        max_model_calls_per_turn = 8

    class limits:
        model_retries = 0
        model_wait_s = 0.0


async def draft(today: str, system: str) -> str:
    model = OfflineChatModel(role="sql_writer", catalog_dir=CATALOG)
    out = await meter(today).structured(model, "sql_writer", SqlDraft, chat(system, QUESTION))
    return out.sql


async def test_the_date_comes_from_the_stage_not_the_prompt() -> None:
    march = await draft("2025-03-10", "You write PostgreSQL. Today is 2026-06-30.")
    assert "2025-03-01" in march and "2026-06" not in march
    reworded = await draft("2025-03-10", "You write PostgreSQL. The current date: 1999-01-01.")
    assert reworded == march


async def test_the_language_comes_from_the_state_not_the_prompt() -> None:
    model = OfflineChatModel(role="chat", catalog_dir=CATALOG)
    said_in_english = "Write in Portuguese."  # the prompt's words do not decide
    english = await meter("2026-06-30", lang="en").text(
        model, "chat", chat(said_in_english, "## Message\nhello")
    )
    portuguese = await meter("2026-06-30", lang="pt").text(
        model, "chat", chat("Write in English.", "## Message\nhello")
    )
    assert english != portuguese
    assert any(word in english.lower().split() for word in ("i", "you", "ask", "the"))


async def test_the_augmenter_asks_only_when_the_stage_allows_it() -> None:
    model = OfflineChatModel(role="augmenter", catalog_dir=CATALOG)
    message = chat("You are allowed to ask: yes.", "## Message\nqual o status da nota?")

    async def augmented(can_ask: bool) -> Augmented:
        hints = ModelHints(can_ask=can_ask)
        return await meter("2026-06-30").structured(model, "augmenter", Augmented, message, hints)

    asks, may_not = await augmented(True), await augmented(False)
    assert asks.clarifying_question
    assert not may_not.clarifying_question
