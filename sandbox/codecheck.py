"""The AST check model-written analysis code must pass before it runs (code mode).

Imports only from an allowlist; no dunder names or attributes; no `open`, `exec`, `eval`,
`compile`, `__import__`, `getattr`, `globals`… The sandbox confines whatever slips through.
"""

from __future__ import annotations

import ast

ALLOWED_IMPORTS = {"pandas", "numpy", "math", "statistics", "datetime", "decimal", "collections"}
FORBIDDEN_NAMES = {
    "open",
    "exec",
    "eval",
    "compile",
    "__import__",
    "getattr",
    "setattr",
    "delattr",
    "globals",
    "locals",
    "vars",
    "input",
    "breakpoint",
    "help",
    "exit",
    "quit",
    "memoryview",
    "type",
}


class CodeRejected(Exception):
    code = "CODE_REJECTED"


def check_code(source: str) -> None:
    """Raise `CodeRejected` with the reason unless `source` passes."""
    try:
        tree = ast.parse(source, mode="exec")
    except SyntaxError as exc:
        raise CodeRejected(f"not valid Python: {exc.msg} (line {exc.lineno})") from None
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            modules = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
            )
            for module in modules:
                if module.split(".")[0] not in ALLOWED_IMPORTS:
                    raise CodeRejected(f"import of {module} is not allowed")
        elif isinstance(node, ast.Name) and (
            node.id in FORBIDDEN_NAMES or node.id.startswith("__")
        ):
            raise CodeRejected(f"{node.id} is not allowed")
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            raise CodeRejected(f"attribute {node.attr} is not allowed")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "__" in node.value:
            raise CodeRejected("strings naming dunder attributes are not allowed")
