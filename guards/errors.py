"""Why the guard refused a query: a stable code and a plain message, never a stack trace."""

from __future__ import annotations

from orquestra.core.errors import OrquestraError


class GuardRejection(OrquestraError):
    """The SQL was refused; `code` is stable (`docs/reference/errors.md`), `message` is safe
    to show a user."""

    def as_dict(self) -> dict[str, str]:
        return {"rejected": self.code, "message": self.message}
