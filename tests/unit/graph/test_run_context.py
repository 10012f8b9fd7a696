"""The run context holds the settings' own caps and limits, and takes them as JSON too (as
LangGraph Server and Studio build it: `RunContext(**body)`)."""

from __future__ import annotations

from dataclasses import fields

import pytest
from pydantic import ValidationError

from orquestra.core.settings import Caps, Limits, Settings
from orquestra.graph.context import RunContext


def test_from_settings_carries_the_settings_caps_and_limits(tmp_path) -> None:
    settings = Settings(
        data_dir=tmp_path,
        caps=Caps(max_fix_attempts=1, max_model_calls_per_turn=5),
        limits=Limits(row_cap=42, timezone="Europe/Lisbon"),
    )
    context = RunContext.from_settings(settings, tenant="101", user="ana")
    assert context.caps == settings.caps and context.limits == settings.limits
    assert context.caps is not settings.caps  # a run may change its copy, never the settings
    assert context.limits.execution().row_cap == 42
    assert context.today == settings.effective_today().isoformat()


def test_no_setting_is_copied_field_by_field() -> None:
    names = {f.name for f in fields(RunContext)}
    assert not names & (set(Caps.model_fields) | set(Limits.model_fields))


def test_json_context_becomes_typed_and_validated() -> None:
    context = RunContext(
        **{"tenant": "101", "caps": {"max_sql_attempts": 2}, "limits": {"row_cap": 10}}
    )
    assert isinstance(context.caps, Caps) and context.caps.max_sql_attempts == 2
    assert isinstance(context.limits, Limits) and context.limits.row_cap == 10
    assert context.caps.max_fix_attempts == Caps().max_fix_attempts  # the one default
    with pytest.raises(ValidationError):
        RunContext(caps={"max_sql_attempts": 0})  # type: ignore[arg-type]
