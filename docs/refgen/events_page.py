"""The events page, from the typed events of a turn (`orquestra.graph.event_types`)."""

from __future__ import annotations

import typing

from pydantic import BaseModel

from .common import code, description, page, paragraph, table, type_name

INTRO = """
A turn is a stream of events, the same everywhere: the SSE stream of `POST /v1/chat/stream`
(the `event:` line is the kind, the `data:` line its data as JSON), `orquestra ask --json`
(one `{"event": …, "data": …}` object per line) and `run_turn` in Python. The models are in
`graph/event_types.py`; they refuse unknown fields, so the contract and the code cannot drift
apart. A field marked *optional* is left out of the JSON when the turn did not produce it
(it is never sent as `null` unless its type says `null`).
"""


def _models_inside(model: type[BaseModel]) -> list[type[BaseModel]]:
    """The models a data model's fields hold (`Attempt` in `ResultData.attempts`)."""
    found: list[type[BaseModel]] = []

    def visit(annotation: object) -> None:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            if annotation not in found:
                found.append(annotation)
            return
        for argument in typing.get_args(annotation):
            visit(argument)

    for field in model.model_fields.values():
        visit(field.annotation)
    return found


def _type(annotation: object) -> str:
    text = type_name(annotation)
    parts = [p for p in text.split(" | ") if p != "None"]
    return " | ".join(parts)


def fields_table(model: type[BaseModel]) -> str:
    """A data model's fields: name, type, whether always sent, what it is."""
    rows = []
    for name, field in model.model_fields.items():
        required = "yes" if field.is_required() else "optional"
        rows.append([code(name), code(_type(field.annotation)), required, description(model, name)])
    if not rows:
        return "No fields: the data is `{}`."
    return table(["field", "type", "sent", "what it is"], rows)


def render() -> str:
    from orquestra.graph.event_types import KINDS, Event, TurnEvent

    by_kind: dict[str, type[TurnEvent]] = {}
    for member in typing.get_args(typing.get_args(Event)[0]):
        kind = member.model_fields["event"].default
        by_kind[kind] = member
    sections = [
        "## Kinds\n\n"
        + table(
            ["kind", "what it says"],
            [[f"[`{k}`](#{k})", paragraph(by_kind[k].__doc__).split("\n")[0]] for k in KINDS],
        )
    ]
    nested: list[type[BaseModel]] = []
    for kind in KINDS:
        data = by_kind[kind].model_fields["data"].annotation
        assert isinstance(data, type) and issubclass(data, BaseModel)
        sections.append(f"## `{kind}`\n\n{paragraph(data.__doc__)}\n\n{fields_table(data)}")
        nested += [m for m in _models_inside(data) if m not in nested]
    for model in nested:
        sections.append(
            f"## `{model.__name__}`\n\n{paragraph(model.__doc__)}\n\n{fields_table(model)}"
        )
    return page("Events of a turn", INTRO, sections)
