"""Why the guard refused a query: a stable code and a plain message, never a stack trace."""

from __future__ import annotations


class GuardRejection(Exception):
    """The SQL was refused; `code` is stable (see README), `message` is safe to show a user."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    def as_dict(self) -> dict[str, str]:
        return {"rejected": self.code, "message": self.message}
