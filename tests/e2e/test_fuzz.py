"""Fuzzing the HTTP API from its own OpenAPI document, against a real server process.

For every operation `/openapi.json` lists, Hypothesis draws requests from the operation's own
schemas — path parameters, JSON bodies, and extra query parameters — some valid, some
breaking the schema (wrong types, missing fields, extra fields, bodies that are not JSON),
with NUL, lone surrogates and other control characters mixed into every string. Most carry
a valid token; some none, a broken one, or one of another tenant. The property: no answer is
a 5xx, no body or SSE event carries a stack trace, and no turn ends in an INTERNAL error.

Bounded per operation in examples and wall-clock time. Failures are collected rather than
shrunk (each shrinking step would be another request to a live server), and reported with
a reproduction.

Written with Hypothesis directly rather than Schemathesis: Schemathesis 4.16+ needs
jsonschema-rs >= 0.45, which langgraph-api (our langgraph-cli[inmem] dev dependency) forbids,
and 4.15 generates through hypothesis-jsonschema, which fails on current Hypothesis.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import httpx
import jwt
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from orquestra.core.settings import DEV_SECRET
from tests.e2e.conftest import Server, token

EXAMPLES = {"POST /v1/chat/stream": 200, "GET /v1/threads/{thread_id}": 200, "GET /v1/threads": 100}
DEFAULT_EXAMPLES = 40
BUDGET_S = {"POST /v1/chat/stream": 45.0, "GET /v1/threads/{thread_id}": 12.0}
DEFAULT_BUDGET_S = 5.0
FUZZ_USER = "fuzzer"

SPECIALS = [
    "\x00",
    "\ud800",
    "\udfff",
    "\x07",
    "\x1b",
    "\x7f",
    "\u2028",
    "\ufeff",
    "\u202e",
    "\r\n",
    "\t",
    "%00",
    "'",
    '"',
    "\\",
    "../",
    "𝄞",
    "ção",
    "{{7*7}}",
    "'; DROP TABLE threads; --",
]


def weird_text(max_size: int = 40) -> st.SearchStrategy[str]:
    """Strings with NUL, lone surrogates and other control characters mixed in."""
    pieces = st.one_of(st.sampled_from(SPECIALS), st.text(max_size=8))
    return st.lists(pieces, max_size=8).map("".join).map(lambda s: s[:max_size])


DEPTHS = st.one_of(st.integers(1, 3_000), st.sampled_from([100, 999, 1_000, 1_001, 2_500]))
"""Nesting depths around Python's recursion limit, in bodies well under the size limit."""
JSON_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63),
    st.floats(allow_nan=False, allow_infinity=False),
    weird_text(),
)
ANY_JSON = st.recursive(
    JSON_LEAVES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(weird_text(12), inner, max_size=3),
    max_leaves=8,
)
RAW_BODIES = st.one_of(
    st.binary(max_size=64),
    st.just(b"{not json"),
    st.just(b'{"message": "\xff\xfe"}'),
    DEPTHS.map(lambda n: b"[" * n + b"]" * n),
    DEPTHS.map(lambda n: b'{"message": "oi", "x": ' + b"[" * n + b"]" * n + b"}"),
    st.just(b'{"message": ' + b"9" * 5_000 + b"}"),
)


