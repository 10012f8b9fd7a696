"""A local, network-free OpenAI-compatible provider for tests, answered by the offline model.

The real clients (the `openai` SDK, langchain-openai's `ChatOpenAI`) talk to it over a real
socket, so what is tested is the wire: request shapes, status codes, error bodies, headers,
SSE chunks. The content comes from Orquestra's own offline model (the role is read from the
request's structured-output schema), so a whole graph turn through the fake ends in real
results. A provider's quirks are chosen per request by the model name: the part after
`fake`, split on `+` — `fake+tools-only+no-usage`, `fake+429x2`, `fake+slow=0.5`.

In a test: `with FakeProvider() as fake: ChatOpenAI(model="fake+think", base_url=fake.base_url)`.
As a process (an `orquestra serve` subprocess, a bench script), from the repository root:
`python -m tests.fake_provider --port 8911` (or `python tests/fake_provider.py --port 8911`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import sys
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: the repository's packages are one level up
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from orquestra.core.deployment import load_deployment
from orquestra.deployments import DEFAULT_DEPLOYMENT
from orquestra.offline import OfflineChatModel
from tests.prompt_facts import read_hints

ROLES = {
    "Augmented": "augmenter",
    "RouteDecision": "router",
    "SqlDraft": "sql_writer",
    "FixedSql": "fixer",
    "LibrarianAnswer": "librarian",
    "Probe": "probe",
}
"""Schema title → the offline model's role; any other schema is a judge's. `Probe` is
`orquestra models check`'s own tiny schema, which no stage of the graph answers."""
THINKING = "Let me think about the tables…"
THINK_PIECES = ["<thi", "nk>\nLet me think ", "about the tables…\n</th", "ink>\n"]
"""The `think` quirk's block, cut inside both tags so a client must join partial tags."""
FLAGS = {"no-json-schema", "tools-only", "json-mode-only", "no-usage", "think"}
FLAGS |= {"reasoning-content", "401", "403", "filter"}
"""The quirks without a value; `429`/`500`/`503` (with `xN`), `slow=S`, `context=N` have one."""
LISTED_MODELS = ["fake", "fake+no-json-schema", "fake+tools-only", "fake+json-mode-only"]


@dataclass(frozen=True)
class Quirks:
    """What a provider does differently, read from the model name after `fake`."""

    names: frozenset[str] = frozenset()
    failures: tuple[tuple[int, int | None], ...] = ()
    """(status, first N chat requests or None for every one) for 429, 500 and 503."""
    slow: float = 0.0
    context: int | None = None
    unknown: tuple[str, ...] = ()
    """Misspelt quirks: the model is then not found, rather than a quirk silently ignored."""

    @classmethod
    def of(cls, model: str) -> Quirks:
        parts = [p for p in model.split("+")[1:] if p]
        names, failures, slow, context, unknown = set(), [], 0.0, None, []
        for part in parts:
            key, _, value = part.partition("=")
            status, _, times = part.partition("x")
            if key == "slow":
                slow = float(value)
            elif key == "context":
                context = int(value)
            elif status in ("429", "500", "503") and (not times or times.isdigit()):
                failures.append((int(status), int(times) if times else None))
            elif part in FLAGS:
                names.add(part)
            else:
                unknown.append(part)
        return cls(frozenset(names), tuple(failures), slow, context, tuple(unknown))


@dataclass
class RecordedRequest:
    """One request as the fake saw it, and what it answered."""

    method: str
    path: str
    body: Any
    headers: dict[str, str]
    quirks: Quirks
    structured_method: str = "text"
    """json_schema | function_calling | json_mode | text."""
    role: str = ""
    status: int = 200

    @property
    def model(self) -> str:
        return self.body.get("model", "") if isinstance(self.body, dict) else ""


def error(status: int, message: str, /, **fields: Any) -> JSONResponse:
    """An OpenAI-style error response (`{"error": {...}}`)."""
    headers = {"Retry-After": "1"} if status == 429 else None
    return JSONResponse({"error": {"message": message, **fields}}, status, headers=headers)


def access_error(quirks: Quirks, headers: dict[str, str]) -> JSONResponse | None:
    """401/403 from the model name's quirks or a plainly wrong key; 404 for an unknown quirk."""
    key = headers.get("authorization", "").removeprefix("Bearer ").strip()
    if "401" in quirks.names or key == "sk-wrong":
        return error(
            401,
            "Incorrect API key provided: sk-wrong. You can find your API key at "
            "https://platform.openai.com/account/api-keys.",
            type="invalid_request_error",
            param=None,
            code="invalid_api_key",
        )
    if "403" in quirks.names or key == "sk-forbidden":
        return error(
            403,
            "You are not allowed to sample from this model.",
            type="invalid_request_error",
            param=None,
            code="model_not_allowed",
        )
    if quirks.unknown:
        return error(
            404,
            f"The model quirk(s) {', '.join(quirks.unknown)} do not exist (known: "
            f"{', '.join(sorted(FLAGS))}, 429xN, 500xN, 503xN, slow=S, context=N).",
            type="invalid_request_error",
            param=None,
            code="model_not_found",
        )
    return None


