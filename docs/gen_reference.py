"""Writes the reference pages of the documentation site from the code, so they cannot drift.

    python docs/gen_reference.py            # (re)write docs/reference/*.md
    python docs/gen_reference.py --check    # exit 1 and name the pages that differ

Each page is built from what the program itself uses: the command line from its argument
parsers, the settings from `Settings`, the HTTP API from the app's OpenAPI document, the events
from their models, the error codes from the places that raise them, and the deployment's files
from their models. The output is deterministic (sorted, no dates), and nothing connects to a
database: the app is built but never started. `tests/unit/test_reference_pages.py` fails when a
committed page differs from what this writes.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
if str(HERE) not in sys.path:  # the page builders beside this file, when run as a script
    sys.path.insert(0, str(HERE))

from refgen import (  # noqa: E402  (after the path above)
    cli_page,
    deployment_files_page,
    errors_page,
    events_page,
    http_page,
    settings_page,
)

OUT = HERE / "reference"
PAGES: dict[str, Callable[[], str]] = {
    "cli.md": cli_page.render,
    "settings.md": settings_page.render,
    "http-api.md": http_page.render,
    "events.md": events_page.render,
    "errors.md": errors_page.render,
    "deployment-files.md": deployment_files_page.render,
}
"""Each page's file name under `docs/reference/` and the function that writes it."""
OWN_VARIABLES = ("ORQUESTRA_", "DATABASE_URL", "OPENAI_", "LANGSMITH_", "LANGCHAIN_", "LANGFUSE_")


@contextmanager
def hermetic_environment() -> Iterator[None]:
    """No variable or config file of the machine's changes a default the pages show."""
    saved = dict(os.environ)
    for name in list(os.environ):
        if name.startswith(OWN_VARIABLES) or name.startswith("OTEL_") or name == "COLUMNS":
            del os.environ[name]
    os.environ["ORQUESTRA_CONFIG"] = str(REPO / "no-such-config-file.yaml")
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def build() -> dict[str, str]:
    """Every page's text by file name."""
    with hermetic_environment():
        return {name: render() for name, render in PAGES.items()}


def differing(pages: dict[str, str], folder: Path = OUT) -> list[str]:
    """The pages whose committed text is not what `build` writes (missing ones included)."""
    found = []
    for name, text in pages.items():
        path = folder / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            found.append(name)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare; write nothing")
    args = parser.parse_args(argv)
    pages = build()
    stale = differing(pages)
    if args.check:
        for name in stale:
            print(f"docs/reference/{name} is out of date: run `make reference`")
        return 1 if stale else 0
    OUT.mkdir(exist_ok=True)
    for name in stale:
        (OUT / name).write_text(pages[name], encoding="utf-8")
        print(f"wrote docs/reference/{name}")
    if not stale:
        print("docs/reference: up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
