"""A public schema with tenants, taken as a company would: Chinook, whose support reps own
their customers (`customer.support_rep_id`), whose invoices and invoice lines follow. `init
--tenant-column support_rep_id` with no hand edits, `catalog check`, `db policies --apply`,
then `ask` and the HTTP server over a socket with the default (offline) model: each rep reads
their own customers' rows, through the guard and through the database alone."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import pytest

from orquestra.core.database import embedded_server
from orquestra.core.settings import Settings
from orquestra.ddl_catalog import load_catalog
from orquestra.server.auth import mint_token
from tests.e2e.conftest import Server, imported_deployment, start_server, stream
from tests.e2e.conftest import orquestra_cli as orquestra
from tests.schemas import load_schema

REPS = ("3", "4", "5")


@pytest.fixture(scope="module")
async def chinook_url(settings: Settings) -> str:
    server_url = embedded_server(settings.data_dir).get_uri()  # type: ignore[attr-defined]
    url, _ = await load_schema(server_url, "chinook", "tenants_chinook")
    return url


@pytest.fixture(scope="module")
def environment(chinook_url: str, data_dir: Path, tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("chinook") / "deployment"
    return imported_deployment(chinook_url, data_dir, folder, "--tenant-column", "support_rep_id")


@pytest.fixture(scope="module")
def server(environment: dict[str, str], data_dir: Path) -> Iterator[Server]:
    running = start_server(data_dir, **environment)
    yield running
    running.stop()


async def owned(url: str, sql: str, rep: str) -> int:
    conn = await asyncpg.connect(url)
    try:
        return int(await conn.fetchval(sql, int(rep)))
    finally:
        await conn.close()


def test_init_proposes_the_reps_chain_and_shares_the_catalogue(
    environment: dict[str, str],
) -> None:
    catalog = load_catalog(Path(environment["ORQUESTRA_DEPLOYMENT"]) / "catalog")
    assert catalog.table("customer").tenant_column == "support_rep_id"
    assert catalog.table("invoice").tenant_via.parent == "customer"
    assert catalog.table("invoice_line").tenant_via.parent == "invoice"
    for shared in ("track", "album", "artist", "genre", "media_type", "playlist"):
        assert catalog.table(shared).shared, shared


async def test_each_rep_counts_their_own_customers_invoices(
    environment: dict[str, str], chinook_url: str
) -> None:
    seen = set()
    for rep in REPS:
        answered = orquestra(environment, "ask", "--json", "--tenant", rep, "how many invoices?")
        assert answered.returncode == 0, answered.stderr
        events = [json.loads(line) for line in answered.stdout.splitlines() if line.strip()]
        result = next(e["data"] for e in events if e["event"] == "result")
        expected = await owned(
            chinook_url,
            "SELECT count(*) FROM invoice i JOIN customer c USING (customer_id)"
            " WHERE c.support_rep_id = $1",
            rep,
        )
        assert result["rows"] == [[expected]], (rep, result)
        seen.add(expected)
    assert len(seen) == len(REPS)  # the reps' books differ: the filter did something
    missing = orquestra(environment, "ask", "how many invoices?")
    assert missing.returncode == 2 and "error [TENANT_REQUIRED]" in missing.stderr


async def test_the_database_alone_holds_each_rep_to_their_rows(
    environment: dict[str, str], chinook_url: str
) -> None:
    """Layer 3 alone (`sql --raw` skips the guard): a line of another rep's invoice is
    invisible to the agent role."""
    total = await owned(chinook_url, "SELECT count(*) FROM invoice_line WHERE $1 > 0", "1")
    for rep in REPS:
        raw = orquestra(
            environment,
            "sql",
            "--raw",
            "--json",
            "--tenant",
            rep,
            "SELECT count(*) FROM invoice_line",
        )
        assert raw.returncode == 0, raw.stderr
        mine = json.loads(raw.stdout)["rows"][0][0]
        expected = await owned(
            chinook_url,
            "SELECT count(*) FROM invoice_line l JOIN invoice i USING (invoice_id)"
            " JOIN customer c USING (customer_id) WHERE c.support_rep_id = $1",
            rep,
        )
        assert mine == expected < total


async def test_a_customers_name_is_found_in_the_owning_reps_rows_only(
    environment: dict[str, str], chinook_url: str
) -> None:
    """`catalog select --data` looks names up as a turn does: the rep owning a customer
    finds its name (and selection brings the customer table); another rep finds nothing."""
    conn = await asyncpg.connect(chinook_url)
    try:
        row = await conn.fetchrow(
            "SELECT first_name, last_name, support_rep_id::text AS rep FROM customer"
            " WHERE support_rep_id::text = ANY($1::text[]) ORDER BY customer_id LIMIT 1",
            list(REPS),
        )
    finally:
        await conn.close()
    question = f"Which invoices did {row['first_name']} {row['last_name']} get?"
    other = next(rep for rep in REPS if rep != row["rep"])
    reasons = {}
    for rep in (row["rep"], other):
        chosen = orquestra(
            environment, "catalog", "select", "--data", "--json", "--tenant", rep, question
        )
        assert chosen.returncode == 0, chosen.stderr
        reasons[rep] = json.loads(chosen.stdout)["reasons"]
    owner = reasons[row["rep"]]["customer"]
    assert owner["chosen_for"] == "value"
    assert f"first_name = {row['first_name']}" in owner["values"][0]
    assert not any(r.get("values") for r in reasons[other].values())
    assert row["last_name"] not in json.dumps(reasons[other])


def test_a_title_found_in_the_data_answers_with_the_default_model(server: Server) -> None:
    """A shared table's row named by its own title ("Let There Be Rock"), which the catalog
    cannot list, read by the offline model as that column's value."""
    question = "Who recorded the album Let There Be Rock?"
    events = stream(server.url, question, bearer=mint_token(Settings(), REPS[0]))
    result = next(e["data"] for e in events if e["event"] == "result")
    assert "'Let There Be Rock'" in result["sql"]
    assert any("AC/DC" in map(str, r) for r in result["rows"]), result["rows"]


def test_the_server_streams_each_reps_own_answer(server: Server, chinook_url: str) -> None:
    answers = {}
    for rep in REPS:
        events = stream(
            server.url, "how many customers are there?", bearer=mint_token(Settings(), rep)
        )
        answers[rep] = next(e["data"] for e in events if e["event"] == "result")["rows"]
    assert len({json.dumps(rows) for rows in answers.values()}) == len(REPS), answers
