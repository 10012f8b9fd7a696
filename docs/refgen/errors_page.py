"""The error codes page, from the places in the code that name a code.

A code is a `SCREAMING_SNAKE` string in a code's place: the `code = "…"` of a class, a
`code=` keyword, a `{"code": …}` body or `"stop_reason"`, the argument named `code` (or
`reason`) of a call to one of our classes or functions (an `OrquestraError`'s first argument
included), or a value of a `…_CODES` table. Each is listed with the message written beside it
and the files that raise it.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

from .common import code, page, relative, sources, table

CODE = re.compile(r"^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$|^[A-Z]{4,}$")
CODE_PARAMETERS = ("code", "code_or_message", "reason")
INTRO = """
Every code Orquestra names, found in the code where it is raised. A person reads it as
`error [CODE]: message` on the command line, as `{"code", "message"}` from the HTTP API, as the
`code` of an [`error` event](events.md#error) or a `stop_reason` of a
[`result`](events.md#result). The message shown is one the code raises (parts in `{…}` are
filled in); what changes from one raise to another goes to the log, never to the user.
"""
KINDS = {
    "error": "Errors",
    "http": "HTTP refusals",
    "finding": "Findings (reported by checks, not raised)",
    "stop": "Stop reasons (a turn ended early, honestly)",
}
KIND_TEXT = {
    "error": "Raised as an `OrquestraError`: the command stops with its code, the server answers"
    " `{code, message}`, a turn ends with an `error` event.",
    "http": "Answered by the HTTP server (or LangGraph Server's authentication) with a status.",
    "finding": "Reported by `orquestra catalog check` (differences from the live database) and"
    " `orquestra db policies` (what the database layer leaves open); exit code 1.",
    "stop": "A turn's `stop_reason`: a cap or a refusal ended it, and the answer says what was"
    " tried.",
}


@dataclass
class Code:
    """One code: its kind, an example message, an HTTP status if any, where it is raised."""

    name: str
    kind: str
    message: str = ""
    status: int | None = None
    places: set[str] = field(default_factory=set)
    about: str = ""
    """The docstring of the class that names it (shown when no raise gives a message)."""


@dataclass
class Callee:
    """A class or function of ours that takes a code: at which position, and its kind."""

    position: int
    kind: str


def _error_classes(trees: dict[Path, ast.Module]) -> set[str]:
    """Names of `OrquestraError` and every class that derives from it (by name)."""
    bases: dict[str, set[str]] = {}
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                names = {b.id if isinstance(b, ast.Name) else ast.unparse(b) for b in node.bases}
                bases.setdefault(node.name, set()).update(names)
    found = {"OrquestraError"}
    while True:
        more = {name for name, of in bases.items() if of & found} - found
        if not more:
            return found
        found |= more


def _callees(trees: dict[Path, ast.Module], errors: set[str]) -> dict[str, Callee]:
    """Every function or class of ours taking a code, by name: the position of the code."""
    found: dict[str, Callee] = {name: Callee(0, "error") for name in errors}
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                names = [a.arg for a in node.args.args if a.arg not in ("self", "cls")]
                for position, name in enumerate(names):
                    if name in CODE_PARAMETERS and node.name not in found:
                        kind = "stop" if name == "reason" else "error"
                        found[node.name] = Callee(position, kind)
                        break
            elif isinstance(node, ast.ClassDef) and node.name not in found:
                fields = [
                    s.target.id
                    for s in node.body
                    if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
                ]
                if fields[:1] == ["code"]:
                    found[node.name] = Callee(0, "finding")
    found["HTTPException"] = Callee(-1, "http")  # its detail dict holds the code
    return found


def _text(node: ast.expr | None) -> str:
    """A message argument as text: a string, or an f-string with `{…}` for its values."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            str(v.value) if isinstance(v, ast.Constant) else "{…}" for v in node.values
        ).strip()
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return (_text(node.left) + _text(node.right)).strip()
    return ""


def _literals(node: ast.expr | None) -> list[str]:
    """The codes an argument may be: `"A"`, or both of `"A" if x else "B"`."""
    if isinstance(node, ast.IfExp):
        return _literals(node.body) + _literals(node.orelse)
    found = _literal(node)
    return [found] if found else []


