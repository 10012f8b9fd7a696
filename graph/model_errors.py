"""Model provider failures by name: a stable code, an honest message, and what to do.

A provider's error (an HTTP status and body through the OpenAI SDK, Anthropic's or Google's
client, or a transport failure) is classified into one of six codes that users, operators and
`/metrics` can act on; INTERNAL stays for Orquestra's own bugs. Classification reads what every
client exposes — a status code, an error code in the body, a `Retry-After` header, the
exception's class — so it holds for any provider behind `init_chat_model`.
"""

from __future__ import annotations

import asyncio
import re
from email.utils import parsedate_to_datetime
from typing import Any

from prometheus_client import Counter

from orquestra.core.errors import OrquestraError
from orquestra.core.texts import say

MODEL_ERRORS = Counter(
    "orquestra_model_errors_total", "Model calls that failed, by role and code", ["role", "code"]
)


class ModelError(OrquestraError):
    """A model call failed for a reason outside Orquestra; `code` names it. `message` is the
    provider's detail (for the log); `for_user(lang)` is what a person reads."""

    code = "MODEL_UNAVAILABLE"

    def __init__(self, detail: str, *, retry_after: float | None = None) -> None:
        super().__init__(detail)
        self.retry_after = retry_after

    @property
    def detail(self) -> str:
        return self.message

    def for_user(self, lang: str = "en") -> str:
        """What the user reads, in their language (the detail goes to the log)."""
        return say(f"model.{self.code}", lang)


class ModelAuth(ModelError):
    code = "MODEL_AUTH"


class ModelRateLimited(ModelError):
    code = "MODEL_RATE_LIMITED"


class ModelTimeout(ModelError):
    code = "MODEL_TIMEOUT"


class ModelContext(ModelError):
    code = "MODEL_CONTEXT"


class ModelRefused(ModelError):
    code = "MODEL_REFUSED"


CONTEXT_WORDS = re.compile(
    r"context[_ ]length|maximum context|context window|too many tokens|prompt is too long"
    r"|reduce the length|input is too long|exceeds the (model's )?(maximum|max)",
    re.IGNORECASE,
)
FILTER_WORDS = re.compile(
    r"content[_ ]filter|content management policy|content[_ ]policy|safety (system|filter)"
    r"|responsible ai|blocked by (the )?safety",
    re.IGNORECASE,
)
FORMAT_WORDS = re.compile(
    r"response_format|json[_ ]schema|json_object|json mode|structured output|\btools?\b"
    r"|tool_choice|function[_ ]call|\bfunctions?\b|guided_json|grammar",
    re.IGNORECASE,
)
UNSUPPORTED_WORDS = re.compile(
    r"not supported|unsupported|does not support|doesn't support|not available|invalid"
    r"|unknown|unrecognized|not allowed|is not|cannot|can't|extra (inputs|fields)",
    re.IGNORECASE,
)


def status_of(error: BaseException) -> int | None:
    """The HTTP status a provider answered with, however its client carries it."""
    for holder in (error, getattr(error, "response", None)):
        status = getattr(holder, "status_code", None) or getattr(holder, "status", None)
        if isinstance(status, int):
            return status
    return None


def _text(error: BaseException) -> str:
    body = getattr(error, "body", None)
    code = getattr(error, "code", None)
    return " ".join(str(part) for part in (error, body, code) if part)


def retry_after(error: BaseException) -> float | None:
    """Seconds the provider asked us to wait (`Retry-After`/`retry-after-ms`), if it said."""
    headers: Any = getattr(getattr(error, "response", None), "headers", None) or {}
    try:
        if headers.get("retry-after-ms"):
            return float(headers["retry-after-ms"]) / 1000
        value = headers.get("retry-after")
    except (AttributeError, TypeError, ValueError):
        return None
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:  # an HTTP date
            from datetime import UTC, datetime

            return max(0.0, (parsedate_to_datetime(value) - datetime.now(UTC)).total_seconds())
        except (TypeError, ValueError):
            return None


def is_timeout(error: BaseException) -> bool:
    if isinstance(error, TimeoutError | asyncio.TimeoutError):
        return True
    return any("Timeout" in kind.__name__ for kind in type(error).__mro__)


def classify(error: BaseException) -> ModelError | None:
    """The named failure `error` is, or None when it is not a provider's failure."""
    if isinstance(error, ModelError):
        return error
    status, text = status_of(error), _text(error)
    detail = f"{type(error).__name__}: {error}"[:500]
    if FILTER_WORDS.search(text):
        return ModelRefused(detail)
    if CONTEXT_WORDS.search(text) and status in (None, 400, 413, 422):
        return ModelContext(detail)
    if status in (401, 403):
        return ModelAuth(detail)
    if status == 429:
        return ModelRateLimited(detail, retry_after=retry_after(error))
    if status == 408 or is_timeout(error):
        return ModelTimeout(detail)
    if status is not None and (status >= 500 or status in (404, 400, 409, 422)):
        return ModelError(detail)  # an outage, or a model the provider does not serve
    if any(kind.__name__ in TRANSPORT_ERRORS for kind in type(error).__mro__):
        return ModelError(detail)
    return None


TRANSPORT_ERRORS = ("APIConnectionError", "ConnectError", "RemoteProtocolError", "ReadError")
"""Client exception classes (openai, httpx) that mean the provider could not be reached."""


def rejects_format(error: BaseException) -> bool:
    """The provider (or its client) refused the structured-output request format itself —
    JSON schema, tools, JSON mode — rather than failing: the next method may work."""
    if isinstance(error, NotImplementedError):
        return True
    status, text = status_of(error), _text(error)
    if status is None and not isinstance(error, ValueError | TypeError):
        return False
    if status not in (None, 400, 404, 415, 422, 501):
        return False
    if CONTEXT_WORDS.search(text) or FILTER_WORDS.search(text):
        return False
    return bool(FORMAT_WORDS.search(text) and UNSUPPORTED_WORDS.search(text))
