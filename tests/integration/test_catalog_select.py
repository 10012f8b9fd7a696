"""`orquestra catalog select` in a separate process: the tables chosen for each question and
why, on the demo deployment and on a deployment `init` wrote for a public schema whose
foreign keys were dropped (its joins proposed from the data)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from orquestra.core.database import embedded_server
from orquestra.core.settings import Settings
from tests.schemas import load_schema

ORQUESTRA = str(Path(sys.executable).parent / "orquestra")
REPO = Path(__file__).resolve().parents[2]


def orquestra(
    data_dir: Path, *args: str, stdin: str | None = None, url: str | None = None
) -> subprocess.CompletedProcess:
    environment = {**os.environ, "ORQUESTRA_DATA_DIR": str(data_dir)}
    if url:
        environment["DATABASE_URL"] = url
    return subprocess.run(
        [ORQUESTRA, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=environment,
        cwd=REPO,
        timeout=300,
    )


URLS: dict[Path, str] = {}
"""Each imported deployment's database."""


def load_schema_url(folder: Path) -> str:
    return URLS[folder]


@pytest.fixture(scope="module")
async def northwind(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A deployment `init` wrote for Northwind without its foreign keys, no tenants."""
    server = embedded_server(settings.data_dir).get_uri()  # type: ignore[attr-defined]
    url, _ = await load_schema(server, "northwind", "select_northwind", foreign_keys=False)
    folder = tmp_path_factory.mktemp("imported") / "northwind"
    made = orquestra(
        settings.data_dir, "init", str(folder), "--schema", "public", "--no-tenancy", url=url
    )
    assert made.returncode == 0, made.stdout + made.stderr
    applied = orquestra(
        settings.data_dir, "--deployment", str(folder), "db", "policies", "--apply", url=url
    )
    assert applied.returncode == 0, applied.stdout + applied.stderr
    URLS[folder] = url
    return folder


def test_the_demo_question_shows_the_table_between(settings: Settings) -> None:
    result = orquestra(settings.data_dir, "catalog", "select", "itens por cliente")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "question: itens por cliente"
    assert lines[1] == "  tables: clientes, produtos, pedidos, itens_pedido"
    joined = next(line for line in lines if line.strip().startswith("pedidos "))
    assert "join: " in joined and " → pedidos → " in joined  # the path that brought it
    assert "not chosen (best scored):" in result.stdout


def test_questions_on_stdin_give_one_json_object_each(settings: Settings) -> None:
    questions = "clientes com títulos vencidos\n\nwhich carrier has the most late shipments?\n"
    result = orquestra(settings.data_dir, "catalog", "select", "--json", stdin=questions)
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["question"] for r in records] == [
        "clientes com títulos vencidos",
        "which carrier has the most late shipments?",
    ]
    first = records[0]
    assert {"clientes", "titulos"} <= set(first["tables"]) == set(first["reasons"])
    assert first["reasons"]["clientes"]["chosen_for"] == "named"
    assert isinstance(first["reasons"]["clientes"]["similarity"], float)
    assert all({"table", "score", "similarity"} <= set(o) for o in first["not_chosen"])


def test_no_question_is_a_named_error(settings: Settings) -> None:
    result = orquestra(settings.data_dir, "catalog", "select", stdin="")
    assert result.returncode == 2
    assert "error [QUESTION_REQUIRED]" in result.stderr
    assert "Traceback" not in result.stderr


def test_an_imported_deployment_connects_through_tables_never_named(
    northwind: Path, settings: Settings
) -> None:
    result = orquestra(
        settings.data_dir,
        "--deployment",
        str(northwind),
        "catalog",
        "select",
        "--json",
        "Revenue by category in 1997",
        "Quantos clientes temos na Alemanha?",
    )
    assert result.returncode == 0, result.stderr
    revenue, customers = (json.loads(line) for line in result.stdout.splitlines())
    assert set(revenue["tables"]) == {"categories", "products", "order_details", "orders"}
    reasons = revenue["reasons"]
    assert reasons["categories"]["chosen_for"] == "named"
    assert reasons["order_details"]["chosen_for"] == "measure"  # "revenue": the sales' table
    assert reasons["orders"]["chosen_for"] == "date"  # "1997": its dates, nearest by joins
    assert reasons["products"]["chosen_for"] == "join"
    assert reasons["products"]["path"] == ["categories", "products", "order_details"]
    assert customers["tables"] == ["customers"]  # Portuguese words read by their meaning
    (value,) = customers["reasons"]["customers"]["values"]
    assert value.startswith("customers.country = Germany (Alemanha ~ Germany (0.9")


def test_a_word_the_embeddings_miss_is_read_by_the_dictionary_and_a_name_in_the_data(
    northwind: Path, settings: Settings
) -> None:
    """ "funcionário" is too far from "employee" for the shipped embeddings; the languages'
    dictionary reads it. "Tokyo Traders" is no word of the catalog: `--data` finds it in the
    suppliers' names (a deployment without tenants: no `--tenant`)."""
    url = load_schema_url(northwind)
    result = orquestra(
        settings.data_dir,
        "--deployment",
        str(northwind),
        "catalog",
        "select",
        "--json",
        "--data",
        "Quantos territórios cada funcionário cobre?",
        "What products do we buy from Tokyo Traders?",
        url=url,
    )
    assert result.returncode == 0, result.stderr
    territories, traders = (json.loads(line) for line in result.stdout.splitlines())
    assert "employees" in territories["tables"]
    employees = territories["reasons"]["employees"]
    assert "funcionário = employee (dictionary)" in json.dumps(employees, ensure_ascii=False)
    assert traders["reasons"]["suppliers"]["chosen_for"] == "value"
    assert traders["reasons"]["suppliers"]["values"] == [
        "company_name = Tokyo Traders (Tokyo Traders)"
    ]
