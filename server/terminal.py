"""What the command line prints when it stops on an error: a code and a plain message."""

from __future__ import annotations

import sys


def fail(code: str, message: str) -> int:
    """Print `error [CODE]: message` to stderr; the exit code of a user-facing error (2)."""
    print(f"error [{code}]: {message}", file=sys.stderr)
    return 2
