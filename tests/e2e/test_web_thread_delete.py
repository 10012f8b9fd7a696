"""Deleting a conversation in the web chat, in Debian's Chromium through Playwright: each
thread in the list has a delete button; it asks first (cancelling keeps the thread), then
the thread leaves the list, the open conversation is closed, and the server has nothing of
it left. The server has a state database of its own, so no other test's threads are seen."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import asyncpg
import pytest
from playwright.sync_api import Browser, Dialog, Page, expect

from orquestra.core.database import admin_url
from orquestra.core.settings import Settings
from orquestra.graph.checkpoints import SCHEMA
from tests.databases import fresh_database
from tests.e2e.conftest import Server, start_server
from tests.e2e.pages import WATCH_POLICY, ask

T = TypeVar("T")
QUESTIONS = ("status da nota 40908", "faturamento por mês em 2026")


def on_its_own_loop(work: Coroutine[Any, Any, T]) -> T:
    """`work` run on a thread of its own: Playwright's sync API keeps a loop on this one."""
    with ThreadPoolExecutor(max_workers=1) as thread:
        return thread.submit(asyncio.run, work).result()


@pytest.fixture(scope="module")
def state_url(data_dir: Path, demo_db: object) -> str:
    server = admin_url(Settings(data_dir=data_dir))
    return on_its_own_loop(fresh_database(server, "orquestra_web_delete_state"))


@pytest.fixture(scope="module")
def chat(data_dir: Path, state_url: str) -> Iterator[Server]:
    running = start_server(
        data_dir,
        args=("--dev-login",),
        ORQUESTRA_STATE_URL=state_url,
        ORQUESTRA_THREAD_PRUNE_INTERVAL_S="0",
    )
    yield running
    running.stop()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    opened.add_init_script(WATCH_POLICY)
    yield opened
    assert opened.evaluate("window.__refused") == []
    context.close()


def checkpoints_of(state_url: str, thread: str) -> int:
    async def count() -> int:
        conn = await asyncpg.connect(state_url)
        try:
            found = await conn.fetchval(
                f"SELECT count(*) FROM {SCHEMA}.checkpoints WHERE thread_id = $1", thread
            )
            return int(found)
        finally:
            await conn.close()

    return on_its_own_loop(count())


def test_a_conversation_is_deleted_from_the_list(page: Page, chat: Server, state_url: str) -> None:
    page.goto(chat.url)
    page.select_option("#tenant", "101")
    page.click("#login-form button")
    page.wait_for_selector("#app:not([hidden])")
    ask(page, QUESTIONS[0])
    page.click("#new-thread")
    ask(page, QUESTIONS[1])
    rows = page.locator("#threads .thread")
    expect(rows).to_have_count(2)
    newest = rows.first  # the open conversation, newest first
    expect(newest.locator("button").first).to_have_text(QUESTIONS[1])
    thread = newest.locator("button").first.get_attribute("data-thread")
    assert thread and checkpoints_of(state_url, thread) > 0

    asked: list[str] = []

    def cancel(dialog: Dialog) -> None:
        asked.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", cancel)
    newest.locator(".delete").click()
    expect(rows).to_have_count(2)  # cancelled: nothing happened
    assert asked and QUESTIONS[1] in asked[0]
    assert checkpoints_of(state_url, thread) > 0

    page.once("dialog", lambda dialog: dialog.accept())
    newest.locator(".delete").click()
    expect(rows).to_have_count(1)
    expect(rows.first.locator("button").first).to_have_text(QUESTIONS[0])
    expect(page.locator("#messages .msg")).to_have_count(0)  # the open one was closed
    assert checkpoints_of(state_url, thread) == 0
    page.reload()  # the list is the server's, not the page's memory
    page.wait_for_selector("#app:not([hidden])")
    expect(page.locator("#threads .thread")).to_have_count(1)