def _literal(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and CODE.match(node.value):
        return node.value
    return None


class Finder(ast.NodeVisitor):
    """Collects the codes of one file into `found`."""

    def __init__(self, where: str, callees: dict[str, Callee], errors: set[str]) -> None:
        self.where, self.callees, self.errors = where, callees, errors
        self.found: list[Code] = []
        self.classes: list[ast.ClassDef] = []
        self.messages: dict[str, str] = {}

    def add(
        self,
        name: str | None,
        kind: str,
        message: str = "",
        status: int | None = None,
        about: str = "",
    ) -> None:
        if name:
            self.found.append(Code(name, kind, message, status, {self.where}, about))

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.classes.append(node)
        self.generic_visit(node)
        self.classes.pop()

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            if isinstance(target, ast.Name) and target.id == "code" and self.classes:
                cls = self.classes[-1]
                doc = ast.get_docstring(cls) or ""
                self.add(_literal(node.value), "error", "", about=doc.split("\n\n")[0])
            elif isinstance(target, ast.Name) and (
                target.id == "CODE" or target.id.endswith("_CODE")
            ):
                self.add(_literal(node.value), "error")  # CODE = "SQL_CHECK"
            elif isinstance(target, ast.Name) and target.id.endswith("_FINDING"):
                self.add(_literal(node.value), "finding")
            elif isinstance(target, ast.Name) and target.id.endswith("_CODES"):
                if isinstance(node.value, ast.Dict):
                    status = None
                    for key, value in zip(node.value.keys, node.value.values, strict=True):
                        if isinstance(key, ast.Constant) and isinstance(key.value, int):
                            status = key.value
                        self.add(_literal(value), "http" if status else "error", "", status)
            elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                names = [e.id if isinstance(e, ast.Name) else "" for e in target.elts]
                if names[:2] == ["code", "message"]:
                    values = node.value.elts
                    self.add(_literal(values[0]), "error", _text(values[1]))
        self.generic_visit(node)

    def visit_Return(self, node: ast.Return) -> None:
        """`return "INVALID_TEXT", f"…"`: a code and its message, handed to the raiser."""
        if isinstance(node.value, ast.Tuple) and len(node.value.elts) == 2:
            code_given, message = node.value.elts
            self.add(_literal(code_given), "error", _text(message))
        self.generic_visit(node)

    def visit_Dict(self, node: ast.Dict) -> None:
        pairs = {
            k.value: v
            for k, v in zip(node.keys, node.values, strict=True)
            if isinstance(k, ast.Constant)
        }
        for key, value in pairs.items():  # {"QUERY_TIMEOUT": "the query took too long", …}
            name = key.rpartition(".")[2] if isinstance(key, str) else ""
            text = _text(value)
            if isinstance(value, ast.Dict):  # core/texts.py: {"model.MODEL_AUTH": {"en": …}}
                text = _text(dict(zip(map(_text, value.keys), value.values, strict=True)).get("en"))
            if CODE.match(name) and text:
                self.messages.setdefault(name, text)
        if "code" in pairs:
            self.add(_literal(pairs["code"]), "http", _text(pairs.get("message")))
        if "stop_reason" in pairs:
            self.add(_literal(pairs["stop_reason"]), "stop")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        callee = self.callees.get(name)
        owner = func.value if isinstance(func, ast.Attribute) else None
        if name == "get" and isinstance(owner, ast.Name) and owner.id.endswith("_CODES"):
            for fallback in node.args[1:2]:  # HTTP_CODES.get(status, "HTTP_ERROR")
                self.add(_literal(fallback), "http")
        status = next(
            (
                a.value
                for a in node.args[:1]
                if isinstance(a, ast.Constant) and type(a.value) is int
            ),
            None,
        )
        if callee is not None and callee.position >= 0:
            args = node.args
            position = callee.position
            given = args[position] if position < len(args) else None
            message = next((_text(a) for a in args[position + 1 :] if _text(a)), "")
            kind = "http" if status and callee.kind != "stop" else callee.kind
            for name_given in _literals(given):
                self.add(name_given, kind, message, status)
        for keyword in node.keywords:
            if keyword.arg == "cap":
                self.add(_literal(keyword.value), "stop")
            if keyword.arg == "code":
                texts = [_text(k.value) for k in node.keywords if k.arg == "message"]
                message = next((t for t in [*texts, *map(_text, node.args)] if t), "")
                self.add(_literal(keyword.value), "error", message)
        for detail in node.args[1:2] if status else ():
            if isinstance(detail, ast.Dict):  # HTTPException(409, {"code": …, "message": …})
                pairs = dict(zip(detail.keys, detail.values, strict=True))
                for key, value in pairs.items():
                    if isinstance(key, ast.Constant) and key.value == "code":
                        self.add(_literal(value), "http", "", status)
        self.generic_visit(node)


def codes() -> dict[str, Code]:
    """Every code by name; the first message found, the first status, every place."""
    trees = sources()
    errors = _error_classes(trees)
    callees = _callees(trees, errors)
    found: dict[str, Code] = {}
    messages: dict[str, str] = {}
    rank = {"error": 0, "http": 1, "finding": 2, "stop": 3}
    for path, tree in trees.items():
        finder = Finder(relative(path), callees, errors)
        finder.visit(tree)
        for item in finder.found:
            known = found.setdefault(item.name, Code(item.name, item.kind))
            if rank[item.kind] < rank[known.kind]:
                known.kind = item.kind
            known.message = known.message or item.message
            known.about = known.about or item.about
            known.status = known.status or item.status
            known.places |= item.places
        messages.update({k: v for k, v in finder.messages.items() if k not in messages})
    for item in found.values():
        item.message = item.message or messages.get(item.name, "") or item.about
    return found


def render() -> str:
    found = codes()
    sections = []
    for kind, title in KINDS.items():
        chosen = sorted((c for c in found.values() if c.kind == kind), key=lambda c: c.name)
        if not chosen:
            continue
        rows = [
            [
                code(c.name),
                str(c.status or ""),
                c.message,
                ", ".join(code(p) for p in sorted(c.places)),
            ]
            for c in chosen
        ]
        head = ["code", "HTTP", "message (example)", "raised in"]
        sections.append(f"## {title}\n\n{KIND_TEXT[kind]}\n\n{table(head, rows)}")
    return page("Error codes", INTRO, sections)
