"""The HTTP API's request and error bodies, validated at the edge.

Text that PostgreSQL cannot store or that no person types — NUL, lone surrogates, other
control characters — is refused here with 422 `INVALID_TEXT`, before anything is written.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, Field

from orquestra.ddl_catalog.text import UNSAFE_CHARACTERS

THREAD_ID = re.compile(r"^[A-Za-z0-9-]{1,64}$")


class UnsafeText(ValueError):
    """Text with characters that no message may carry."""


def safe_text(value: str) -> str:
    """`value` unchanged, or `UnsafeText` naming the first offending character."""
    found = UNSAFE_CHARACTERS.search(value)
    if found:
        raise UnsafeText(
            f"text may not contain the character U+{ord(found.group()):04X} "
            f"(at position {found.start()})"
        )
    return value


SafeText = Annotated[str, AfterValidator(safe_text)]


def invalid_input(errors: list[Any]) -> tuple[str, str]:
    """The code and message of a validation failure: `INVALID_TEXT` when the first error is
    unsafe text, `INVALID_REQUEST` otherwise."""
    first = errors[0] if errors else {}
    where = ".".join(str(p) for p in first.get("loc", ()))
    cause = first.get("ctx", {}).get("error")
    if isinstance(cause, UnsafeText):
        return "INVALID_TEXT", f"{where}: {cause}"
    return "INVALID_REQUEST", f"{where}: {first.get('msg')}"


class ChatRequest(BaseModel):
    """A message, on a new thread (`thread_id` null) or an existing one of the caller's."""

    message: SafeText = Field(description="The user's message, in Portuguese or English.")
    thread_id: SafeText | None = Field(
        None, max_length=64, description="A thread of the caller's; null starts a new one."
    )


class DevLogin(BaseModel):
    tenant: str | int | None = Field(
        None, description="The tenant to sign in as (demo only); none where there are no tenants."
    )


class ErrorBody(BaseModel):
    """Every error: a stable code and a message safe to show to a person."""

    code: str = Field(examples=["DB_UNAVAILABLE"])
    message: str


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` for the error statuses a route can answer."""
    return {status: {"model": ErrorBody, "description": ERROR_TEXT[status]} for status in statuses}


ERROR_TEXT = {
    401: "No token, or a token that is invalid or expired (`TOKEN_*`)",
    403: "The token lacks the role this needs (`NOT_A_REVIEWER`)",
    404: "No such thread, answer or turn among the caller's (`THREAD_NOT_FOUND`,"
    " `TURN_NOT_FOUND`, `REVIEW_NOT_FOUND`)",
    409: "The thread is answering another message (`THREAD_BUSY`)",
    413: "Body or message too large (`BODY_TOO_LARGE`, `MESSAGE_TOO_LONG`)",
    422: "Invalid body or text (`INVALID_REQUEST`, `INVALID_TEXT`), or SQL a reviewer sent"
    " that the guard or the database refused (its code)",
    429: "Too many questions at once for this tenant (`TOO_MANY_RUNS`)",
    503: "The database is unavailable (`DB_UNAVAILABLE`), or the server is shutting down"
    " (`SHUTTING_DOWN`); retry after `Retry-After` seconds",
}
