"""Observability as an operator meets it: JSON log lines per stage, and traces reaching
LangSmith, Langfuse and an OpenTelemetry collector — here local HTTP receivers standing in
for them, since the machine has no network — from a real `orquestra ask` process."""

from __future__ import annotations

import gzip
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tests.integration.test_cli import run


class Receiver:
    """Accepts anything with 200 and keeps (method, path, headers, body) of every request."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, dict[str, str], bytes]] = []
        received = self.requests

        class Handler(BaseHTTPRequestHandler):
            def _any(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                received.append((self.command, self.path, dict(self.headers), body))
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.end_headers()
                self.wfile.write(b"{}")

            do_GET = do_POST = do_PUT = do_PATCH = _any

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def bodies(self, path: str) -> list[bytes]:
        return [
            gzip.decompress(body) if headers.get("Content-Encoding") == "gzip" else body
            for _, p, headers, body in self.requests
            if p == path
        ]

    def spans(self, path: str) -> list:
        spans = []
        for body in self.bodies(path):
            export = ExportTraceServiceRequest.FromString(body)
            for resource in export.resource_spans:
                for scope in resource.scope_spans:
                    spans += list(scope.spans)
        return spans


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found = Receiver()
    yield found
    found.server.shutdown()


def test_stage_logs_and_three_tracing_backends(demo_db, data_dir: Path, receiver: Receiver) -> None:
    result = run(
        "-v",
        "ask",
        "--tenant",
        "101",
        "status da nota 40908",
        data_dir=data_dir,
        LANGSMITH_API_KEY="lsv2-test",
        LANGSMITH_ENDPOINT=receiver.url,
        LANGFUSE_PUBLIC_KEY="pk-lf-test",
        LANGFUSE_SECRET_KEY="sk-lf-test",
        LANGFUSE_HOST=receiver.url,
        OTEL_EXPORTER_OTLP_ENDPOINT=receiver.url,
    )
    assert result.returncode == 0, result.stderr[-3000:]

    # One JSON object per line on stderr; one per stage, with the run's identity and progress.
    lines = [json.loads(line) for line in result.stderr.splitlines() if line.startswith("{")]
    nodes = [line for line in lines if line["event"] == "node"]
    assert [n["node"] for n in nodes][:3] == ["short_circuit", "input_rails", "augmenter"]
    run_ids = {n["run_id"] for n in nodes}
    assert len(run_ids) == 1 and None not in run_ids
    assert {n["tenant"] for n in nodes} == {"101"} and all(n["thread_id"] for n in nodes)
    executor = next(n for n in nodes if n["node"] == "executor")
    assert executor["sql_attempts"] == 1 and executor["caps_hit"] == []
    assert "eventos_rastreamento" in executor["sources"]["tables"]
    assert all(isinstance(n["ms"], float) for n in nodes)
    rails = [line for line in lines if line["event"] == "guardrail"]
    assert {(r["rail"], r["code"], r["outcome"]) for r in rails} >= {
        ("PINJ", "GRL.002", "pass"),
        ("groundedness", "JDG.001", "pass"),
    }

    # OpenTelemetry: one span per stage, tagged with the run.
    spans = receiver.spans("/v1/traces")
    names = [span.name for span in spans]
    for stage in ("orquestra.input_rails", "orquestra.sql_writer", "orquestra.executor"):
        assert stage in names, names
    attributes = {a.key: a.value.string_value for a in spans[0].attributes}
    assert attributes["tenant"] == "101" and attributes["run_id"] in run_ids

    # LangSmith: the turn's runs, posted to its API with the key.
    posted = b"".join(receiver.bodies("/runs/multipart"))
    assert b"orquestra turn" in posted and b"sql_writer" in posted
    keys = {h.get("x-api-key") or h.get("X-Api-Key") for _, p, h, _ in receiver.requests}
    assert "lsv2-test" in keys

    # Langfuse: its OTLP ingestion endpoint receives the LangChain callback's spans.
    langfuse = receiver.spans("/api/public/otel/v1/traces")
    assert langfuse and any("orquestra turn" in span.name for span in langfuse)
