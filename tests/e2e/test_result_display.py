"""Answers that look right, read off the page of a real browser (Debian's Chromium through
Playwright) talking to a real server over a socket.

A monthly series has one axis tick per month, written as the period ("06/2026", "Q2 2026")
in the deployment's time zone — in the chart (its SVG), the table and the cards; table cells
are money in the profile's currency and the turn's locale, right-aligned, and sorting still
orders by the raw values; card labels are the deployment's words ("Faturamento", "Valor
vencido", "Revenue" for an English question), and a top 5's total says it is of the five; one
number is shown once (its card, no one-row table) and one row is "1 linha"; the page says which
model answered. The default offline model answers the first case; the
scripted model gives the others a fixed SQL, in English and Portuguese.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import yaml
from playwright.sync_api import Browser, Locator, Page

from tests.e2e.conftest import Server, start_server, stream, token
from tests.e2e.pages import WATCH_POLICY, ask

ZONE = ZoneInfo("America/Sao_Paulo")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
QUARTERLY = (
    "SELECT date_trunc('quarter', data_emissao) AS trimestre, count(*) AS notas, "
    "sum(valor_nota) AS faturamento "
    "FROM notas_fiscais WHERE status = 'AUTORIZADA' GROUP BY 1 ORDER BY 1"
)
TOP_OVERDUE = (
    "SELECT c.nome, count(*) AS titulos, sum(t.valor) AS valor_vencido "
    "FROM titulos t JOIN clientes c ON c.cod_cliente = t.cod_cliente "
    "WHERE t.status = 'VENCIDO' GROUP BY c.nome ORDER BY valor_vencido DESC LIMIT 5"
)


def turn(question: str, sql: str, lang: str) -> dict[str, list]:
    return {
        "augmenter": [
            {"question": question, "is_data_question": True, "missing": [], "lang": lang}
        ],
        "router": [{"route": "ANALYTICS", "wants_knowledge": False, "reason": "test"}],
        "sql_writer": [{"thought_process": "scripted", "sql": sql, "confidence": 0.9}],
        "answer": ["Here it is." if lang == "en" else "Aqui está."],
    }


@pytest.fixture(scope="module")
def scripted_server(
    data_dir: Path, demo_db, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    """The demo's server with the dev login, every role played by a script: a quarterly
    series asked in English, then a top 5 in Portuguese."""
    quarterly = turn("revenue by quarter", QUARTERLY, "en")
    top = turn("os 5 clientes com mais valor vencido", TOP_OVERDUE, "pt")
    script = tmp_path_factory.mktemp("display") / "script.yaml"
    script.write_text(yaml.safe_dump({"roles": {r: quarterly[r] + top[r] for r in quarterly}}))
    running = start_server(
        data_dir, args=("--dev-login",), ORQUESTRA_MODELS__DEFAULT=f"scripted:{script}"
    )
    yield running
    running.stop()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A page watched for what its Content-Security-Policy refuses: nothing, by the end (the
    SVG chart included)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    opened.add_init_script(WATCH_POLICY)
    yield opened
    assert opened.evaluate("window.__refused") == []
    context.close()


def enter(page: Page, server: Server, tenant: str = "101") -> None:
    page.goto(server.url)
    page.select_option("#tenant", tenant)
    page.click("#login-form button")
    page.wait_for_selector("#app:not([hidden])")


def x_ticks(bot: Locator) -> list[str]:
    """The chart's x-axis tick labels, as the SVG draws them."""
    axis = bot.locator('.chart svg g[aria-roledescription="axis"][aria-label^="X-axis"]')
    return [text.strip() for text in axis.locator(".role-axis-label text").all_text_contents()]


def column(bot: Locator, index: int) -> list[str]:
    cells = bot.locator(f"table tbody tr td:nth-child({index + 1})").all_text_contents()
    return [cell.replace("\xa0", " ") for cell in cells]


def right_aligned(bot: Locator, index: int) -> bool:
    cell = bot.locator(f"table tbody tr td:nth-child({index + 1})").first
    return cell.evaluate("(td) => getComputedStyle(td).textAlign") == "right"


def local(value: str) -> datetime:
    return datetime.fromisoformat(value).astimezone(ZONE)


def brl(value: float, lang: str) -> str:
    """BRL as Intl writes it: "R$ 1.234,56" (pt-BR), "R$1,234.56" (en-US)."""
    text = f"{value:,.2f}"
    if lang == "en":
        return f"R${text}"
    return "R$ " + text.replace(",", "X").replace(".", ",").replace("X", ".")