class Document:
    """The operations of an OpenAPI document, with `$ref`s resolved on demand."""

    def __init__(self, document: dict) -> None:
        self.document = document

    def operations(self) -> list[tuple[str, str, dict]]:
        return [
            (method.upper(), path, operation)
            for path, methods in self.document["paths"].items()
            for method, operation in methods.items()
        ]

    def resolve(self, schema: dict) -> dict:
        while "$ref" in schema:
            node: Any = self.document
            for part in schema["$ref"].lstrip("#/").split("/"):
                node = node[part]
            schema = node
        return schema

    def values(self, schema: dict, depth: int = 0) -> st.SearchStrategy[Any]:
        """Values of `schema` (the JSON Schema subset FastAPI writes), strings made weird."""
        schema = self.resolve(schema)
        options = schema.get("anyOf") or schema.get("oneOf")
        if options and depth < 4:
            return st.one_of([self.values(option, depth + 1) for option in options])
        kind = schema.get("type")
        if kind == "string":
            return weird_text(schema.get("maxLength", 200))
        if kind == "null":
            return st.none()
        if kind == "integer":
            return st.integers(min_value=-(2**31), max_value=2**31)
        if kind == "number":
            return st.floats(allow_nan=False, allow_infinity=False)
        if kind == "boolean":
            return st.booleans()
        if kind == "array" and depth < 4:
            return st.lists(self.values(schema.get("items", {}), depth + 1), max_size=3)
        if kind == "object" and depth < 4:
            properties = schema.get("properties", {})
            required = set(schema.get("required", []))
            return st.fixed_dictionaries(
                {k: self.values(v, depth + 1) for k, v in properties.items() if k in required},
                optional={
                    k: self.values(v, depth + 1) for k, v in properties.items() if k not in required
                },
            )
        return ANY_JSON


@dataclass
class Tally:
    cases: int = 0
    server_errors: int = 0
    statuses: Counter = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)


def claims_tokens() -> st.SearchStrategy[str]:
    """Correctly signed tokens whose claims are drawn: weird users and tenants."""
    tenants = st.one_of(
        weird_text(12), st.integers(-(2**40), 2**40), st.sampled_from(["101", "0101"])
    )
    claims = st.fixed_dictionaries(
        {"sub": st.one_of(weird_text(30), st.just(FUZZ_USER)), "tenant": tenants},
        optional={"aud": weird_text(10), "iss": weird_text(10), "nbf": st.integers(0, 2**33)},
    )

    def sign(drawn: dict) -> str:
        now = int(time.time())
        return "Bearer " + jwt.encode({"iat": now, "exp": now + 600, **drawn}, DEV_SECRET)

    return claims.map(sign)


@st.composite
def requests(draw: st.DrawFn, doc: Document, method: str, path: str, operation: dict, known: dict):
    """One request for the operation: (method, url path with query, headers, body bytes)."""
    url = path
    for parameter in operation.get("parameters", []):
        if parameter["in"] != "path":
            continue
        value = draw(
            st.one_of(
                doc.values(parameter.get("schema", {})),
                st.sampled_from(known.get(parameter["name"], ["x"])),
            ).map(str)
        )
        encoded = quote(value.encode("utf-8", "surrogatepass"), safe="") or "%20"
        url = url.replace("{" + parameter["name"] + "}", encoded)
    extra = draw(
        st.dictionaries(
            st.sampled_from(["q", "limit", "x\x00", "thread_id"]), weird_text(20), max_size=2
        )
    )
    if extra:
        url += "?" + "&".join(
            f"{quote(k.encode('utf-8', 'surrogatepass'))}="
            f"{quote(v.encode('utf-8', 'surrogatepass'))}"
            for k, v in extra.items()
        )
    known_bearer = st.sampled_from(known["bearers"])
    bearer = draw(st.one_of(known_bearer, known_bearer, known_bearer, claims_tokens()))
    headers = {"Authorization": bearer}
    headers = {k: v for k, v in headers.items() if v}
    body = None
    content = operation.get("requestBody", {}).get("content", {})
    if "application/json" in content:
        schema = content["application/json"].get("schema", {})
        shape = draw(st.sampled_from(["valid", "valid", "valid", "json", "raw"]))
        if shape == "valid":
            value = draw(doc.values(schema))
            if isinstance(value, dict) and "thread_id" in value and draw(st.booleans()):
                value["thread_id"] = draw(st.sampled_from(known["thread_id"]))
            body = json.dumps(value).encode()
        elif shape == "json":
            body = json.dumps(draw(ANY_JSON)).encode()
        else:
            body = draw(RAW_BODIES)
        headers["Content-Type"] = draw(
            st.sampled_from(
                ["application/json"] * 4 + ["text/plain", "application/x-www-form-urlencoded"]
            )
        )
    return method, url, headers, body