def failure(quirks: Quirks, count: int) -> JSONResponse | None:
    """A 429/500/503 while the quirk's first N chat requests (`count` is 1-based) last."""
    for status, times in quirks.failures:
        if times is not None and count > times:
            continue
        if status == 429:
            return error(
                429,
                "Rate limit reached for fake in organization org-fake on requests per min "
                "(RPM): Limit 3, Used 3, Requested 1. Please try again in 1s.",
                type="requests",
                param=None,
                code="rate_limit_exceeded",
            )
        return error(
            status,
            "The server had an error while processing your request. Sorry about that!"
            if status == 500
            else "The engine is currently overloaded, please try again later.",
            type="server_error",
            param=None,
            code=None,
        )
    return None


def structured_method(body: dict[str, Any]) -> str:
    kind = (body.get("response_format") or {}).get("type")
    if kind == "json_schema":
        return "json_schema"
    if kind == "json_object":
        return "json_mode"
    return "function_calling" if body.get("tools") else "text"


def format_error(quirks: Quirks, method: str) -> JSONResponse | None:
    """The 400 a provider without strict schemas, JSON mode or tools answers."""
    refused = {
        "no-json-schema": {"json_schema"},
        "tools-only": {"json_schema", "json_mode"},
        "json-mode-only": {"json_schema", "function_calling"},
    }
    if not any(method in refused.get(name, set()) for name in quirks.names):
        return None
    if method == "function_calling":
        return error(
            400, "tools are not supported with this model", type="invalid_request_error",
            param="tools", code=None,
        )  # fmt: skip
    kind = "json_schema" if method == "json_schema" else "json_object"
    return error(
        400,
        f"Invalid parameter: 'response_format' of type '{kind}' is not supported with this model.",
        type="invalid_request_error",
        param="response_format",
        code=None,
    )


def request_error(quirks: Quirks, body: dict[str, Any]) -> JSONResponse | None:
    """A context-length or content-filter 400, before any answer is written."""
    size = sum(len(text_of(m.get("content"))) for m in body.get("messages", []))
    if quirks.context is not None and size > quirks.context:
        return error(
            400,
            "This model's maximum context length is 8192 tokens. However, your messages "
            "resulted in 9001 tokens. Please reduce the length of the messages.",
            type="invalid_request_error",
            param="messages",
            code="context_length_exceeded",
        )
    if "filter" in quirks.names:
        return error(
            400,
            "The response was filtered due to the prompt triggering Azure OpenAI's content "
            "management policy. Please modify your prompt and retry.",
            type=None,
            param="prompt",
            code="content_filter",
            status=400,
        )
    return None


def text_of(content: Any) -> str:
    """A message's text, whether a string or a list of content parts."""
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content or ""


def to_langchain(messages: list[dict[str, Any]]) -> list[BaseMessage]:
    kinds = {"system": SystemMessage, "developer": SystemMessage, "assistant": AIMessage}
    return [kinds.get(m.get("role"), HumanMessage)(text_of(m.get("content"))) for m in messages]


def schema_title(messages: list[dict[str, Any]]) -> str | None:
    """The title of the first JSON schema in the messages (how JSON mode names its schema)."""
    decoder = json.JSONDecoder()
    for message in messages:
        text = text_of(message.get("content"))
        for start in (i for i, c in enumerate(text) if c == "{"):
            try:
                found, _ = decoder.raw_decode(text, start)
            except ValueError:
                continue
            if isinstance(found, dict) and isinstance(found.get("title"), str):
                return found["title"]
    return None


def role_of(body: dict[str, Any], method: str) -> str:
    if method == "json_schema":
        title = body["response_format"].get("json_schema", {}).get("name")
    elif method == "function_calling":
        title = body["tools"][0].get("function", {}).get("name")
    elif method == "json_mode":
        title = schema_title(body.get("messages", []))
    else:
        user = next((m for m in body.get("messages", []) if m.get("role") == "user"), {})
        return "answer" if "## Result" in text_of(user.get("content")) else "chat"
    return ROLES.get(title or "", "judge")


