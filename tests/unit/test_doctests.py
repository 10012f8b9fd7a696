"""Every docstring example (`>>>`) in Orquestra's packages runs, and holds.

Each module of each package whose source has an example is run with `doctest.testmod`; a
module counts only if it ran at least one example and none failed, and the modules listed in
`MUST_HAVE_EXAMPLES` (the guard's passes among them) must be found, so the test cannot pass by
finding nothing. The examples may use `parse_one` (the guard's parser) and `deparse` (pglast's
`RawStream`), as the guard's rewrite passes' examples do; everything else they build inline.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import pkgutil
from pathlib import Path
from types import ModuleType

import pytest
from pglast import ast
from pglast.stream import RawStream

from orquestra.guards.validate import parse_one

PACKAGES = (
    "core",
    "ddl_catalog",
    "guards",
    "offline",
    "sandbox",
    "graph",
    "nodes",
    "agent",
    "server",
    "evals",
)
MUST_HAVE_EXAMPLES = {
    "orquestra.guards.sql_guard",
    "orquestra.offline.readings",
    "orquestra.guards.rewrite",
    "orquestra.guards.validate",
    "orquestra.core.errors",
    "orquestra.core.deployment",
    "orquestra.ddl_catalog.personal_data",
    "orquestra.sandbox.output",
}
KNOWN_FAILING: dict[str, str] = {}
"""Modules whose examples are known to fail, with why; each must still fail (strict xfail)."""


def deparse(node: ast.Node) -> str:
    """The SQL text of `node`, as the guard's `deparse` pass writes it."""
    return str(RawStream()(node))


def has_examples(name: str) -> bool:
    spec = importlib.util.find_spec(name)
    origin = spec.origin if spec else None
    return bool(origin and origin.endswith(".py") and ">>>" in Path(origin).read_text("utf-8"))


def modules_with_examples() -> list[str]:
    names = []
    for package in PACKAGES:
        root = importlib.import_module(f"orquestra.{package}")
        names.append(root.__name__)
        names += [info.name for info in pkgutil.walk_packages(root.__path__, f"{root.__name__}.")]
    return [name for name in names if has_examples(name)]


WITH_EXAMPLES = modules_with_examples()


def test_the_documented_modules_have_examples() -> None:
    assert set(WITH_EXAMPLES) >= MUST_HAVE_EXAMPLES
    assert set(WITH_EXAMPLES) >= set(KNOWN_FAILING)


def run_examples(module: ModuleType) -> doctest.TestResults:
    return doctest.testmod(
        module,
        extraglobs={"parse_one": parse_one, "deparse": deparse},
        optionflags=doctest.NORMALIZE_WHITESPACE,
        report=True,
    )


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=KNOWN_FAILING[name]))
        if name in KNOWN_FAILING
        else name
        for name in WITH_EXAMPLES
    ],
)
def test_docstring_examples(name: str) -> None:
    results = run_examples(importlib.import_module(name))
    assert results.attempted > 0
    assert results.failed == 0
