"""`make lint`/`make test`'s type check: mypy, strict on every package: the runtime core, the
catalog, the guard, the analysis sandbox, the graph runtime, the offline models, the stages,
their wiring, the server and the evaluation harness.

mypy does not run the editable install's import hook, so the `orquestra` namespace is laid out
for it as a tree of links to the repository's folders (in a temporary directory), exactly as
`[tool.setuptools.package-dir]` maps them. Settings are in `pyproject.toml` (`[tool.mypy]`).
"""

from __future__ import annotations

import os
import sys
import tempfile
import tomllib
from pathlib import Path

from mypy import api

REPO = Path(__file__).resolve().parents[1]
STRICT = [
    "orquestra.core",
    "orquestra.ddl_catalog",
    "orquestra.guards",
    "orquestra.sandbox",
    "orquestra.graph",
    "orquestra.nodes",
    "orquestra.agent",
    "orquestra.offline",
    "orquestra.evals",
    "orquestra.server",
]
"""The packages checked (strictly, per `[tool.mypy]`); the rest are followed silently."""


def main() -> int:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    folders = project["tool"]["setuptools"]["package-dir"]
    with tempfile.TemporaryDirectory(prefix="orquestra-types-") as tree:
        for package, folder in folders.items():
            target = Path(tree, *package.split("."))
            if package == "orquestra":
                target.mkdir(parents=True)
                target.joinpath("__init__.py").write_text(
                    (REPO / folder / "__init__.py").read_text(encoding="utf-8"), encoding="utf-8"
                )
            else:
                target.symlink_to(REPO / folder, target_is_directory=True)
        args = ["--config-file", str(REPO / "pyproject.toml")]
        for package in STRICT:
            args += ["-p", package]
        here = Path.cwd()
        os.chdir(tree)  # mypy resolves `-p` packages from the working directory
        try:
            out, err, status = api.run([*args, "--cache-dir", str(REPO / ".mypy_cache")])
        finally:
            os.chdir(here)
    sys.stdout.write(out)
    sys.stderr.write(err)
    return status


if __name__ == "__main__":
    sys.exit(main())
