"""Evaluation datasets: JSON Lines, one case a line (design §3.4)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from orquestra.core.errors import OrquestraError


class DatasetError(OrquestraError):
    """A dataset file is invalid; the message names the file and the line."""

    code = "DATASET_INVALID"


class Case(BaseModel):
    """One labelled question (or conversation: the gold applies to the last turn)."""

    model_config = ConfigDict(extra="forbid")

    id: str
    question: str | None = None
    turns: list[str] | None = None
    tenant: str
    route: Literal["tracking", "analytics", "knowledge", "chat", "clarify", "blocked"]
    """`blocked`: an input rail must stop the message (`blocked_by` names which)."""
    complexity: Literal["simple", "complex"] = "simple"
    gold_sql: str | None = None
    answer_contains: list[str] | None = None
    lang: Literal["pt", "en"] = "pt"
    blocked_by: str | None = None
    """The input rail expected to stop the message (`PINJ`, `OOS`, …)."""
    source: str | None = None
    """The id of the case (in another set) this one rewords with the same gold: a reading
    that answers one wording and not the other is brittle."""

    @model_validator(mode="after")
    def _one_question(self) -> Case:
        if bool(self.question) == bool(self.turns):
            raise ValueError("give exactly one of question or turns")
        if (self.route == "blocked") != bool(self.blocked_by):
            raise ValueError("route `blocked` goes with `blocked_by` (and only with it)")
        return self

    @property
    def messages(self) -> list[str]:
        return self.turns or [self.question or ""]


def load_dataset(path: Path) -> list[Case]:
    """Every case of a JSON Lines file, with the line of any invalid one."""
    cases, seen = [], set()
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            case = Case.model_validate(json.loads(line))
        except (json.JSONDecodeError, ValidationError) as exc:
            raise DatasetError(f"{path}:{number}: {exc}") from None
        if case.id in seen:
            raise DatasetError(f"{path}:{number}: duplicate id {case.id}")
        seen.add(case.id)
        cases.append(case)
    if not cases:
        raise DatasetError(f"{path}: no cases")
    return cases
