"""How the offline model reads people's questions, from the fixture files in `readings/`.

Each file holds one kind of reading (`ranking.yaml`, `periods.yaml`, `exclusion.yaml` …): a
list of groups, each a `reading` (what the cases show, with a comment saying why) and its
`cases`. A case is a `deployment` (`logistics` or `clinics`), a `question`, and what the model
must make of it on the demo's today (2026-06-30), at least one of:

- `route` / `not_route`: the offline router's route for the question (or one it must not be);
- `intent`: fields of the parser's intent by their part (`subject.entity`, `time.period`),
  compared as plain data (tuples as lists);
- `unmappable`: the SQL writer says it cannot answer (`true`, or words its message holds);
- `answered`: the SQL writer answers (its SQL passes the guard);
- `same_sql_as`: another question on the same deployment that has the same SQL;
- fragments of the SQL (a string or a list of them): `sql` / `not_sql` in the whole SQL,
  `sql_any` (at least one of them), `not_sql_any_case` (in no letter case), `select` /
  `not_select` before its first ` FROM `, `after_from` / `not_after_from` after it,
  `after_where` / `not_after_where` after its first ` WHERE `, `starts` / `not_starts`,
  `ends` / `not_ends`, and `select_is` (all before the first ` FROM `);
- `times` / `at_most` (and `select_times` / `select_at_most`): how often a fragment occurs.

`may_be_unmappable: true` lets the writer answer nothing instead (its SQL is then empty: a
fragment required fails, a fragment forbidden holds).

Every SQL is the one the writer builds and the guard accepts (`offline_sql.sql_for`), read
with its table aliases resolved (`without_aliases`): fragments name tables, never aliases
(`pedidos.data_pedido`, `FROM pedidos JOIN clientes ON …`). No database is needed.

A file that cannot be read, a key this runner does not know, or a case that expects nothing
is a failing test, never a case skipped.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml

from orquestra.offline.joins import Unmappable
from tests.unit.offline.offline_sql import (
    DEPLOYMENTS,
    intent_of,
    route_of,
    sql_for,
    without_aliases,
)

READINGS = Path(__file__).parent / "readings"

FRAGMENTS = {
    # key: (part of the SQL, the fragment must be in it)
    "sql": ("sql", True),
    "not_sql": ("sql", False),
    "not_sql_any_case": ("lower", False),
    "select": ("select", True),
    "not_select": ("select", False),
    "after_from": ("after_from", True),
    "not_after_from": ("after_from", False),
    "after_where": ("after_where", True),
    "not_after_where": ("after_where", False),
}
EDGES = {"starts": True, "not_starts": False, "ends": True, "not_ends": False}
COUNTS = {"times", "at_most", "select_times", "select_at_most"}
SQL_KEYS = {*FRAGMENTS, *EDGES, *COUNTS, "sql_any", "select_is", "same_sql_as", "answered"}
EXPECTATIONS = {*SQL_KEYS, "route", "not_route", "intent", "unmappable"}
CASE_KEYS = {"deployment", "question", "may_be_unmappable", *EXPECTATIONS}
GROUP_KEYS = {"reading", "cases"}


@dataclasses.dataclass(frozen=True)
class Case:
    file: str
    reading: str
    case: dict[str, Any]


def fixture_files() -> list[Path]:
    return sorted(READINGS.glob("*.yaml"))


def cases() -> Iterator[Any]:
    files = fixture_files()
    if not files:
        yield pytest.param(f"no fixture file in {READINGS}", id="readings: none found")
    for path in files:
        try:
            groups = yaml.safe_load(path.read_text(encoding="utf-8"))
            file_problem(groups)
        except (yaml.YAMLError, ValueError) as error:
            yield pytest.param(f"{path.name}: {error}", id=f"{path.stem}: cannot be read")
            continue
        for group in groups:
            for case in group["cases"]:
                said = f"[{case.get('deployment')}] {case.get('question')}"
                yield pytest.param(
                    Case(path.stem, group["reading"], case), id=f"{path.stem}: {said}"
                )


def file_problem(groups: object) -> None:
    """Raise ValueError if a fixture file is not a list of groups, each a reading and a list
    of cases (each a mapping)."""
    if not isinstance(groups, list) or not groups:
        raise ValueError("a fixture file is a non-empty list of groups")
    for group in groups:
        if not isinstance(group, dict) or set(group) != GROUP_KEYS:
            raise ValueError(f"a group has exactly the keys {sorted(GROUP_KEYS)}: {group!r}")
        if not isinstance(group["reading"], str) or not group["reading"]:
            raise ValueError(f"a group's reading is a text: {group!r}")
        if not isinstance(group["cases"], list) or not group["cases"]:
            raise ValueError(f"the group {group['reading']!r} has no cases")
        if not all(isinstance(case, dict) for case in group["cases"]):
            raise ValueError(f"a case of {group['reading']!r} is not a mapping")


def case_problems(case: dict[str, Any]) -> list[str]:
    """What is wrong with a case as written (empty when nothing is)."""
    problems = [f"unknown key {key!r}" for key in case if key not in CASE_KEYS]
    if case.get("deployment") not in DEPLOYMENTS:
        problems.append(f"deployment must be one of {DEPLOYMENTS}")
    if not isinstance(case.get("question"), str) or not case["question"]:
        problems.append("a case has a question")
    if not EXPECTATIONS & set(case):
        problems.append(f"a case expects something: one of {sorted(EXPECTATIONS)}")
    if "unmappable" in case and SQL_KEYS & set(case):
        problems.append("an unmappable question has no SQL to check")
    if (
        "unmappable" in case
        and case["unmappable"] is not True
        and not fragments(case["unmappable"])
    ):
        problems.append("unmappable is true or words of the writer's message")
    for key in ("route", "not_route", "same_sql_as"):
        if key in case and (not fragments(case[key]) or isinstance(case[key], list)):
            problems.append(f"{key} is a text")
    if "intent" in case and (not isinstance(case["intent"], dict) or not case["intent"]):
        problems.append("intent maps the intent's fields to their values")
    if "answered" in case and case["answered"] is not True:
        problems.append("answered is true")
    for key in (*FRAGMENTS, *EDGES, "sql_any"):
        if key in case and not fragments(case[key]):
            problems.append(f"{key} is a text or a list of texts")
    for key in COUNTS & set(case):
        counted = case[key]
        if not isinstance(counted, dict) or not all(
            isinstance(k, str) and isinstance(n, int) for k, n in counted.items()
        ):
            problems.append(f"{key} maps fragments to how often they occur")
    return problems


def fragments(value: object) -> list[str]:
    if isinstance(value, str) and value:
        return [value]
    if isinstance(value, list) and value and all(isinstance(v, str) and v for v in value):
        return value
    return []


def plain(value: object) -> object:
    """An intent's field as YAML writes it: tuples as lists, dataclasses as mappings."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, date):
        return value.isoformat()
    return value


