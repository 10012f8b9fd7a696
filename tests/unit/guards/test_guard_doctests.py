"""Every docstring example (`>>>`) in the guard's modules runs, and holds.

Each module of `orquestra.guards` whose source has an example is run with `doctest.testmod`;
a module counts only if it ran at least one example and none failed, and the modules that
document the guard's passes must be among them, so the test cannot pass by finding nothing.
The examples may use `parse_one` (the guard's parser) and `deparse` (pglast's `RawStream`),
as the rewrite passes' examples do; everything else they build inline.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
from types import ModuleType

import pytest
from pglast import ast
from pglast.stream import RawStream

import orquestra.guards
from orquestra.guards.validate import parse_one


def deparse(node: ast.Node) -> str:
    """The SQL text of `node`, as the guard's `deparse` pass writes it."""
    return str(RawStream()(node))


def guard_modules() -> list[ModuleType]:
    found = pkgutil.walk_packages(orquestra.guards.__path__, "orquestra.guards.")
    return [importlib.import_module(info.name) for info in found]


WITH_EXAMPLES = [m for m in guard_modules() if ">>>" in inspect.getsource(m)]
PASS_MODULES = {"sql_guard", "rewrite", "validate"}


def test_the_pass_modules_have_examples() -> None:
    names = {module.__name__.rpartition(".")[2] for module in WITH_EXAMPLES}
    assert names >= PASS_MODULES


@pytest.mark.parametrize("module", WITH_EXAMPLES, ids=lambda m: m.__name__)
def test_docstring_examples(module: ModuleType) -> None:
    results = doctest.testmod(
        module,
        extraglobs={"parse_one": parse_one, "deparse": deparse},
        optionflags=doctest.NORMALIZE_WHITESPACE,
        report=True,
    )
    assert results.attempted > 0
    assert results.failed == 0
