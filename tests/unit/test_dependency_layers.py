"""Dependencies point one way: a lower layer never imports a higher one.

Every `import` of every module (inside functions too) is read with `ast`. The layers, lowest
first, are the "Layers" table of docs/architecture.md; a module may import its own layer and
the ones below it. Everything installs under the `orquestra` namespace, so a bare `import graph`
(which would load a second copy of a module) is refused anywhere in the repository.

The in-process models (`offline/`) sit above the runtime, whose contract they implement
(`graph.local_model`, `graph.hints`), and no other package imports them: only the model
factory, which builds them by spec. (Tests and benchmarks may.)
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LAYERS: list[tuple[str, ...]] = [
    ("deployments",),
    ("core",),
    ("ddl_catalog",),
    ("guards",),
    ("sandbox",),
    ("graph",),
    ("offline",),
    ("nodes",),
    ("agent",),
    ("server", "evals"),
]
"""Lowest first: the data of the sample deployments, the foundations (settings, database,
limits, the deployment folder and its profile), the catalog (with the deployment's words and
language detection), the tenant guard, the analysis sandbox, the graph runtime, the
in-process models, the stages, their assembly, and the entry points."""
RANK = {package: rank for rank, packages in enumerate(LAYERS) for package in packages}
OTHER_CODE = ("tests", "bench")
OFFLINE = "offline"
MODEL_FACTORY = Path("graph", "models.py")
"""The one module outside `offline/` that imports it: it turns `offline` and `scripted:`
specs into models."""


def imported(path: Path) -> list[tuple[int, str]]:
    """(line, dotted name) of every module `path` imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append((node.lineno, node.module))
    return found


def ours(name: str) -> str | None:
    """The layer package `orquestra.<package>…` names, if it is one of ours."""
    parts = name.split(".")
    return parts[1] if parts[0] == "orquestra" and len(parts) > 1 else None


def sources(*folders: str) -> list[Path]:
    return [p for folder in folders for p in sorted((REPO / folder).rglob("*.py"))]


def upward_imports() -> list[str]:
    wrong = []
    for package, rank in RANK.items():
        for path in sources(package):
            where = path.relative_to(REPO)
            for line, name in imported(path):
                target = ours(name)
                if target is None or target not in RANK or RANK[target] <= rank:
                    continue
                if not (where == MODEL_FACTORY and target == OFFLINE):  # builds them by spec
                    wrong.append(f"{where}:{line}: {package} imports {name} (a higher layer)")
    return wrong


def imports_offline(where: Path, name: str) -> bool:
    """The module at `where` (relative to the repository) importing `name` reaches into the
    in-process models from outside them, and is not the model factory."""
    return ours(name) == OFFLINE and where.parts[0] != OFFLINE and where != MODEL_FACTORY


def offline_imports() -> list[str]:
    wrong = []
    for path in sources(*RANK):
        where = path.relative_to(REPO)
        for line, name in imported(path):
            if imports_offline(where, name):
                wrong.append(f"{where}:{line}: imports {name} (only {MODEL_FACTORY} may)")
    return wrong


def bare_imports() -> list[str]:
    wrong = []
    for path in sources(*RANK, *OTHER_CODE):
        for line, name in imported(path):
            if name.split(".")[0] in RANK:
                wrong.append(f"{path.relative_to(REPO)}:{line}: import {name} (not orquestra.*)")
    return wrong


def test_no_layer_imports_a_higher_one() -> None:
    assert upward_imports() == []


def test_only_the_model_factory_imports_the_in_process_models() -> None:
    assert offline_imports() == []


def test_every_import_of_ours_goes_through_the_namespace() -> None:
    assert bare_imports() == []


def test_every_package_has_a_layer() -> None:
    packages = {p.parent.name for p in REPO.glob("*/__init__.py")} - {"orquestra", *OTHER_CODE}
    assert packages == set(RANK)


@pytest.mark.parametrize(
    ("text", "wrong"),
    [
        ("from orquestra.nodes.prompts import prompt\n", True),
        ("def f():\n    from orquestra.server import app\n", True),
        ("from orquestra.ddl_catalog import load_catalog\n", False),
    ],
)
def test_the_check_sees_an_upward_import(tmp_path: Path, text: str, wrong: bool) -> None:
    # The check must be able to fail: a guards module importing a stage or the server.
    module = tmp_path / "m.py"
    module.write_text(text, encoding="utf-8")
    names = [name for _line, name in imported(module)]
    assert any(RANK[ours(n)] > RANK["guards"] for n in names if ours(n)) is wrong


@pytest.mark.parametrize(
    ("where", "text", "wrong"),
    [
        ("nodes/m.py", "from orquestra.offline.answers import SYMBOLS\n", True),
        ("graph/llm.py", "def f():\n    from orquestra.offline import Model\n", True),
        ("server/m.py", "import orquestra.offline.scripted\n", True),
        ("graph/models.py", "def f():\n    from orquestra.offline import Model\n", False),
        ("offline/m.py", "from orquestra.offline.parser import parse\n", False),
        ("nodes/m.py", "from orquestra.graph.hints import ModelHints\n", False),
    ],
)
def test_the_check_sees_an_import_of_the_in_process_models(
    tmp_path: Path, where: str, text: str, wrong: bool
) -> None:
    # The check must be able to fail: a stage, the runtime or the server importing offline/.
    module = tmp_path / "m.py"
    module.write_text(text, encoding="utf-8")
    names = [name for _line, name in imported(module)]
    assert any(imports_offline(Path(where), n) for n in names) is wrong
