"""The installed package holds every file Orquestra ships: a wheel built from the repository,
as `pip install .` and the Docker image build it, has each file of every packaged folder —
code, prompts, the deployments' catalogs and documents, the web chat's page and script.
(An editable install reads the folders in place and would hide a file the wheel lacks.)"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NOT_SHIPPED = {"evals/datasets"}
"""Folders inside packaged ones that are run from a checkout only (`make eval`)."""


def shipped_files() -> set[str]:
    """Every file of the packaged folders, as its path inside the wheel."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    folders = config["tool"]["setuptools"]["package-dir"]
    found = set()
    for package, folder in folders.items():
        root = REPO / folder
        for path in root.rglob("*"):
            relative = path.relative_to(REPO).as_posix()
            if (
                path.is_file()
                and "__pycache__" not in path.parts
                and not any(relative.startswith(f"{skip}/") for skip in NOT_SHIPPED)
            ):
                inside = path.relative_to(root).as_posix()
                found.add(f"{package.replace('.', '/')}/{inside}")
    return found


def test_the_wheel_holds_every_file_of_the_packaged_folders(tmp_path: Path) -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    source = tmp_path / "source"  # a copy: the build writes build/ and egg-info beside it
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    for folder in config["tool"]["setuptools"]["package-dir"].values():
        shutil.copytree(
            REPO / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__")
        )
    built = subprocess.run(
        [
            *(sys.executable, "-m", "pip", "wheel", str(source), "--no-deps"),
            *("--no-build-isolation", "--verbose", "--wheel-dir", str(tmp_path / "wheel")),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    output = built.stdout + built.stderr  # --verbose: the build backend's warnings too
    assert "is absent from the `packages` configuration" not in output, output[-3000:]
    (wheel,) = (tmp_path / "wheel").glob("orquestra-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    missing = sorted(shipped_files() - names)
    assert not missing, f"packaged folders' files missing from the wheel: {missing}"
    assert "orquestra/server/web/index.html" in names  # the web chat, as served
