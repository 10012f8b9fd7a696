"""The events of one turn (design §3.3) as typed models: what `run_turn` yields, what the SSE
stream and `orquestra ask --json` send, and what the evals and tests read.

Each kind is a model `{event: "<kind>", data: <its data model>}`; `Event` is their union,
told apart by `event`, and `EVENTS` validates a plain dict into the right one. The stages
still write plain dicts to LangGraph's stream; `run_turn` validates them here, so a stage
that writes something off-contract fails the turn visibly instead of reaching a client.

On the wire a data model carries exactly the fields that were set (`payload`): a `node`
start has no `ms`, a `token` has `reset` only when the draft is dropped, a `result` leaves
out what the turn did not produce. A field that may be absent but is never `null` is typed
`X | Absent`. Values keep their Python types until the consumer's `json.dumps`, so the JSON
is byte for byte what the untyped dicts gave.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter
from pydantic.json_schema import SkipJsonSchema, WithJsonSchema

from orquestra.graph.state import Route

Absent = SkipJsonSchema[None]
"""Marks a field that is left out of the JSON when unset (never sent as `null`)."""
Number = Annotated[int | float, WithJsonSchema({"type": "number"})]
"""A JSON number kept as it came (an `int` is not turned into a `float`, which would
change its JSON from `5` to `5.0`)."""


def _absent_is_not_null(schema: dict[str, JsonValue]) -> None:
    """An `Absent` field is left out rather than sent as null: its schema drops the `null`
    default that pydantic writes for it (a nullable field keeps its own)."""
    properties = schema.get("properties")
    for field in properties.values() if isinstance(properties, dict) else ():
        if isinstance(field, dict) and "anyOf" not in field and field.get("default", 0) is None:
            del field["default"]


class Wire(BaseModel):
    """A part of an event's data: field docstrings are its schema's descriptions; unknown
    fields are refused, so a writer and this contract cannot drift apart silently."""

    model_config = ConfigDict(
        use_attribute_docstrings=True, extra="forbid", json_schema_extra=_absent_is_not_null
    )


class RunData(Wire):
    """`run`: first, at once — the ids to follow the turn by."""

    run_id: str
    """This turn's id (in the logs and traces)."""
    thread_id: str
    """The conversation's id: send it back to continue the thread."""


class NodeData(Wire):
    """`node`: a stage started or ended.

    Some stages add detail fields to their end event (`@stage(details=...)`): the known ones
    are typed fields here; any other passes through unchanged (`extra="allow"`), after the
    typed fields, so a new stage's details reach clients without a change to this model."""

    model_config = ConfigDict(extra="allow")

    node: str
    """The stage's name, e.g. `router`, `sql_writer`, `executor`."""
    status: Literal["start", "end"]
    """`start` when the stage begins, `end` when it has finished."""
    ms: float | Absent = None
    """How long the stage took, in milliseconds (end only)."""
    summary: str | Absent = None
    """One line on what the stage did (end only; may be empty)."""
    blocked_by: str | Absent = None
    """`input_rails`: the rail that blocked the message."""
    code: str | Absent = None
    """`input_rails`: the blocking rail's published code."""
    judges: dict[str, str] | Absent = None
    """`judge`, `answer_judge`: each judge's outcome by name (pass, fail, error, …)."""


class ValueCorrection(Wire):
    """An enumerated value written in the wrong case, and the value it became."""

    column: str
    """`table.column`."""
    found: str
    value: str


class SqlData(Wire):
    """`sql`: the guarded SQL about to run."""

    sql: str
    """The SQL after the tenant guard, as the database receives it."""
    attempt: int
    """Which SQL attempt of the turn this is (1, then zero-row retries)."""
    normalised_from: str | None = None
    """The dialect the model wrote the SQL in (`tsql`, `mysql`, …), when it was normalised to
    PostgreSQL before the guard; absent when it was PostgreSQL already."""
    corrections: list[ValueCorrection] | None = None
    """Values whose case was corrected to the enumerated value they meant, before the guard;
    absent when there were none."""


class TokenData(Wire):
    """`token`: answer text, after the output rails, as it is generated."""

    text: str
    """More answer text, to append."""
    reset: Literal[True] | Absent = None
    """Drop the text received so far: the rails withheld it or the judges sent it back; a
    replacement follows (`text` is then empty)."""


class ClarifyData(Wire):
    """`clarify`: the turn pauses; the next message on the thread answers the question."""

    question: str
    """The clarifying question for the user."""


class Attempt(Wire):
    """One SQL tried in the turn and what came of it."""

    sql: str
    """The SQL as the writer or fixer produced it."""
    guarded_sql: str | Absent = None
    """What ran, after the guard (absent when the guard rejected it)."""
    outcome: Literal["rows", "zero_rows", "rejected", "error"]
    """Rows came back, none did, the guard rejected the SQL, or the database failed."""
    error: str | Absent = None
    """`CODE: detail` of the guard rejection or database error."""
    row_count: int | Absent = None
    """Rows returned (when it ran)."""


class Card(Wire):
    """A key figure."""

    label: str
    """The measure's column name."""
    value: Number
    """The figure."""
    unit: str | None
    """The catalog's unit for the column, if it has one."""
    period: str | Absent = None
    """The period of a series' latest value (series only)."""
    delta_pct: Number | None
    """Change versus the previous period, in percent, when known."""
    previous: Number | None = None
    """The previous period's value (series only)."""


class BlockedBy(Wire):
    """The input rail that stopped the message."""

    rail: str
    """The rail's name in the guardrails file."""
    code: str
    """Its published code."""
    reason: str
    """Why it blocked, in the rail's words."""


