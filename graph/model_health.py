"""Whether each configured model can be used at all, for `/readyz`: credentials first.

A model whose provider refuses the credentials cannot answer anyone, so readiness says so.
What is known comes from two places: every real call (a `MODEL_AUTH` failure marks the model,
a success clears it), and, for OpenAI-compatible endpoints, a cheap probe — reading the
model's entry, which costs no tokens — made at most once a minute per model, so a load
balancer's frequent probes never turn into provider traffic. A probe can only add a refusal;
only a real call that succeeds clears one.
"""

from __future__ import annotations

import asyncio
import time

from langchain_core.language_models import BaseChatModel

from orquestra.graph.model_errors import ModelAuth, ModelError, classify

PROBE_EVERY_S = 60.0
PROBE_TIMEOUT_S = 5.0

_refused: dict[str, str] = {}
"""Model key → why its provider refused the credentials, until a call succeeds."""
_probed: dict[str, float] = {}


def key_of(model: BaseChatModel) -> str:
    return str((model.metadata or {}).get("orquestra_key", id(model)))


def succeeded(model: BaseChatModel) -> None:
    _refused.pop(key_of(model), None)


def failed(model: BaseChatModel, failure: ModelError) -> None:
    if isinstance(failure, ModelAuth):
        _refused[key_of(model)] = failure.detail


async def credentials(model: BaseChatModel) -> str:
    """`ok`, or `MODEL_AUTH: …` when the provider refuses this model's credentials."""
    key = key_of(model)
    client = getattr(model, "root_async_client", None)
    due = time.monotonic() - _probed.get(key, float("-inf")) >= PROBE_EVERY_S
    if client is not None and due:
        _probed[key] = time.monotonic()
        name = getattr(model, "model_name", None)
        try:  # this model's own entry: a key may list models yet not reach this one
            probe = client.models.retrieve(name) if name else client.models.list()
            await asyncio.wait_for(probe, PROBE_TIMEOUT_S)
        except Exception as error:  # the probe informs; only a refusal of credentials counts
            found = classify(error)
            if isinstance(found, ModelAuth):
                _refused[key] = found.detail
    return f"{ModelAuth.code}: {_refused[key]}" if key in _refused else "ok"


def forget() -> None:
    """Forget what is known (tests)."""
    _refused.clear()
    _probed.clear()