def usage(body: dict[str, Any], content: str) -> dict[str, int]:
    """About four characters a token, like the offline model's own estimate."""
    prompt = max(1, sum(len(text_of(m.get("content"))) for m in body.get("messages", [])) // 4)
    completion = max(1, len(content) // 4)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


@dataclass
class Reply:
    """An answer to send, and how this provider sends it."""

    body: dict[str, Any]
    content: str
    """The offline model's answer: JSON for structured output, text otherwise."""
    method: str
    quirks: Quirks
    id: str = field(default_factory=lambda: f"chatcmpl-{uuid.uuid4().hex[:24]}")
    created: int = field(default_factory=lambda: int(time.time()))

    @property
    def tool_name(self) -> str | None:
        if self.method != "function_calling":
            return None
        return self.body["tools"][0]["function"]["name"]

    @property
    def usage(self) -> dict[str, int] | None:
        return None if "no-usage" in self.quirks.names else usage(self.body, self.content)

    def envelope(self, kind: str) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": kind,
            "created": self.created,
            "model": self.body.get("model", "fake"),
            "system_fingerprint": "fp_fake",
        }


def completion(reply: Reply) -> dict[str, Any]:
    """A `chat.completion` object."""
    think = "".join(THINK_PIECES) if "think" in reply.quirks.names else ""
    message: dict[str, Any] = {"role": "assistant", "content": think + reply.content}
    if "reasoning-content" in reply.quirks.names:
        message["reasoning_content"] = THINKING
    finish = "stop"
    if reply.tool_name:
        message["content"] = think or None
        message["tool_calls"] = [tool_call(reply.tool_name, reply.content)]
        finish = "tool_calls"
    message["refusal"] = None
    choice = {"index": 0, "message": message, "finish_reason": finish, "logprobs": None}
    out = {**reply.envelope("chat.completion"), "choices": [choice]}
    if reply.usage is not None:
        out["usage"] = reply.usage
    return out


def tool_call(name: str, arguments: str) -> dict[str, Any]:
    call = f"call_{uuid.uuid4().hex[:24]}"
    return {"id": call, "type": "function", "function": {"name": name, "arguments": arguments}}


def deltas(reply: Reply) -> Iterator[tuple[dict[str, Any], str | None]]:
    """The stream's (delta, finish_reason) pairs, in the order a provider sends them."""
    yield {"role": "assistant", "content": ""}, None
    if "reasoning-content" in reply.quirks.names:
        for piece in words(THINKING):
            yield {"content": None, "reasoning_content": piece}, None
    if "think" in reply.quirks.names:
        for piece in THINK_PIECES:
            yield {"content": piece}, None
    if reply.tool_name:
        first = tool_call(reply.tool_name, "")
        yield {"tool_calls": [{"index": 0, **first}]}, None
        for piece in words(reply.content):
            yield {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}, None
        yield {}, "tool_calls"
        return
    for piece in words(reply.content):
        yield {"content": piece}, None
    yield {}, "stop"


def words(text: str) -> list[str]:
    """Word-sized pieces (spaces kept) so a client sees the answer arrive."""
    parts = text.split(" ")
    return [p + (" " if i < len(parts) - 1 else "") for i, p in enumerate(parts)]


async def sse(reply: Reply) -> AsyncIterator[str]:
    """`data: {chunk}` events, the usage chunk when asked for and allowed, then `[DONE]`."""
    asked = bool((reply.body.get("stream_options") or {}).get("include_usage"))
    for delta, finish in deltas(reply):
        choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
        chunk = {**reply.envelope("chat.completion.chunk"), "choices": [choice]}
        if asked:
            chunk["usage"] = None  # OpenAI's way: null on every chunk but the last
        yield f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n"
        await asyncio.sleep(0)
    if asked and reply.usage is not None:
        last = {**reply.envelope("chat.completion.chunk"), "choices": [], "usage": reply.usage}
        yield f"data: {json.dumps(last)}\n\n"
    yield "data: [DONE]\n\n"


class FakeProvider:
    """An OpenAI-compatible server on 127.0.0.1, in a background thread of this process.

    `deployment` and `catalog_dir` choose what the offline model answers from (the
    logistics demo and, by default, the deployment's own catalog). `requests` records every
    request; `reset()` clears it and the per-model counters of the `429xN`/`500xN`/`503xN`
    quirks.
    """

    def __init__(
        self,
        deployment: str = DEFAULT_DEPLOYMENT,
        catalog_dir: str | Path | None = None,
        port: int = 0,
    ) -> None:
        self.deployment = deployment
        # The deployment's own catalog unless told otherwise (a copy, a test's variant).
        self.catalog_dir = str(catalog_dir or load_deployment(deployment).catalog_dir)
        self.requests: list[RecordedRequest] = []
        self._counts: dict[str, int] = {}
        self._lock = threading.Lock()
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind(("127.0.0.1", port))
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self._socket.getsockname()[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self._counts.clear()

    def counted(self, model: str) -> int:
        """This chat request's number (1-based) among those for `model`."""
        with self._lock:
            self._counts[model] = self._counts.get(model, 0) + 1
            return self._counts[model]

    def app(self) -> FastAPI:
        return build_app(self)

    def server(self) -> uvicorn.Server:
        config = uvicorn.Config(
            self.app(),
            log_level="warning",
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=2,
        )
        return uvicorn.Server(config)

    def start(self) -> FakeProvider:
        """Serve in a background thread; returns once the port accepts connections."""
        self._server = self.server()
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 15
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the fake provider did not start")
            time.sleep(0.01)
        socket.create_connection(("127.0.0.1", self.port), timeout=5).close()
        return self

    def stop(self) -> None:
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._thread.join(timeout=10)
        self._socket.close()

    def serve_forever(self) -> None:
        """Serve in this thread until interrupted (the process mode)."""
        self.server().run(sockets=[self._socket])

    def __enter__(self) -> FakeProvider:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def build_app(provider: FakeProvider) -> FastAPI:
    app = FastAPI(title="fake OpenAI-compatible provider")

    @app.post("/v1/chat/completions")
    async def chat_completions(request: Request) -> Response:
        try:
            body = await request.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            return error(400, "We could not parse the JSON body of your request.")
        headers = dict(request.headers)
        quirks = Quirks.of(str(body.get("model", "")))
        record = RecordedRequest(
            "POST", request.url.path, body, headers, quirks, structured_method(body)
        )
        provider.requests.append(record)
        count = provider.counted(record.model)
        if quirks.slow:
            await asyncio.sleep(quirks.slow)
        refused = (
            access_error(quirks, headers)
            or failure(quirks, count)
            or request_error(quirks, body)
            or format_error(quirks, record.structured_method)
        )
        if refused is not None:
            record.status = refused.status_code
            return refused
        record.role = role_of(body, record.structured_method)
        reply = Reply(
            body, await answer(provider, record.role, body), record.structured_method, quirks
        )
        if body.get("stream"):
            return StreamingResponse(sse(reply), media_type="text/event-stream")
        return JSONResponse(completion(reply))

    @app.get("/v1/models")
    async def models(request: Request) -> Response:
        return listing(provider, request, None)

    @app.get("/v1/models/{model_id:path}")
    async def model(request: Request, model_id: str) -> Response:
        return listing(provider, request, model_id)

    return app


def listing(provider: FakeProvider, request: Request, model_id: str | None) -> Response:
    """The model list (or one model), after the key's and the model's auth quirks."""
    headers = dict(request.headers)
    quirks = Quirks.of(model_id or "")
    record = RecordedRequest("GET", request.url.path, None, headers, quirks)
    provider.requests.append(record)
    refused = access_error(quirks, headers)
    if refused is not None:
        record.status = refused.status_code
        return refused
    entry = {"object": "model", "created": 0, "owned_by": "orquestra-fake"}
    if model_id is not None:
        return JSONResponse({"id": model_id, **entry})
    return JSONResponse({"object": "list", "data": [{"id": m, **entry} for m in LISTED_MODELS]})


async def answer(provider: FakeProvider, role: str, body: dict[str, Any]) -> str:
    """The offline model's answer for `role`: a dict as JSON, a text as it is."""
    if role == "probe":
        return json.dumps({"ok": True, "word": "ready"})
    model = OfflineChatModel(
        role=role, deployment=provider.deployment, catalog_dir=provider.catalog_dir
    )
    messages = to_langchain(body.get("messages", []))
    # Over the wire there are no hints: the facts are read from the prompt, as a hosted
    # model reads them.
    out = await model.respond(messages, None, read_hints(role, messages))
    return out if isinstance(out, str) else json.dumps(out, ensure_ascii=False, default=str)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8911, help="0 picks a free port")
    parser.add_argument("--deployment", default=DEFAULT_DEPLOYMENT)
    parser.add_argument("--catalog-dir", default=None, help="the deployment's by default")
    args = parser.parse_args(argv)
    provider = FakeProvider(args.deployment, args.catalog_dir, args.port)
    print(f"fake provider at {provider.base_url}", flush=True)
    provider.serve_forever()


if __name__ == "__main__":
    main()
