"""Model factory: one `provider:model` string per role, built in one place.

Specs: `offline` (the embedded offline model, the default without an API key),
`scripted:PATH` (canned responses for tests and demos), or anything `init_chat_model`
understands (`openai:gpt-4o-mini`, `anthropic:…`). OpenAI-compatible servers (Ollama, vLLM,
llama.cpp) work through `OPENAI_BASE_URL`. Clients are cached per spec and role.

This is the one module outside `offline/` that imports it (when a spec names one of its
models): the rest of the code knows in-process models only by the runtime's base
(`graph.local_model.LocalChatModel`) and the facts it hands them (`graph.hints`).
"""

from __future__ import annotations

import logging
from functools import cache
from typing import Any

from langchain_core.language_models import BaseChatModel

from orquestra.core.settings import Settings
from orquestra.graph.context import ROLES, RunContext
from orquestra.graph.local_model import LocalChatModel
from orquestra.graph.model_errors import ModelError

log = logging.getLogger("orquestra.model")


class ModelUnavailable(ModelError):
    """A configured model cannot be built (unknown provider, missing package or key): the
    configuration is what the user needs to hear about."""

    code = "MODEL_UNAVAILABLE"

    def for_user(self, lang: str = "en") -> str:
        return self.message


def spec_for(role: str, context: RunContext, settings: Settings) -> str:
    """The model spec a role uses: run context, then settings per role, then the default."""
    configured = context.models.get(role) or getattr(settings.models, role, None)
    if configured:
        return configured
    if settings.models.default:
        return settings.models.default
    return "openai:gpt-4o-mini" if settings.openai_api_key else "offline"


def model_for(role: str, context: RunContext, settings: Settings) -> BaseChatModel:
    """The chat model serving `role` in this run."""
    spec = spec_for(role, context, settings)
    model = _build(
        spec,
        role,
        settings.limits.model_timeout_s,
        settings.openai_base_url,
        settings.openai_api_key,
        settings.deployment,
        str(settings.catalog_folder),
    )
    # What the structured-output layer needs to know: the configured method, and the key
    # (spec and endpoint) under which `auto` remembers the method that worked.
    model.metadata = {
        **(model.metadata or {}),
        "orquestra_key": f"{spec}@{settings.openai_base_url or ''}",
        "orquestra_structured_output": settings.models.method_for(role, spec),
    }
    return model


def prepare_models(settings: Settings) -> None:
    """Build every role's configured model now, in the caller's thread: importing a
    provider's client takes seconds, and an in-process model reads its files (`prepare`),
    work that belongs at start-up rather than on the event loop in a run's first call.
    A model that cannot be built is left for the run to report (`ModelUnavailable`)."""
    for role in ROLES:
        try:
            model = model_for(role, RunContext(), settings)
        except Exception as error:  # e.g. a provider's client refusing a missing key
            log.warning("model for %s not built at start-up: %s", role, error)
            continue
        if isinstance(model, LocalChatModel):
            model.prepare()


@cache
def _build(
    spec: str,
    role: str,
    timeout_s: float,
    base_url: str | None,
    api_key: str | None,
    deployment: str,
    catalog_dir: str,
) -> BaseChatModel:
    if spec == "offline":
        from orquestra.offline import OfflineChatModel

        return OfflineChatModel(role=role, deployment=deployment, catalog_dir=catalog_dir)
    if spec.startswith("scripted:"):
        from orquestra.offline.scripted import ScriptedChatModel, script

        path = spec.removeprefix("scripted:")
        return ScriptedChatModel(role=role, script_path=path, delay_ms=script(path).delay_ms)
    from langchain.chat_models import init_chat_model

    provider = spec.split(":", 1)[0] if ":" in spec else None
    # Retries are ours (graph.llm: Retry-After within the turn's budget), not the client's.
    extra: dict[str, Any] = {"timeout": timeout_s, "max_retries": 0}
    if provider == "openai":
        extra.update({k: v for k, v in (("base_url", base_url), ("api_key", api_key)) if v})
        extra["stream_usage"] = True  # ask for the usage chunk; providers without one are estimated
    try:
        # `configurable_fields=None` (the default) said aloud: the overload of a built model.
        return init_chat_model(spec, configurable_fields=None, **extra)
    except (ImportError, ValueError) as exc:
        raise ModelUnavailable(f"model {spec!r} for {role} cannot be used: {exc}") from exc