def parts(sql: str) -> dict[str, str]:
    return {
        "sql": sql,
        "lower": sql.lower(),
        "select": sql.split(" FROM ")[0],
        "after_from": sql.split(" FROM ", 1)[1] if " FROM " in sql else "",
        "after_where": sql.split(" WHERE ", 1)[1] if " WHERE " in sql else "",
    }


def written(case: dict[str, Any]) -> str:
    """The case's SQL, its aliases resolved; empty when it may be, and is, unanswered."""
    try:
        return without_aliases(sql_for(case["deployment"], case["question"]))
    except Unmappable:
        if case.get("may_be_unmappable"):
            return ""
        raise


def sql_failures(case: dict[str, Any], sql: str) -> list[str]:
    failed = []
    part = parts(sql)
    for key, (where, wanted) in FRAGMENTS.items():
        for fragment in fragments(case.get(key)):
            if (fragment in part[where]) != wanted:
                failed.append(f"{key}: {fragment!r}")
    if "sql_any" in case and not any(f in sql for f in fragments(case["sql_any"])):
        failed.append(f"sql_any: none of {case['sql_any']!r}")
    for key, wanted in EDGES.items():
        edge = sql.startswith if key.endswith("starts") else sql.endswith
        failed += [f"{key}: {f!r}" for f in fragments(case.get(key)) if edge(f) != wanted]
    if "select_is" in case and part["select"] != case["select_is"]:
        failed.append(f"select_is: {case['select_is']!r}")
    for key in sorted(COUNTS & set(case)):
        text = part["select"] if key.startswith("select_") else sql
        for fragment, n in case[key].items():
            found = text.count(fragment)
            if found > n if key.endswith("at_most") else found != n:
                failed.append(f"{key}: {fragment!r} {n} (found {found})")
    if case.get("answered") and not sql:
        failed.append("answered: no SQL")
    if "same_sql_as" in case:
        other = without_aliases(sql_for(case["deployment"], case["same_sql_as"]))
        if other != sql:
            failed.append(f"same_sql_as: {case['same_sql_as']!r} has {other}")
    return failed


@pytest.mark.parametrize("reading", list(cases()))
def test_reading(reading: Case | str) -> None:
    if isinstance(reading, str):
        pytest.fail(reading)
    case = reading.case
    problems = case_problems(case)
    if problems:
        pytest.fail(f"{reading.file}.yaml, {reading.reading!r}: " + "; ".join(problems))
    deployment, question = case["deployment"], case["question"]
    if "route" in case:
        assert route_of(deployment, question) == case["route"]
    if "not_route" in case:
        assert route_of(deployment, question) != case["not_route"]
    for path, wanted in case.get("intent", {}).items():
        found: object = intent_of(deployment, question)
        for name in path.split("."):  # "subject.entity": a field of one of the intent's parts
            found = getattr(found, name)
        assert plain(found) == wanted, path
    if "unmappable" in case:
        with pytest.raises(Unmappable) as raised:
            sql_for(deployment, question)
        if isinstance(case["unmappable"], str):
            assert case["unmappable"] in str(raised.value)
    if SQL_KEYS & set(case):
        sql = written(case)
        failed = sql_failures(case, sql)
        assert not failed, "\n".join([*failed, f"in: {sql}"])


def test_every_fixture_file_is_a_reading_with_cases() -> None:
    names = [path.stem for path in fixture_files()]
    assert len(names) >= 10, names
    assert all(not name[0].isdigit() and "round" not in name for name in names), names
