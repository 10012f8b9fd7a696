"""The settings page, from `orquestra.core.settings.Settings` and its nested groups."""

from __future__ import annotations

import ast
import re
import typing
from dataclasses import dataclass

from pydantic import AliasChoices, BaseModel
from pydantic.fields import FieldInfo

from .common import (
    code,
    constraints,
    default_text,
    description,
    page,
    paragraph,
    relative,
    sources,
    table,
    type_name,
)

INTRO = """
Every setting of `Settings` (`core/settings.py`), typed and validated once at start-up.
Precedence, highest first: explicit arguments (`--deployment`), environment variables, the
YAML config file (`orquestra.yaml` in the working directory, or the file `ORQUESTRA_CONFIG`
names), then the defaults below. A nested setting is set from the environment with a double
underscore (`ORQUESTRA_CAPS__MAX_FIX_ATTEMPTS=3`) and in the YAML file as a nested key
(`caps: {max_fix_attempts: 3}`). Lists and mappings are given in the environment as JSON.
"""
VARIABLE = re.compile(r"^ORQUESTRA_[A-Z0-9_]+$")


@dataclass(frozen=True)
class Setting:
    """One leaf setting: its YAML key path, its variables, its field."""

    key: str
    variables: tuple[str, ...]
    field: FieldInfo
    model: type[BaseModel]
    name: str


def _variables(prefix: str, name: str, field: FieldInfo) -> tuple[str, ...]:
    alias = field.validation_alias
    if isinstance(alias, AliasChoices):
        return tuple(str(choice) for choice in alias.choices)
    if isinstance(alias, str):
        return (alias,)
    return (f"{prefix}{name.upper()}",)


def _nested_model(annotation: object) -> type[BaseModel] | None:
    return (
        annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None
    )


def settings(
    model: type[BaseModel] | None = None, prefix: str = "ORQUESTRA_", key: str = ""
) -> list[Setting]:
    """Every leaf setting, nested groups expanded (`caps.max_fix_attempts`)."""
    from orquestra.core.settings import Settings

    model = model or Settings
    found = []
    for name, field in model.model_fields.items():
        nested = _nested_model(field.annotation)
        if nested is not None:
            found += settings(nested, f"{prefix}{name.upper()}__", f"{key}{name}.")
        else:
            found.append(Setting(key + name, _variables(prefix, name, field), field, model, name))
    return found


def _type(field: FieldInfo) -> str:
    annotation = field.annotation
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    text = code(type_name(annotation))
    limits = constraints(field)
    return f"{text} ({limits})" if limits else text


def _row(setting: Setting, conventional: dict[str, tuple[str, ...]]) -> list[str]:
    names = [*setting.variables, *conventional.get(setting.key, ())]
    what = description(setting.model, setting.name)
    if setting.key in conventional:
        what += " Also read from " + ", ".join(map(code, conventional[setting.key])) + "."
    return [
        "<br>".join(code(n) for n in names),
        code(setting.key),
        _type(setting.field),
        code(default_text(setting.field)),
        what,
    ]


def _group_rows(group: str | None) -> tuple[str, list[list[str]]]:
    from orquestra.core.settings import TRACING_ENV, Settings

    conventional = {f"tracing.{k}": v for k, v in TRACING_ENV.items()}
    chosen = [
        s
        for s in settings()
        if (group is None and "." not in s.key) or (group and s.key.startswith(group + "."))
    ]
    rows = [_row(s, conventional) for s in chosen]
    heading = "General" if group is None else group
    if group is not None:
        nested = Settings.model_fields[group].annotation
        text = paragraph(getattr(nested, "__doc__", "") or "")
        return f"## `{heading}`\n\n{text}".rstrip(), rows
    return f"## {heading}", rows


def other_variables() -> list[tuple[str, list[str]]]:
    """`ORQUESTRA_*` variables read outside `Settings`, with the files that read them."""
    known = {v for s in settings() for v in s.variables}
    found: dict[str, set[str]] = {}
    for path, tree in sources().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                name = node.value
                if VARIABLE.match(name) and name not in known and not name.endswith("_"):
                    found.setdefault(name, set()).add(relative(path))
    return [(name, sorted(files)) for name, files in sorted(found.items())]


def render() -> str:
    from orquestra.core.settings import Settings

    head = ["environment variable", "YAML key", "type", "default", "what it is"]
    groups = [None] + [
        name for name, f in Settings.model_fields.items() if _nested_model(f.annotation)
    ]
    body = []
    for group in groups:
        heading, rows = _group_rows(group)
        body.append(f"{heading}\n\n{table(head, rows)}")
    others = other_variables()
    body.append(
        "## Other environment variables\n\n"
        "Read by the parts named, outside `Settings`. Besides these, a guardrail or judge's"
        " setting is read from `ORQUESTRA_RAIL_<ID>_<KEY>` (see"
        " [Deployment files](deployment-files.md#guardrails)).\n\n"
        + table(["variable", "read in"], [[code(n), ", ".join(map(code, f))] for n, f in others])
    )
    return page("Settings and environment variables", INTRO, body)
