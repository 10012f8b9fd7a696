"""The learning loop over a real server and the browser, with the default (offline) model, on
Chinook whose support reps are the tenants: a rep asks what the model cannot answer and rates
it down; a reviewer of that rep corrects the SQL on the review page and approves it (the rows
show); the next question that means the same, about another customer, is answered from the
reviewed example — for that rep, and for another rep with their own customer — while the other
rep's reviewer never sees the first rep's queue. Then the command line exports the approval
as an evaluation case and reverts it, and the next answer no longer uses it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from orquestra.core.database import embedded_server
from orquestra.core.settings import Settings
from orquestra.server.auth import mint_token
from tests.e2e.conftest import Server, imported_deployment, start_server, stream
from tests.e2e.conftest import orquestra_cli as orquestra
from tests.schemas import load_schema

REP = "5"
ASKED = "When was Luis Rojas's last purchase?"
CORRECTED = (
    "SELECT max(i.invoice_date) AS last_purchase FROM invoice i JOIN customer c"
    " ON c.customer_id = i.customer_id WHERE c.first_name = 'Luis' AND c.last_name = 'Rojas'"
)
SAME_MEANING = "When was {first} {last}'s last purchase?"
LAST_PURCHASE = (
    "SELECT max(i.invoice_date)::date::text FROM invoice i JOIN customer c USING (customer_id)"
    " WHERE c.first_name = $1 AND c.last_name = $2"
)


@pytest.fixture(scope="module")
async def chinook_url(settings: Settings) -> str:
    server_url = embedded_server(settings.data_dir).get_uri()  # type: ignore[attr-defined]
    url, _ = await load_schema(server_url, "chinook", "review_chinook")
    return url


@pytest.fixture(scope="module")
def environment(chinook_url: str, data_dir: Path, tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("review") / "chinook"
    return imported_deployment(chinook_url, data_dir, folder, "--tenant-column", "support_rep_id")


@pytest.fixture(scope="module")
def server(environment: dict[str, str], data_dir: Path) -> Iterator[Server]:
    running = start_server(data_dir, **environment)
    yield running
    running.stop()


async def a_customer_of(url: str, rep: str) -> tuple[str, str, str]:
    """A customer of `rep` (not Luis Rojas) found by first and last name alone: the names,
    and the day of their last purchase."""
    conn = await asyncpg.connect(url)
    try:
        first, last = await conn.fetchrow(
            "SELECT first_name, last_name FROM customer c"
            " WHERE support_rep_id = $1 AND first_name ~ '^[A-Z][a-z]+$' AND first_name <> 'Luis'"
            " AND last_name ~ '^[A-Z][a-z]+$' AND NOT EXISTS (SELECT 1 FROM customer o"
            " WHERE o.customer_id <> c.customer_id AND (o.first_name = c.first_name"
            " OR o.last_name = c.last_name)) ORDER BY customer_id LIMIT 1",
            int(rep),
        )
        day = await conn.fetchval(LAST_PURCHASE, first, last)
    finally:
        await conn.close()
    return first, last, day


@pytest.fixture(scope="module")
async def customers(chinook_url: str) -> dict[str, tuple[str, str, str]]:
    """Per rep (the asking one and another): a customer of theirs and its last purchase."""
    return {rep: await a_customer_of(chinook_url, rep) for rep in (REP, "4")}


def sign_in(page: Page, url: str, bearer: str) -> None:
    page.goto(url)
    page.evaluate("sessionStorage.clear()")
    page.goto(url)
    page.wait_for_selector("#token-form:not([hidden])")
    page.fill("#bearer", bearer)
    page.click("#token-form button[type=submit]")
    page.wait_for_selector("#app:not([hidden])")


def ask(page: Page, question: str) -> str:
    answers = page.locator(".msg.bot")
    before = answers.count()
    page.fill("#question", question)
    page.click("#send")
    expect(answers).to_have_count(before + 1)
    expect(page.locator("#send")).to_be_enabled(timeout=90_000)
    expect(answers.last.locator(".rating")).to_have_count(1, timeout=30_000)
    return answers.last.inner_text()


def answer_of(url: str, question: str, bearer: str) -> dict:
    events = stream(url, question, bearer=bearer)
    return next(e["data"] for e in events if e["event"] == "result")


def test_ask_rate_review_approve_and_ask_again(
    server: Server,
    customers: dict[str, tuple[str, str, str]],
    browser: Browser,
    environment: dict[str, str],
) -> None:
    settings = Settings()
    ana = mint_token(settings, REP, "ana")
    rita = mint_token(settings, REP, "rita", ("reviewer",))
    first, last, day = customers[REP]
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        sign_in(page, server.url, ana)
        assert page.locator("#review").is_hidden()  # no reviewer role: no review page
        first_answer = ask(page, ASKED)
        assert "2025" not in first_answer  # the offline model cannot read it by itself
        bot = page.locator(".msg.bot").last
        bot.locator(".rate.down").click()
        bot.locator(".rating .comment").fill("should give the date of the last invoice")
        bot.locator(".rating button.link").click()
        # the page speaks the deployment's language (English here); answers, the question's
        expect(bot.locator(".rating .rated")).to_have_text("Thank you, rating saved.")

        sign_in(page, server.url, rita)
        expect(page.locator("#review")).to_be_visible(timeout=10_000)
        page.click("#review")
        item = page.locator(".review-item", has_text="Luis Rojas")
        expect(item).to_have_count(1)
        expect(item).to_contain_text("should give the date of the last invoice")
        item.locator(".review-sql").fill(CORRECTED)
        item.locator("button.approve").click()
        expect(item.locator(".review-out")).to_contain_text("Approved: example no.", timeout=30_000)
        expect(item.locator(".review-out td")).to_have_count(1)  # the day, as the rep sees it

        sign_in(page, server.url, ana)
        again = ask(page, SAME_MEANING.format(first=first, last=last))
        assert "I answered from a reviewed example" in again
    finally:
        context.close()
    mine = answer_of(server.url, SAME_MEANING.format(first=first, last=last), ana)
    assert str(mine["rows"][0][0]).startswith(day)

    # Another rep: the same question about their own customer, answered from the template.
    other_first, other_last, other_day = customers["4"]
    bia = mint_token(settings, "4", "bia")
    theirs = answer_of(server.url, SAME_MEANING.format(first=other_first, last=other_last), bia)
    assert str(theirs["rows"][0][0]).startswith(other_day)
    assert "reviewed example" in theirs["answer"]
    rojas = answer_of(server.url, ASKED, bia)  # rep 5's customer: not rep 4's to see
    assert day not in json.dumps(rojas) and "Rojas" not in json.dumps(rojas.get("rows"))
    their_reviewer = mint_token(settings, "4", "rui", ("reviewer",))
    for status in ("pending", "approved"):
        queue = httpx.get(
            f"{server.url}/v1/review?status={status}",
            headers={"Authorization": f"Bearer {their_reviewer}"},
        )
        assert queue.status_code == 200
        # their own rep's turns only (bia asked about Luis Rojas too): none of rep 5's
        assert {t["user_id"] for t in queue.json()["turns"]} <= {"bia"}, queue.text
    refused = httpx.get(f"{server.url}/v1/review", headers={"Authorization": f"Bearer {bia}"})
    assert refused.status_code == 403 and refused.json()["code"] == "NOT_A_REVIEWER"

    # The owner's command line: the approval as an evaluation case, then reverted.
    listed = orquestra(environment, "review", "list", "--status", "approved", "--json")
    approved = [json.loads(line) for line in listed.stdout.splitlines() if line.strip()]
    assert [t["question"] for t in approved] == [ASKED]
    cases = Path(environment["ORQUESTRA_DEPLOYMENT"]).parent / "reviewed.jsonl"
    exported = orquestra(environment, "review", "export", "--eval", str(cases))
    assert exported.returncode == 0, exported.stderr
    (case,) = [json.loads(line) for line in cases.read_text().splitlines()]
    assert case["gold_sql"] == CORRECTED and case["tenant"] == REP
    reverted = orquestra(environment, "review", "revert", str(approved[0]["id"]), "--by", "owner")
    assert reverted.returncode == 0, reverted.stderr
    after = answer_of(server.url, SAME_MEANING.format(first=first, last=last), ana)
    assert "reviewed example" not in after["answer"]
    metrics = httpx.get(server.metrics_url).text
    assert 'orquestra_feedback_total{rating="down",route="analytics"}' in metrics


def test_feedback_is_the_askers_own_and_bad_input_gets_a_code(server: Server) -> None:
    settings = Settings()
    ana, bia = mint_token(settings, REP, "ana"), mint_token(settings, REP, "bia")
    events = stream(server.url, "how many customers do I have?", bearer=ana)
    run = next(e["data"] for e in events if e["event"] == "run")
    url = f"{server.url}/v1/threads/{run['thread_id']}/feedback"

    def rate(bearer: str, **body: object) -> httpx.Response:
        return httpx.post(url, json=body, headers={"Authorization": f"Bearer {bearer}"})

    first = rate(ana, run_id=run["run_id"], rating="up")
    assert first.status_code == 200 and first.json()["queued"] is True
    again = rate(ana, run_id=run["run_id"], rating="down", comment="it was per country")
    assert again.status_code == 200  # the last rating counts
    not_hers = rate(bia, run_id=run["run_id"], rating="down")  # same tenant, another person
    assert not_hers.status_code == 404 and not_hers.json()["code"] == "TURN_NOT_FOUND"
    for body, code in (
        ({"run_id": run["run_id"], "rating": "meh"}, "INVALID_REQUEST"),
        ({"run_id": run["run_id"], "rating": "up", "comment": "a\x00b"}, "INVALID_TEXT"),
        ({"run_id": run["run_id"], "rating": "up", "comment": "x" * 2001}, "INVALID_REQUEST"),
        ({"rating": "up"}, "INVALID_REQUEST"),
    ):
        refused = rate(ana, **body)
        assert refused.status_code == 422 and refused.json()["code"] == code, refused.text
    unknown = httpx.post(
        f"{server.url}/v1/threads/no-such-thread/feedback",
        json={"run_id": run["run_id"], "rating": "up"},
        headers={"Authorization": f"Bearer {ana}"},
    )
    assert unknown.status_code == 404
    assert httpx.get(f"{server.url}/healthz").status_code == 200
