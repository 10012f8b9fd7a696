"""One vocabulary for failures: a stable `code` and a `message` a person can act on.

Every error Orquestra names derives from `OrquestraError`, so the command line, the server and
the evaluation harness catch one class and print `error [CODE]: message`, never a traceback.
A class names its code once (`code = "DB_UNAVAILABLE"`) and is raised with just the message,
or, when one class carries several codes, with the code first:

    >>> class CatalogProblem(OrquestraError):
    ...     code = "CATALOG_INVALID"
    >>> str(CatalogProblem("glossary.yaml:3: unknown table"))
    'CATALOG_INVALID: glossary.yaml:3: unknown table'
    >>> CatalogProblem("CATALOG_EMPTY", "no system files").code
    'CATALOG_EMPTY'
"""

from __future__ import annotations


class OrquestraError(Exception):
    """A failure with a name: `code` (stable, for people, logs and metrics) and `message`
    (plain words, safe to show; details that are not go to the log)."""

    code: str = "ERROR"

    def __init__(self, code_or_message: str, message: str | None = None) -> None:
        if message is None:
            code, message = type(self).code, code_or_message
        else:
            code = code_or_message
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
