"""Dialect slips are repaired before the guard; valid PostgreSQL is never touched.

Every slip of the corpus (tests/integration/guards/dialect_slips.yaml) becomes PostgreSQL the
parser reads and the guard accepts; every gold SQL of the evaluation datasets, of both
deployments' examples, of the guard's equivalence queries and of the corpus comes out byte for
byte as it went in; nothing thrown at `normalise` makes it raise; the setting that lists the
dialects is checked and can turn the repair off.
"""

from __future__ import annotations

import json
from pathlib import Path

import pglast
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from orquestra.core.settings import Settings
from orquestra.ddl_catalog import load_catalog
from orquestra.deployments import DEPLOYMENTS_DIR
from orquestra.guards import GuardPolicy, guard_sql
from orquestra.guards.dialects import UnknownDialect, is_postgres, normalise, read_as
from tests.dialect_slips import DIALECTS, TENANT, DialectSlip, load_slips

REPO = Path(__file__).resolve().parents[3]
SLIPS = load_slips()


def valid_postgres() -> list[tuple[str, str]]:
    """(where, SQL) of every gold and example SQL the project ships, the guard's equivalence
    queries, and the corpus's golds."""
    found = []
    for dataset in sorted((REPO / "evals" / "datasets").glob("*/*.jsonl")):
        for line in dataset.read_text(encoding="utf-8").splitlines():
            case = json.loads(line) if line.strip() else {}
            if case.get("gold_sql"):
                where = f"{dataset.parent.name}/{dataset.name}:{case['id']}"
                found.append((where, case["gold_sql"]))
    for examples in sorted(DEPLOYMENTS_DIR.glob("*/catalog/examples.yaml")):
        for number, example in enumerate(yaml.safe_load(examples.read_text())["examples"]):
            if example.get("sql"):
                found.append((f"{examples.parent.parent.name}-example-{number}", example["sql"]))
    guard_corpora = REPO / "tests" / "integration" / "guards"
    for name in ("equivalence_queries.yaml", "clinics_equivalence_queries.yaml"):
        queries = yaml.safe_load((guard_corpora / name).read_text(encoding="utf-8"))
        found += [(f"{name}:{number}", sql) for number, sql in enumerate(queries)]
    found += [(f"gold-{slip.id}", slip.gold) for slip in SLIPS]
    return found


VALID = valid_postgres()


@pytest.fixture(scope="module")
def policy() -> GuardPolicy:
    return GuardPolicy.from_catalog(load_catalog())


def test_the_corpus_is_large_and_varied() -> None:
    assert len(SLIPS) >= 40
    assert {slip.dialect for slip in SLIPS} == set(DIALECTS)
    assert len(VALID) > 250  # the datasets and examples were found


@pytest.mark.parametrize("slip", SLIPS, ids=lambda s: s.id)
def test_every_slip_becomes_postgresql_the_guard_accepts(
    slip: DialectSlip, policy: GuardPolicy
) -> None:
    assert not is_postgres(slip.sql)  # a slip, not valid PostgreSQL by accident
    normalised = normalise(slip.sql, DIALECTS)
    assert normalised.dialect in DIALECTS
    assert normalised.sql != slip.sql
    assert len(pglast.parse_sql(normalised.sql)) == 1
    assert is_postgres(normalised.sql)
    guard_sql(normalised.sql, policy, TENANT)  # raises GuardRejection if refused


@pytest.mark.parametrize(("where", "sql"), VALID, ids=[where for where, _ in VALID])
def test_valid_postgresql_comes_out_byte_identical(where: str, sql: str) -> None:
    normalised = normalise(sql, DIALECTS)
    assert normalised.sql is sql and normalised.dialect is None


def test_an_empty_list_turns_the_repair_off() -> None:
    for slip in SLIPS:
        assert normalise(slip.sql, []).sql is slip.sql
        assert normalise(slip.sql, []).dialect is None


def test_only_the_listed_dialects_are_tried_in_order() -> None:
    backticks = "SELECT `status` FROM pedidos"
    assert normalise(backticks, ["tsql"]).dialect is None  # T-SQL cannot read backticks
    assert normalise(backticks, ["mysql"]).dialect == "mysql"
    assert normalise("SELECT TOP 2 a FROM t", ["mysql", "tsql"]).dialect == "tsql"
    assert normalise("SELECT ISNULL(a, 0) FROM t", ["cobol", "tsql"]).dialect == "tsql"


