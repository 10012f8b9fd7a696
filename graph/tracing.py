"""Tracing, all optional: LangSmith and Langfuse through LangChain callbacks, OpenTelemetry spans.

`configure(settings)` runs once per process (when the resources open): it builds the
callback handlers whose keys are set and, when an OTLP endpoint is configured, installs an
OpenTelemetry tracer provider so that every stage's span (`graph.stage`) is exported.
`callbacks()` is what each run passes in its config. With nothing configured there are no
handlers and the stages' spans are no-ops. A backend whose package is missing is reported
once in the log and skipped; it never stops a run.
"""

from __future__ import annotations

import logging
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler

from orquestra.core.settings import Settings

log = logging.getLogger("orquestra.tracing")
_handlers: list[BaseCallbackHandler] = []
_configured: dict[str, Any] = {}


def configure(settings: Settings) -> list[str]:
    """Set up every tracing backend the settings name; returns the ones now active."""
    tracing = settings.tracing
    key = tracing.model_dump_json()
    if _configured.get("key") == key:
        return list(_configured["active"])
    handlers: list[BaseCallbackHandler] = []
    active: list[str] = []
    for name, build in (("langsmith", _langsmith), ("langfuse", _langfuse)):
        try:
            handler = build(tracing)
        except ImportError as error:
            log.warning("tracing backend unavailable", extra={"backend": name, "error": str(error)})
            continue
        if handler is not None:
            handlers.append(handler)
            active.append(name)
    if tracing.otlp_endpoint and "otlp" not in _configured:
        try:
            _configured["otlp"] = _opentelemetry(tracing.otlp_endpoint, tracing.service_name)
            active.append("otlp")
        except ImportError as error:
            log.warning(
                "tracing backend unavailable", extra={"backend": "otlp", "error": str(error)}
            )
    elif "otlp" in _configured:
        active.append("otlp")
    _handlers[:] = handlers
    _configured.update(key=key, active=active)
    if active:
        log.info("tracing on", extra={"backends": active})
    return active


def callbacks() -> list[BaseCallbackHandler]:
    """The LangChain callback handlers each run carries (empty when none is configured)."""
    return list(_handlers)


def flush() -> None:
    """Send what the backends still hold (at shutdown, and in tests)."""
    for handler in _handlers:
        client = getattr(handler, "client", None)
        if client is not None and hasattr(client, "flush"):
            client.flush()
    if _handlers:
        from langchain_core.tracers.langchain import wait_for_all_tracers

        wait_for_all_tracers()
    langfuse = _configured.get("langfuse")
    if langfuse is not None:
        langfuse.flush()
    provider = _configured.get("otlp")
    if provider is not None:
        provider.force_flush()


def _langsmith(tracing: Any) -> BaseCallbackHandler | None:
    if not tracing.langsmith_api_key:
        return None
    from langchain_core.tracers import LangChainTracer
    from langsmith import Client

    client = Client(api_key=tracing.langsmith_api_key, api_url=tracing.langsmith_endpoint)
    return LangChainTracer(project_name=tracing.langsmith_project, client=client)


def _langfuse(tracing: Any) -> BaseCallbackHandler | None:
    if not (tracing.langfuse_public_key and tracing.langfuse_secret_key):
        return None
    from langfuse import Langfuse
    from langfuse.langchain import CallbackHandler
    from opentelemetry.sdk.trace import TracerProvider

    # Its own tracer provider: Langfuse's spans go to Langfuse, the stages' spans to OTLP.
    client = Langfuse(
        public_key=tracing.langfuse_public_key,
        secret_key=tracing.langfuse_secret_key,
        host=tracing.langfuse_host,
        tracer_provider=TracerProvider(),
    )
    _configured["langfuse"] = client
    return CallbackHandler(public_key=tracing.langfuse_public_key)


def _opentelemetry(endpoint: str, service: str) -> Any:
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    exporter = OTLPSpanExporter(endpoint=f"{endpoint.rstrip('/')}/v1/traces")
    provider.add_span_processor(BatchSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    return provider
