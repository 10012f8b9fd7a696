"""The guardrails file: which input rails, output rails and judges a deployment runs.

```yaml
timeout_s: 2.0                 # per rail or judge unless an entry says otherwise
input:
  - {code: PINJ}               # native (the default type)
  - {code: OOS, threshold: 0.5}
  - {code: ACME_PROFANITY, type: external, class: acme.rails:Profanity, enabled: true}
output:
  - {code: PII}
judges:
  - {name: groundedness, threshold: 1.0}
  - {name: relevance, phases: [knowledge, answer]}
  - {name: acme_tone, type: external, class: acme.judges:Tone, threshold: 0.6}
```

Natives need nothing but their code; an external class is imported only when an enabled
entry declares it, so the framework never depends on a deployment's package. Each entry's
settings resolve with one precedence: the environment (`ORQUESTRA_RAIL_<ID>_<KEY>`), then
the YAML (`threshold`, `timeout_s`, `options`), then the native's explicit default.
"""

from __future__ import annotations

import importlib
import os
import re
from pathlib import Path
from typing import Any, Literal, cast

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from orquestra.core.errors import OrquestraError

HERE = Path(__file__).parent
DEFAULT_GUARDRAILS = HERE / "guardrails.yaml"
DEFAULT_MAPPING = HERE / "observability_mapping.yaml"
CLASS_PATH = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")


class GuardrailsError(OrquestraError):
    """The guardrails or mapping file is invalid; the message names the file and the entry."""

    code = "GUARDRAILS_INVALID"


class Entry(BaseModel):
    """One rail or judge as declared."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    code: str | None = Field(None, pattern=r"^[A-Za-z][A-Za-z0-9_]{0,39}$")
    """A rail's semantic code (`PINJ`, `ACME_PROFANITY`)."""
    name: str | None = Field(None, pattern=r"^[A-Za-z][A-Za-z0-9_]{0,39}$")
    """A judge's name (`groundedness`); rails may use either."""
    enabled: bool = True
    threshold: float | None = None
    type: Literal["native", "external"] = "native"
    class_path: str | None = Field(None, alias="class")
    """`package.module:Class` of an external entry."""
    timeout_s: float | None = Field(None, gt=0, le=120)
    phases: list[Literal["knowledge", "answer"]] | None = None
    """Judges only: which answers it checks (concept answers, data answers); default both."""
    refuses: bool = False
    """Judges only: a failure withholds the answer (an honest stop, outcome `refuse`) instead
    of sending it back for a rewrite — for a result no rewording can make answer the question
    (its shape is not the one asked)."""
    options: dict[str, Any] = {}

    @model_validator(mode="after")
    def _consistent(self) -> Entry:
        if not (self.code or self.name):
            raise ValueError("needs a `code` (rails) or a `name` (judges)")
        if self.type == "external" and not self.class_path:
            raise ValueError("external entries need `class: package.module:Class`")
        if self.class_path and not CLASS_PATH.match(self.class_path):
            raise ValueError(f"`class` must look like package.module:Class, not {self.class_path}")
        if self.type == "native" and self.class_path:
            raise ValueError("`class` is only for `type: external`")
        return self

    @property
    def id(self) -> str:
        """The entry's identifier: the rail's code or the judge's name."""
        return str(self.code or self.name)

    @property
    def env_prefix(self) -> str:
        """`ORQUESTRA_RAIL_<ID>_`: this entry's settings in the environment."""
        return f"ORQUESTRA_RAIL_{re.sub(r'[^A-Z0-9]', '_', self.id.upper())}_"

    def setting(self, key: str, default: Any) -> Any:
        """`key` for this entry: environment, then the YAML, then `default`."""
        raw = os.environ.get(f"{self.env_prefix}{key.upper()}", "")
        if raw.strip():
            return yaml.safe_load(raw)
        if key == "threshold" and self.threshold is not None:
            return self.threshold
        if key == "timeout_s" and self.timeout_s is not None:
            return self.timeout_s
        return self.options.get(key, default)

    def plugin_arguments(self) -> dict[str, Any]:
        """Keyword arguments of an external class: its options and threshold, each resolved
        with the same precedence (keys set only in the environment included)."""
        keys = set(self.options) | {"threshold"}
        keys |= {
            name.removeprefix(self.env_prefix).lower()
            for name, value in os.environ.items()
            if name.startswith(self.env_prefix) and value.strip()
        }
        keys.discard("timeout_s")  # the engine's, not the plugin's
        found = {key: self.setting(key, None) for key in sorted(keys)}
        return {key: value for key, value in found.items() if value is not None}


class GuardrailsFile(BaseModel):
    """The whole file."""

    model_config = ConfigDict(extra="forbid")

    timeout_s: float = Field(2.0, gt=0, le=120)
    input: list[Entry] = []
    output: list[Entry] = []
    judges: list[Entry] = []


def read_guardrails(path: Path | None) -> GuardrailsFile:
    """Parse and validate the file at `path` (the packaged defaults when `None`)."""
    path = path or DEFAULT_GUARDRAILS
    data = _yaml(path)
    try:
        return GuardrailsFile.model_validate(data or {})
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors()
        )
        raise GuardrailsError(f"{path}: {problems}") from None


def read_mapping(path: Path | None) -> dict[str, str]:
    """Semantic code → published code (`GRL.PINJ` → `GRL.001`) from the telemetry mapping."""
    path = path or DEFAULT_MAPPING
    data = _yaml(path) or {}
    codes = data.get("codes", {}) if isinstance(data, dict) else None
    if not isinstance(codes, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in codes.items()
    ):
        raise GuardrailsError(f"{path}: expected `codes:` mapping semantic codes to strings")
    return dict(codes)


def import_class(entry: Entry, where: str) -> type:
    """The external class an entry declares, with a clear error when it cannot be loaded."""
    module_name, _, attribute = str(entry.class_path).partition(":")
    try:
        found = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as error:
        problem = f"{where} {entry.id}: cannot load {entry.class_path}: {error}"
        raise GuardrailsError(problem) from None
    if not callable(getattr(found, "evaluate", None)):
        raise GuardrailsError(f"{where} {entry.id}: {entry.class_path} has no evaluate() method")
    return cast(type, found)  # a deployment's import: trusted to be the class it names


def _yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise GuardrailsError(f"{path}: cannot read: {error.strerror}") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f" line {mark.line + 1}" if mark else ""
        raise GuardrailsError(f"{path}{line}: invalid YAML: {error}") from None