def test_a_monthly_series_from_the_offline_model(page: Page, demo_server: Server) -> None:
    question = "faturamento por mês em 2026"
    events = stream(demo_server.url, question, bearer=token("101"))
    rows = next(e["data"] for e in events if e["event"] == "result")["rows"]
    months = [local(row[0]).strftime("%m/%Y") for row in rows]
    assert months == [f"{m:02d}/2026" for m in range(1, 7)]
    enter(page, demo_server)
    bot = ask(page, question)
    assert x_ticks(bot) == months  # one tick per month, none between
    assert bot.locator("table thead th").all_text_contents() == ["Mês", "Faturamento"]
    assert column(bot, 0) == months  # the period, not "01/06/2026, 03:00:00"
    assert column(bot, 1) == [brl(row[1], "pt") for row in rows]
    assert right_aligned(bot, 1) and not right_aligned(bot, 0)
    bot.locator("table thead th").nth(1).click()  # sorted by the raw values, not the text
    by_value = sorted(rows, key=lambda row: row[1], reverse=True)
    assert column(bot, 1) == [brl(row[1], "pt") for row in by_value]
    assert bot.locator(".kpi .label").all_text_contents() == ["Faturamento"]
    assert bot.locator(".kpi .period").all_text_contents() == ["06/2026"]
    assert bot.locator(".kpi .value").inner_text().replace("\xa0", " ") == brl(rows[-1][1], "pt")
    bot.screenshot(path=str(ARTIFACTS / "result-display-monthly.png"))
    note = bot.locator(".model")
    assert note.get_attribute("data-model") == "offline"
    assert "modelo offline" in note.inner_text() and "contagens" in note.inner_text()

    # one number is shown once: its card, not again a one-row table of the same figure
    bot = ask(page, "quantas notas foram emitidas em 2026?")
    assert bot.locator(".kpi").count() == 1 and bot.locator("table").count() == 0
    # a row that also holds words is its table alone, and one row is "1 linha"
    bot = ask(page, "status da nota 40908")
    assert bot.locator(".kpi").count() == 0 and bot.locator("table tbody tr").count() == 1
    assert bot.locator(".note").inner_text() == "1 linha"

    # a ratio metric reads as a percentage: "98,6%", not "0,99"
    bot = ask(page, "OTIF por transportadora em 2026")
    shares = column(bot, 1)
    assert shares and all(re.fullmatch(r"\d{1,3}(,\d)?\s?%", cell) for cell in shares), shares
    assert right_aligned(bot, 1)


def test_an_english_question_to_the_offline_model(page: Page, demo_server: Server) -> None:
    page.goto(demo_server.url)
    page.evaluate("localStorage.setItem('lang', 'en')")
    enter(page, demo_server)
    bot = ask(page, "revenue by month in 2026")
    months = [f"{month} 2026" for month in ("Jan", "Feb", "Mar", "Apr", "May", "Jun")]
    assert x_ticks(bot) == months and column(bot, 0) == months
    assert bot.locator("table thead th").all_text_contents() == ["Month", "Revenue"]
    assert all(re.fullmatch(r"R\$\d{1,3}(,\d{3})*\.\d{2}", cell) for cell in column(bot, 1))
    assert bot.locator(".kpi .label").all_text_contents() == ["Revenue"]
    assert bot.locator(".kpi .period").all_text_contents() == ["Jun 2026"]
    note = bot.locator(".model").inner_text()
    assert note.startswith("Answered by: offline model") and "counts" in note

    # an average's alias and a related table's name column, in English words
    bot = ask(page, "average freight cost by carrier in 2026")
    headers = bot.locator("table thead th").all_text_contents()
    assert headers == ["Carrier", "Average freight cost"], headers  # the question's words


def test_english_periods_and_a_top_five(page: Page, scripted_server: Server) -> None:
    enter(page, scripted_server)
    bot = ask(page, "revenue by quarter")
    headers = bot.locator("table thead th").all_text_contents()
    assert headers[0] == "Quarter" and headers[2] == "Revenue"
    quarters = column(bot, 0)
    assert quarters[-1] == "Q2 2026" and all(re.fullmatch(r"Q[1-4] 20\d\d", q) for q in quarters)
    assert x_ticks(bot) == quarters
    counts = column(bot, 1)  # thousands separators, English style
    assert all(re.fullmatch(r"\d{1,3}(,\d{3})*", cell) for cell in counts), counts
    assert right_aligned(bot, 1)
    assert all(re.fullmatch(r"R\$\d{1,3}(,\d{3})*\.\d{2}", cell) for cell in column(bot, 2))
    assert bot.locator(".kpi .label").all_text_contents() == ["Revenue"]
    assert bot.locator(".kpi .period").all_text_contents() == ["Q2 2026"]
    assert bot.locator(".model").get_attribute("data-model") == "scripted"

    bot = ask(page, "os 5 clientes com mais valor vencido")
    headers = bot.locator("table thead th").all_text_contents()
    assert headers[2] == "Valor vencido"
    money = column(bot, 2)
    assert len(money) == 5
    assert all(re.fullmatch(r"R\$ \d{1,3}(\.\d{3})*,\d{2}", cell) for cell in money)
    assert right_aligned(bot, 1) and right_aligned(bot, 2) and not right_aligned(bot, 0)
    assert bot.locator(".kpi .label").all_text_contents() == ["Valor vencido (soma dos 5 listados)"]
    bars = bot.locator('.chart svg g[aria-roledescription="axis"][aria-label^="Y-axis"]')
    drawn = [t.strip() for t in bars.locator(".role-axis-label text").all_text_contents()]
    assert len(drawn) == 5 and all(  # Vega shortens a long name to its label limit, with "…"
        any(name == label or name.startswith(label.rstrip("…")) for name in column(bot, 0))
        for label in drawn
    )
    bot.screenshot(path=str(ARTIFACTS / "result-display-top5.png"))
