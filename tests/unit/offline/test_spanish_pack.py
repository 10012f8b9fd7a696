"""A third language as data only: the Spanish proof pack (`offline/lang/es/`), read when
`ORQUESTRA_OFFLINE_LANGUAGES` names it, on a handful of questions over the logistics catalog
(whose own words are Portuguese: a Spanish deployment would add Spanish synonyms to its
catalog). The languages are read at import, so each check runs in a fresh interpreter."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

READ = """
import json, sys
from datetime import date
from orquestra.core.deployment import load_deployment
from orquestra.ddl_catalog import load_catalog
from orquestra.offline.conversation import route
from orquestra.offline.lexicon import lexicon_for
from orquestra.offline.parser import parse
from orquestra.offline.sql import build_sql
catalog = load_catalog(load_deployment("logistics").catalog_dir)
lexicon, today = lexicon_for(catalog), date(2026, 6, 30)
out = {}
for question in json.loads(sys.argv[1]):
    intent = parse(question, catalog, lexicon, today)
    out[question] = {
        "route": str(route(question, catalog, lexicon, today)["route"]),
        "sql": " ".join(build_sql(intent, catalog, today.isoformat()).split()),
    }
print(json.dumps(out))
"""


def _read(languages: str | None, questions: list[str]) -> dict[str, dict[str, str]]:
    env = {k: v for k, v in os.environ.items() if k != "ORQUESTRA_OFFLINE_LANGUAGES"}
    if languages is not None:
        env["ORQUESTRA_OFFLINE_LANGUAGES"] = languages
    done = subprocess.run(
        [sys.executable, "-c", READ, json.dumps(questions)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    return dict(json.loads(done.stdout))


@pytest.fixture(scope="module")
def spanish() -> dict[str, dict[str, str]]:
    return _read(
        "es,en",
        [
            "¿cuántos pedidos cancelados hubo en 2025?",
            "valor total de los pedidos del mes pasado",
            "estado de la nota 40908",
            "pedidos por canal en mayo",
        ],
    )


def test_a_count_with_a_state_and_a_year(spanish: dict[str, dict[str, str]]) -> None:
    sql = spanish["¿cuántos pedidos cancelados hubo en 2025?"]["sql"]
    assert "count(*) AS cantidad" in sql  # the result named in the pack's words
    assert "p.status = 'CANCELADO'" in sql
    assert "DATE '2025-01-01'" in sql and "DATE '2026-01-01'" in sql


def test_a_total_over_last_month(spanish: dict[str, dict[str, str]]) -> None:
    sql = spanish["valor total de los pedidos del mes pasado"]["sql"]
    assert sql.startswith("SELECT sum(p.valor_total)")
    assert "DATE '2026-05-01'" in sql and "DATE '2026-06-01'" in sql  # "mes pasado"
    assert "status" not in sql


def test_the_state_of_one_row(spanish: dict[str, dict[str, str]]) -> None:
    read = spanish["estado de la nota 40908"]
    assert read["route"] == "TRACKING"
    assert "num_nota = 40908" in read["sql"]


def test_a_grouping_in_a_month_named_in_spanish(spanish: dict[str, dict[str, str]]) -> None:
    sql = spanish["pedidos por canal en mayo"]["sql"]
    assert "p.canal" in sql and "GROUP BY" in sql
    assert "DATE '2026-05-01'" in sql  # "mayo"


def test_portuguese_is_not_read_as_spanish_by_default() -> None:
    """Spanish "no" is "not"; Portuguese "no" is "in the": the default reads pt and en only."""
    question = "quantos pedidos no mês passado?"
    sql = _read(None, [question])[question]["sql"]
    assert "DATE '2026-05-01'" in sql and "<>" not in sql and "NOT" not in sql


def test_a_language_without_data_is_a_clear_error() -> None:
    with pytest.raises(subprocess.CalledProcessError) as failed:
        _read("xx", ["status da nota 1"])
    assert "ORQUESTRA_OFFLINE_LANGUAGES names xx" in failed.value.stderr


def test_languages_without_a_word_the_model_writes_are_a_clear_error() -> None:
    """Spanish alone has no word for what "leaving out" is read as (English has): said at
    start, with the concept and the languages read, not an index error."""
    with pytest.raises(subprocess.CalledProcessError) as failed:
        _read("es", ["status da nota 1"])
    assert "none of the languages read (es) has a word for 'left_out_read_as'" in (
        failed.value.stderr
    )
