"""The HTTP API page, from the app's OpenAPI document (`create_app`, never started)."""

from __future__ import annotations

import json
from typing import Any

from .common import cell, code, page, table

INTRO = """
The HTTP API of `orquestra serve` (and `orquestra demo`), from the app's OpenAPI document,
which a running server also serves at `/openapi.json`. Every route under `/v1` needs
`Authorization: Bearer <token>`; the tenant comes only from the verified token. Every error is
a JSON body `{"code", "message"}` (see [Error codes](errors.md)); the chat's answer is a stream
of [events](events.md). `POST /v1/dev/token` exists only under `orquestra demo` or
`orquestra serve --dev-login`, and never in production mode. The metrics are not served here:
they are on the operators' listener (`metrics_host`:`metrics_port`, see
[Settings](settings.md)).
"""
METHODS = ("get", "post", "put", "patch", "delete")


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def schema_type(schema: dict[str, Any]) -> str:
    """A schema in a few words: `string`, `array of Thread`, `Event`, `string | null`."""
    if "$ref" in schema:
        name = _ref_name(schema["$ref"])
        return f"[{name}](#{name.lower()})" if name != "Event" else "[Event](events.md)"
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return " | ".join(schema_type(s) for s in schema[key])
    kind = schema.get("type", "any")
    if kind == "array":
        return f"array of {schema_type(schema.get('items', {}))}"
    if "enum" in schema:
        return " | ".join(json.dumps(v) for v in schema["enum"])
    if "const" in schema:
        return json.dumps(schema["const"])
    return str(kind)


def _parameters(operation: dict[str, Any]) -> str:
    rows = [
        [
            code(p["name"]),
            p["in"],
            "yes" if p.get("required") else "no",
            schema_type(p.get("schema", {})),
            p.get("description") or p.get("schema", {}).get("description", ""),
        ]
        for p in operation.get("parameters", [])
    ]
    return table(["parameter", "in", "required", "type", "what it is"], rows) if rows else ""


def _body(operation: dict[str, Any]) -> str:
    body = operation.get("requestBody")
    if not body:
        return ""
    lines = []
    for media, content in sorted(body.get("content", {}).items()):
        lines.append(f"Body (`{media}`): {schema_type(content.get('schema', {}))}")
        schema = content.get("schema", {})
        if "properties" in schema:
            lines.append(properties_table(schema))
    return "\n\n".join(lines)


def _responses(operation: dict[str, Any]) -> str:
    rows = []
    for status, response in sorted(operation.get("responses", {}).items()):
        kinds = [
            f"`{media}` {schema_type(c.get('schema', {}))}"
            for media, c in sorted(response.get("content", {}).items())
        ]
        rows.append([code(status), response.get("description", ""), ", ".join(kinds)])
    return table(["status", "when", "body"], rows)


def properties_table(schema: dict[str, Any]) -> str:
    """An object schema's properties: name, type, required, description."""
    required = set(schema.get("required", []))
    rows = [
        [code(name), schema_type(prop), "yes" if name in required else "no", _about(prop)]
        for name, prop in schema.get("properties", {}).items()
    ]
    return table(["field", "type", "required", "what it is"], rows) if rows else "No fields."


def _about(prop: dict[str, Any]) -> str:
    text = str(prop.get("description", ""))
    limits = [f"{k} {prop[k]}" for k in ("maxLength", "minLength", "pattern") if k in prop]
    return cell(" ".join([text, f"({', '.join(limits)})" if limits else ""]).strip())


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """`(METHOD, path, operation)` for every route, sorted by path then method."""
    return [
        (method.upper(), path, item[method])
        for path, item in sorted(document["paths"].items())
        for method in METHODS
        if method in item
    ]


def openapi_document() -> dict[str, Any]:
    """The document of the demo's app (with its dev login), built without a database."""
    from orquestra.core.settings import Settings
    from orquestra.server.app import create_app

    document: dict[str, Any] = create_app(Settings(), dev_login=True).openapi()
    return document


def render() -> str:
    from orquestra.graph.event_types import EVENTS

    document = openapi_document()
    event_models = set(EVENTS.json_schema()["$defs"]) | {"Event"}
    sections = [
        "## Routes\n\n"
        + table(
            ["method", "path", "summary"],
            [[m, code(p), op.get("summary", "")] for m, p, op in operations(document)],
        )
    ]
    for method, path, operation in operations(document):
        parts = [f"## `{method} {path}`"]
        if operation.get("summary"):
            parts.append(f"**{operation['summary']}.**")
        if operation.get("description"):
            parts.append(operation["description"].strip())
        parts += [p for p in (_parameters(operation), _body(operation)) if p]
        parts.append("Responses:\n\n" + _responses(operation))
        sections.append("\n\n".join(parts))
    schemas = document.get("components", {}).get("schemas", {})
    for name in sorted(set(schemas) - event_models):
        schema = schemas[name]
        about = str(schema.get("description", "")).strip()
        sections.append(
            "\n\n".join(p for p in (f"## {name}", about, properties_table(schema)) if p)
        )
    return page("HTTP API", INTRO, sections)
