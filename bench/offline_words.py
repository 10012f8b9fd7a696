"""Count the words of a language still written in the offline model's Python.

Usage: python bench/offline_words.py [--list]
Prints, for `offline/`, the lines of Python, the string literals that are words of a
language (lower-case letters, spaces, apostrophes, hyphens; docstrings and SQL left out),
the regular-expression fragments that spell words, and the lines of language data. A literal
that names a concept of the language data is not counted: it asks for words, it is not one. With
`--list`, every remaining word literal with its place.
"""

from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent / "offline"
WORD = re.compile(r"^[a-zà-ÿ][a-zà-ÿ' -]*$")
"""A literal made of words: "maior", "em que pe", "don't"."""
REGEX = re.compile(r"\\b|\(\?:|\(\?i|\\s")
"""A literal that is a regular expression (a word boundary, a group, a space class)."""
SPELLED = re.compile(r"[a-zà-ÿ]{2,}")


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string nodes that are docstrings or attribute docstrings."""
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for statement in body:
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                found.add(id(statement.value))
    return found


def literals(path: Path) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """The word literals and the word-spelling regex fragments of one module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _docstrings(tree)
    words: list[tuple[int, str]] = []
    regexes: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
            continue
        if id(node) in skip:
            continue
        text = node.value
        if REGEX.search(text) and SPELLED.search(text):
            regexes.append((node.lineno, text))
        elif WORD.match(text) and len(text) > 1:
            words.append((node.lineno, text))
    return words, regexes


def concept_names() -> set[str]:
    """Every concept of every language pack: a literal naming one asks for data, not a word."""
    names: set[str] = set()
    for path in (ROOT / "lang").glob("*/*.yaml"):
        if path.name != "morphology.yaml":
            names |= set(yaml.safe_load(path.read_text(encoding="utf-8")) or {})
    return names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    modules = sorted(ROOT.rglob("*.py"))
    lines = sum(len(m.read_text(encoding="utf-8").splitlines()) for m in modules)
    data = sorted(p for p in ROOT.rglob("*.yaml"))
    data_lines = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in data)
    total_words = total_regexes = 0
    with_words = 0
    concepts = concept_names()
    for module in modules:
        words, regexes = literals(module)
        words = [(line, text) for line, text in words if text not in concepts]
        total_words += len(words)
        total_regexes += len(regexes)
        with_words += bool(words or regexes)
        if args.list:
            for line, text in [*words, *regexes]:
                print(f"{module.relative_to(ROOT.parent)}:{line}: {text!r}")
    print(f"offline/ Python: {lines} lines in {len(modules)} modules")
    print(f"language data:   {data_lines} lines in {len(data)} files")
    print(f"word literals in Python: {total_words} (in {with_words} modules)")
    print("  (literals naming a concept of the language data are not counted)")
    print(f"regex fragments spelling words: {total_regexes}")


if __name__ == "__main__":
    main()
