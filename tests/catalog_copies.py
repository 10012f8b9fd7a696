"""Copies of the demo catalog with one deliberate change, for tests that must see it caught."""

from __future__ import annotations

import shutil
from pathlib import Path

from orquestra.ddl_catalog import DEMO_CATALOG_DIR


def catalog_copy(tmp_path: Path) -> Path:
    """A writable copy of the demo catalog (systems and glossary)."""
    target = tmp_path / "catalog"
    shutil.copytree(DEMO_CATALOG_DIR / "systems", target / "systems")
    shutil.copy(DEMO_CATALOG_DIR / "glossary.yaml", target / "glossary.yaml")
    return target


def edit(path: Path, old: str, new: str) -> int:
    """Replace `old` (which must occur once) with `new`; return the 1-based line of the edit."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return text[: text.index(old)].count("\n") + 1
