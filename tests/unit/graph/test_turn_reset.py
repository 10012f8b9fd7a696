"""A new turn empties every per-turn field, and the list of them is read from the state's type:
a field added to `AgentState` is reset without anyone remembering to add it."""

from __future__ import annotations

from typing import get_type_hints

import pytest

from orquestra.graph.state import THREAD_FIELDS, AgentState, _empty, turn_reset


def test_every_field_but_the_threads_is_reset_to_empty() -> None:
    reset = turn_reset()
    assert set(reset) == set(get_type_hints(AgentState)) - THREAD_FIELDS
    assert all(value in (None, [], {}, "", 0, 0.0, False) for value in reset.values())
    assert reset["attempts"] == [] and reset["result"] is None and reset["model_calls"] == 0


def test_the_conversation_survives_a_new_turn() -> None:
    assert {"messages", "last_question"} <= THREAD_FIELDS
    assert not THREAD_FIELDS & set(turn_reset())


def test_a_field_of_a_type_with_no_empty_value_is_refused() -> None:
    with pytest.raises(TypeError, match="no empty value"):
        _empty(complex)