def check(tally: Tally, label: str, request: tuple, response: httpx.Response) -> None:
    tally.cases += 1
    tally.statuses[response.status_code] += 1
    method, url, headers, body = request
    problems = []
    if response.status_code >= 500:
        tally.server_errors += 1
        problems.append(f"{response.status_code}")
    if "Traceback" in response.text:
        problems.append("stack trace in the body")
    streamed = response.headers.get("content-type", "").startswith("text/event-stream")
    if streamed and re.search(r'"code":\s*"INTERNAL"', response.text):
        problems.append("turn ended with INTERNAL")
    if problems:
        shown = {k: (v[:20] + "…" if k == "Authorization" else v) for k, v in headers.items()}
        tally.failures.append(
            f"{label}: {', '.join(problems)} ← {method} {url[:120]} {shown} {body!r:.160}"
            f" → {response.text[:160]!r}"
        )


@pytest.fixture(scope="module")
def known(server: Server) -> dict:
    """Values worth mixing in: a real thread of the fuzzing user, and tokens of every kind."""
    bearer = token("101", FUZZ_USER)
    with httpx.Client(timeout=60) as client:
        turn = client.post(
            f"{server.url}/v1/chat/stream",
            json={"message": "bom dia"},
            headers={"Authorization": f"Bearer {bearer}"},
        )
    thread = turn.text.split('"thread_id": "', 1)[1].split('"', 1)[0]
    return {
        "thread_id": [thread, "0" * 64, "not-a-thread"],
        "bearers": [f"Bearer {bearer}"] * 8
        + ["", "Bearer not-a-token", f"Bearer {token('102', FUZZ_USER)}", "Basic YTpi"],
    }


def fuzz(client: httpx.Client, doc: Document, known: dict, method: str, path: str) -> Tally:
    """Send this operation's drawn requests until its example or time budget runs out."""
    label = f"{method} {path}"
    operation = doc.document["paths"][path][method.lower()]
    tally = Tally()
    deadline = time.monotonic() + BUDGET_S.get(label, DEFAULT_BUDGET_S)

    @settings(
        max_examples=EXAMPLES.get(label, DEFAULT_EXAMPLES),
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(request=requests(doc, method, path, operation, known))
    def probe(request: tuple) -> None:
        if time.monotonic() > deadline:
            return  # over this operation's time budget: the rest are drawn, not sent
        method_, url, headers, body = request
        try:
            response = client.request(method_, url, headers=headers, content=body)
        except httpx.TransportError as error:  # the server dropped the connection
            tally.cases += 1
            tally.server_errors += 1
            tally.failures.append(f"{label}: {type(error).__name__} ← {request!r:.400}")
            return
        check(tally, label, request, response)

    probe()
    return tally


def test_no_request_drawn_from_the_openapi_document_gets_a_5xx_or_a_trace(
    server: Server, known: dict
) -> None:
    doc = Document(httpx.get(f"{server.url}/openapi.json", timeout=30).json())
    totals = Tally()
    with httpx.Client(base_url=server.url, timeout=60) as client:
        for method, path, _ in doc.operations():
            tally = fuzz(client, doc, known, method, path)
            print(
                f"\nfuzz {method} {path}: {tally.cases} cases, {tally.server_errors} 5xx"
                f" (statuses {dict(sorted(tally.statuses.items()))})"
            )
            totals.cases += tally.cases
            totals.server_errors += tally.server_errors
            totals.failures += tally.failures
    print(
        f"fuzz total: {totals.cases} cases, {totals.server_errors} 5xx,"
        f" {len(totals.failures)} failing"
    )
    assert httpx.get(f"{server.url}/healthz").status_code == 200
    assert not totals.failures, "\n".join(sorted(set(totals.failures))[:10])
