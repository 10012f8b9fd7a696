"""The catalog's own error: a stable code and a message naming the file and the line."""

from __future__ import annotations

from orquestra.core.errors import OrquestraError


class CatalogError(OrquestraError):
    """A catalog file is invalid; `code` is stable, `message` names file and line."""