class Judgement(Wire):
    """A judge's last verdict on the answer."""

    name: str
    """The judge's name in the guardrails file."""
    passed: bool
    """Whether the answer passed this judge."""
    score: Number | None
    """The judge's score in [0, 1], if it gives one."""
    outcome: Literal["pass", "block", "modified", "fail", "refuse", "error", "timeout"]
    """`pass` or `fail` (`refuse`: failed, and the answer withheld); `error` or `timeout` when
    the judge could not decide."""
    feedback: str
    """What to fix, when it did not pass."""
    ms: float
    """How long the judge took, in milliseconds."""


class ResultData(Wire):
    """`result`: the answer and what it stands on; fields the turn did not produce are left
    out."""

    answer: str
    """The final answer text (as streamed in `token` events)."""
    route: Route | None
    """TRACKING, ANALYTICS, KNOWLEDGE or CHAT (null for greetings and blocked messages)."""
    columns: list[str] | Absent = None
    """The result's column names (when a query returned)."""
    rows: list[list[Any]] | Absent = None
    """The rows, as JSON values (decimals as numbers, times as ISO text)."""
    row_count: int | Absent = None
    """Rows returned, or the exact total when the rows were truncated and it was cheap."""
    truncated: bool | Absent = None
    """More rows matched than the row cap allows."""
    sql: str | Absent = None
    """The last guarded SQL that ran."""
    cards: list[Card] | Absent = None
    """Key figures for the front end."""
    chart: dict[str, Any] | Absent = None
    """A Vega-Lite v5 specification with its data inline."""
    sources: dict[str, list[str]] | Absent = None
    """The catalog's `systems`, `tables` and glossary `terms` the SQL writer saw."""
    attempts: list[Attempt] | Absent = None
    """Every SQL tried in this turn, in order."""
    stop_reason: str | Absent = None
    """The cap or failure that ended the turn early (e.g. `MAX_FIX_ATTEMPTS`)."""
    blocked_by: BlockedBy | Absent = None
    """The input rail that stopped the message."""
    judgements: list[Judgement] | Absent = None
    """The judges' last verdicts."""
    display: dict[str, Any] | Absent = None
    """How to write the result for people (the presenter's): per column its label, kind
    (money, percent, number, integer, period, time, text), unit and period format; per card
    its label and period; the turn's language, locale, currency and time zone."""
    model: str | Absent = None
    """The model that wrote the answer: `offline`, or the configured `provider:model`."""


class ErrorData(Wire):
    """`error`: the turn failed; user-safe, never a stack trace."""

    code: str
    """A stable code, e.g. `DB_UNAVAILABLE`, `MODEL_TIMEOUT`, `INTERNAL`."""
    message: str
    """A plain message for a person, in the user's language where it is ours to word."""


class DoneData(Wire):
    """`done`: last; nothing follows."""


def _event_is_required(schema: dict[str, JsonValue]) -> None:
    """`event` has a default (each model knows its kind) but is always sent: the schema
    requires it, as a discriminator must be."""
    schema["required"] = ["event", "data"]


class TurnEvent(BaseModel):
    """An event: its kind (the SSE `event:` line) and its data (the SSE `data:` line, as
    JSON); `orquestra ask --json` prints both as one JSON object per line."""

    model_config = ConfigDict(use_attribute_docstrings=True, json_schema_extra=_event_is_required)

    event: str
    """The kind of event."""
    data: Wire
    """What the event carries."""

    def payload(self) -> dict[str, Any]:
        """The data as sent: the fields that were set, values as they are (for `json.dumps`)."""
        return self.data.model_dump(exclude_unset=True)

    def wire(self) -> dict[str, Any]:
        """The whole event as `orquestra ask --json` prints it: `{"event", "data"}`."""
        return {"event": self.event, "data": self.payload()}


class RunEvent(TurnEvent):
    """`run`: first, at once."""

    event: Literal["run"] = "run"
    data: RunData


class NodeEvent(TurnEvent):
    """`node`: a stage started or ended."""

    event: Literal["node"] = "node"
    data: NodeData


class SqlEvent(TurnEvent):
    """`sql`: the guarded SQL about to run."""

    event: Literal["sql"] = "sql"
    data: SqlData


class TokenEvent(TurnEvent):
    """`token`: answer text as it is generated."""

    event: Literal["token"] = "token"
    data: TokenData


class ClarifyEvent(TurnEvent):
    """`clarify`: the turn pauses for the user's answer."""

    event: Literal["clarify"] = "clarify"
    data: ClarifyData


class ResultEvent(TurnEvent):
    """`result`: the answer and what it stands on."""

    event: Literal["result"] = "result"
    data: ResultData


class ErrorEvent(TurnEvent):
    """`error`: the turn failed (user-safe code and message)."""

    event: Literal["error"] = "error"
    data: ErrorData


class DoneEvent(TurnEvent):
    """`done`: last."""

    event: Literal["done"] = "done"
    data: DoneData = Field(default_factory=DoneData)


Event = Annotated[
    RunEvent
    | NodeEvent
    | SqlEvent
    | TokenEvent
    | ClarifyEvent
    | ResultEvent
    | ErrorEvent
    | DoneEvent,
    Field(discriminator="event"),
]
"""Any event of a turn, told apart by `event`."""

EVENTS: TypeAdapter[Event] = TypeAdapter(Event)
"""Validates `{"event": kind, "data": {...}}` into its model; the union's JSON schema."""

KINDS: tuple[str, ...] = ("run", "node", "sql", "token", "clarify", "result", "error", "done")
"""Every kind, in the order a turn can send them."""


def from_stream(chunk: dict[str, Any]) -> Event:
    """The event a stage wrote to LangGraph's custom stream: `{"event": kind, **data}`."""
    data = {key: value for key, value in chunk.items() if key != "event"}
    return EVENTS.validate_python({"event": chunk["event"], "data": data})
