"""Evaluation datasets: JSON Lines, one case a line (design §3.4).

The shipped sets live under `evals/datasets/<deployment>/`; every case says which split it
belongs to and which original set it came from, so that a result can be read for what it is
(a set the offline model was tuned against, or one nobody tuned to).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from orquestra.core.errors import OrquestraError
from orquestra.guards.tenant_key import NO_TENANT, InvalidTenant, TenantKey


class DatasetError(OrquestraError):
    """A dataset file is invalid; the message names the file and the line."""

    code = "DATASET_INVALID"


Split = Literal["project", "dev", "heldout"]
"""What a set is for. `project`: the project's own cases, written with the code (every route,
follow-ups, blocked messages), a regression set. `dev`: sets by outside authors (from the README,
catalogs and profiles only) that the offline model was tuned against. `heldout`: sets by
outside authors that nobody tuned to; the model is judged on them."""

SPLITS: tuple[Split, ...] = ("project", "heldout", "dev")
"""The splits, in the order a suite runs them."""


class Case(BaseModel):
    """One labelled question (or conversation: the gold applies to the last turn)."""

    model_config = ConfigDict(extra="forbid")

    id: str
    question: str | None = None
    turns: list[str] | None = None
    tenant: str = NO_TENANT
    """The tenant asking. Left out: no tenant, for a deployment without tenants (where a
    case's tenant is not used: every case reads the one organisation's data)."""
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
    split: Split
    """What the case's set is for (`SPLITS`)."""
    origin: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    """The set the case was first written in (the file's name before the sets were grouped by
    deployment, e.g. `paraphrases_dev7`, `clinics_heldout`): its round and its author."""
    conflicts_with: list[str] | None = None
    """Ids of cases of other sets of the deployment that ask the same question as the same
    tenant but expect something else (gold SQL, route or terms): kept side by side until
    someone decides which expectation is right, never silently dropped."""

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
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise DatasetError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    cases, seen = [], set()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            case = Case.model_validate(json.loads(line))
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{path}:{number}: {exc}") from None
        except ValidationError as exc:
            raise DatasetError(f"{path}:{number}: {_problems(exc)}") from None
        if case.id in seen:
            raise DatasetError(f"{path}:{number}: duplicate id {case.id}")
        seen.add(case.id)
        cases.append(case)
    if not cases:
        raise DatasetError(f"{path}: no cases")
    return cases


def _problems(exc: ValidationError) -> str:
    """Each problem as `field: message` (the whole case's own rules without a field)."""
    return "; ".join(
        f"{'.'.join(map(str, error['loc'])) or 'case'}: {error['msg']}" for error in exc.errors()
    )


def bind_tenants(cases: list[Case], key: TenantKey) -> list[Case]:
    """The cases as they run on a deployment with tenant key `key`: each case's tenant in its
    canonical spelling, or `NO_TENANT` for every case of a deployment without tenants (one set
    of questions can then serve a deployment with tenants and one without). A case without
    a valid tenant where the data has tenants is a `DatasetError` before anything runs."""
    if not key.has_tenants:
        return [case.model_copy(update={"tenant": NO_TENANT}) for case in cases]
    bound = []
    for case in cases:
        try:
            bound.append(case.model_copy(update={"tenant": key.canonical(case.tenant)}))
        except InvalidTenant as exc:
            raise DatasetError(
                "DATASET_TENANT_INVALID",
                f"case {case.id}: {exc} (this deployment's data has tenants: every case needs one)",
            ) from None
    return bound