def test_foreign_constructs_that_parse_as_postgresql_are_found() -> None:
    assert not is_postgres("SELECT GETDATE()")
    assert not is_postgres("SELECT FORMAT(sent_at, 'yyyy-MM') FROM t")  # T-SQL's FORMAT
    assert not is_postgres("SELECT CAST(n AS CHAR) FROM t")  # MySQL: a string, not char(1)
    assert not is_postgres("SELECT CAST(x AS NVARCHAR(20)) FROM t")
    assert not is_postgres("SELECT a + ' - ' + b FROM t")
    assert is_postgres("SELECT format('%s-%s', a, b), CAST(n AS CHAR(1)) FROM t")
    assert is_postgres("SELECT now() + '1 day', d + '2026-01-01', n + '42' FROM t")
    assert is_postgres("SELECT s.year(1) FROM t")  # a schema's own function is not a slip


def test_read_as_transpiles_even_valid_postgresql() -> None:
    assert read_as("SELECT a FROM t", "mysql").dialect == "mysql"
    assert read_as("SELECT ISNULL(a, 0) FROM t", "tsql").sql == "SELECT COALESCE(a, 0) FROM t"
    assert read_as("SELECT TOP ((", "tsql").dialect is None  # unreadable: left as written
    with pytest.raises(UnknownDialect) as unknown:
        read_as("SELECT 1", "cobol")
    assert unknown.value.code == "DIALECT_UNKNOWN" and "tsql" in unknown.value.message


NASTY = [
    "",
    " ",
    ";",
    "((((" * 2_000,
    "SELECT " + "(" * 5_000 + "1" + ")" * 5_000,
    "SELECT 1; SELECT 2",
    "SELECT TOP 1 1; DROP TABLE x",
    "\x00SELECT",
    "SELECT 'unterminated",
    "SELECT [a FROM t",
    "SELECT `a FROM t",
    "SELECT a + FROM",
    "DELETE FROM t WHERE ISNULL(a, 0) = 1",
    "SELECT * FROM t WHERE a = 'ü' + N'ç'",
    "SELECT a + '" + " " * 20_000 + "x' FROM t",  # literals are matched in linear time
    "SELECT a + '" + "1" * 20_000 + "x' FROM t",
    "SELECT a + '" + "1:1" * 5_000 + "x' FROM t",
]


@pytest.mark.parametrize("sql", NASTY, ids=range(len(NASTY)))
def test_garbage_never_raises(sql: str) -> None:
    normalised = normalise(sql, DIALECTS)
    assert isinstance(normalised.sql, str)
    assert normalised.dialect is None or is_postgres(normalised.sql)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200) | st.from_regex(r"SELECT (TOP \d+ )?[a-z`\[\]+' ,()]{0,60}"))
def test_no_input_makes_normalise_raise(sql: str) -> None:
    normalised = normalise(sql, DIALECTS)
    assert normalised.sql == sql or is_postgres(normalised.sql)


def test_the_setting_defaults_to_tsql_then_mysql() -> None:
    assert Settings().model_sql_dialects == ["tsql", "mysql"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [("mysql", ["mysql"]), ("TSQL, mysql", ["tsql", "mysql"]), ('["mysql"]', ["mysql"]), ("", [])],
)
def test_the_setting_reads_the_environment(
    value: str, expected: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORQUESTRA_MODEL_SQL_DIALECTS", value)
    assert Settings().model_sql_dialects == expected


def test_an_unknown_dialect_is_a_clear_configuration_error() -> None:
    with pytest.raises(ValidationError) as invalid:
        Settings(model_sql_dialects=["tsql", "cobol"])
    assert "unknown SQL dialect 'cobol'" in str(invalid.value)


def test_a_deployment_profile_sets_the_dialects(tmp_path: Path) -> None:
    document = yaml.safe_load((DEPLOYMENTS_DIR / "logistics" / "profile.yaml").read_text())
    document.update(name="mysql-shop", model_sql_dialects=["mysql"])
    (tmp_path / "profile.yaml").write_text(yaml.safe_dump(document, allow_unicode=True))
    assert Settings(deployment=str(tmp_path)).model_sql_dialects == ["mysql"]
    explicit = Settings(deployment=str(tmp_path), model_sql_dialects=["tsql"])
    assert explicit.model_sql_dialects == ["tsql"]
