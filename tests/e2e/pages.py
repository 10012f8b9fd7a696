"""What the browser tests share: the page's Content-Security-Policy watched, and one question
asked in the web chat, its answer awaited as a person would see it."""

from __future__ import annotations

from playwright.sync_api import Locator, Page, expect

WATCH_POLICY = """
window.__refused = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__refused.push(`${event.effectiveDirective}: ${event.blockedURI || "inline"}`);
});
"""
"""An init script collecting what the page's Content-Security-Policy refuses, in
`window.__refused` (to be empty by the end of a test)."""


def ask(page: Page, question: str) -> Locator:
    """The bot's message once the turn is over and its chart, if any, is drawn.

    Locator waits, not `wait_for_function`: Playwright polls a function's text with `new
    Function` in the page, which the policy rightly refuses."""
    answers = page.locator(".msg.bot")
    before = answers.count()
    page.fill("#question", question)
    page.click("#send")
    expect(answers).to_have_count(before + 1)
    expect(page.locator("#send")).to_be_enabled(timeout=60_000)
    bot = answers.last
    if bot.locator(".chart").count():
        bot.locator(".chart svg .role-axis-label text").first.wait_for(timeout=20_000)
    return bot
