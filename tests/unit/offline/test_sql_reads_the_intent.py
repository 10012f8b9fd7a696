"""Building SQL only reads the parser's intent: over every question of the readings' fixture
files (`readings/*.yaml`), the intent after `build_sql` equals a deep copy taken before it,
whether the writer answers or says it cannot (`Unmappable`)."""

from __future__ import annotations

import contextlib
import copy
from pathlib import Path

import pytest
import yaml

from orquestra.offline.intent import Group, Intent
from orquestra.offline.joins import Unmappable
from orquestra.offline.sql import build_sql
from tests.unit.offline.offline_sql import CATALOGS, TODAY, intent_of

READINGS = Path(__file__).parent / "readings"


def questions(path: Path) -> list[tuple[str, str]]:
    """The (deployment, question) pairs of one fixture file, each once."""
    said = [
        (case["deployment"], case["question"])
        for group in yaml.safe_load(path.read_text(encoding="utf-8"))
        for case in group["cases"]
    ]
    return list(dict.fromkeys(said))


def changed_by_building(deployment: str, intent: Intent) -> bool:
    """Whether `build_sql` changes `intent` (compared with a deep copy taken before)."""
    before = copy.deepcopy(intent)
    with contextlib.suppress(Unmappable):
        build_sql(intent, CATALOGS[deployment], TODAY.isoformat())
    return intent != before


@pytest.mark.parametrize("path", sorted(READINGS.glob("*.yaml")), ids=lambda path: path.stem)
def test_building_sql_leaves_the_intent_as_it_was(path: Path) -> None:
    said = questions(path)
    assert said, f"{path.name} holds no question"
    changed = [
        f"[{deployment}] {question}"
        for deployment, question in said
        if changed_by_building(deployment, intent_of(deployment, question))
    ]
    assert changed == []


def test_the_comparison_sees_a_change() -> None:
    """The check can fail: an intent changed after its copy was taken is told apart."""
    intent = intent_of("logistics", "quantas cargas por mês em 2026?")
    before = copy.deepcopy(intent)
    assert intent == before
    intent.groups.append(Group("", "", "week"))
    assert intent != before
