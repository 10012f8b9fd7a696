"""The offline model answers from the calling stage's facts (`ModelHints`, in the call's
metadata), never from the prompt's wording: the same facts under renamed sections, or under
no prompt at all, give the same answer, and a prompt claiming another date, SQL or language
is not believed."""

from __future__ import annotations

from datetime import date

from orquestra.ddl_catalog import DEMO_CATALOG_DIR
from orquestra.graph.hints import ModelHints
from orquestra.graph.llm import Meter, chat
from orquestra.nodes.augmenter import Augmented
from orquestra.nodes.fixer import FixedSql
from orquestra.nodes.prompts import sections
from orquestra.nodes.sql_writer import SqlDraft
from orquestra.offline import OfflineChatModel

CATALOG = str(DEMO_CATALOG_DIR)
ASKED = "faturamento total este mês"
BROKEN = "SELECT num_nota, valor_total FROM notas_fiscais WHERE num_nota = 40908"
ERROR = 'column "valor_total" does not exist'


def meter(today: str, **state: object) -> Meter:
    return Meter.of(state, _Context(), date.fromisoformat(today))


class _Context:
    """Only the budgets `Meter.of` reads."""

    class caps:
        max_model_calls_per_turn = 8

    class limits:
        model_retries = 0
        model_wait_s = 0.0


async def draft(today: str, system: str, user: str = "", **facts: object) -> SqlDraft:
    model = OfflineChatModel(role="sql_writer", catalog_dir=CATALOG)
    hints = ModelHints(question=ASKED, **facts)
    return await meter(today).structured(model, "sql_writer", SqlDraft, chat(system, user), hints)


async def fixed(user: str, **facts: object) -> str:
    model = OfflineChatModel(role="fixer", catalog_dir=CATALOG)
    hints = ModelHints(question="valor da nota 40908", **facts)
    out = await meter("2026-06-30").structured(model, "fixer", FixedSql, chat("", user), hints)
    return out.sql


async def test_the_date_comes_from_the_stage_not_the_prompt() -> None:
    march = (await draft("2025-03-10", "You write PostgreSQL. Today is 2026-06-30.")).sql
    assert "2025-03-01" in march and "2026-06" not in march
    reworded = await draft("2025-03-10", "You write PostgreSQL. The current date: 1999-01-01.")
    assert reworded.sql == march


async def test_the_fixer_repairs_from_the_facts_whatever_the_prompt_says() -> None:
    facts = {"failing_sql": BROKEN, "error": ERROR}
    as_the_stage_writes_it = sections(
        question="valor da nota 40908", failing_sql=BROKEN, error=ERROR
    )
    renamed = sections(statement_that_failed=BROKEN, what_went_wrong=ERROR)
    repaired = await fixed(as_the_stage_writes_it, **facts)
    assert repaired == "SELECT num_nota, valor_nota FROM notas_fiscais WHERE num_nota = 40908"
    assert await fixed(renamed, **facts) == repaired
    assert await fixed("", **facts) == repaired
    # Another failing SQL in the prompt is not read: the facts are what is repaired.
    other = sections(failing_sql="SELECT count(*) FROM nota_fiscal", error="relation")
    assert await fixed(other, **facts) == repaired


async def test_the_fixer_follows_the_catalog_checks_findings_from_the_facts() -> None:
    problem = {"kind": "unknown_column", "name": "valor_total", "table": "notas_fiscais"}
    problem |= {"column": None, "suggestions": ["valor_nota"], "elsewhere": [], "joins": []}
    followed = await fixed("", failing_sql=BROKEN, sql_problems=(problem,))
    assert followed == "SELECT num_nota, valor_nota FROM notas_fiscais WHERE num_nota = 40908"


async def test_a_zero_row_retry_knows_what_was_tried_from_the_facts_alone() -> None:
    system = "You write PostgreSQL."
    first = await draft("2026-06-30", system, sections(question=ASKED))
    assert first.sql
    # The stage's retry prompt, its sections renamed or absent: the same "no other reading".
    retry = sections(question=ASKED, already_tried=f"1. {first.sql}\n   → zero_rows")
    renamed = sections(the_question=ASKED, earlier_queries=f"1. {first.sql}")
    for user in (retry, renamed, ""):
        again = await draft("2026-06-30", system, user, tried_sql=(first.sql,))
        assert again.sql == "" and again.missing_info == "no other reading of the question"
    # SQL listed in the prompt but not in the facts is not taken as tried.
    assert (await draft("2026-06-30", system, retry)).sql == first.sql


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
        hints = ModelHints(message="qual o status da nota?", can_ask=can_ask)
        return await meter("2026-06-30").structured(model, "augmenter", Augmented, message, hints)

    asks, may_not = await augmented(True), await augmented(False)
    assert asks.clarifying_question
    assert not may_not.clarifying_question
