"""Readers of the deployment files (deploy/) that the tests share: the compose file, its
example environment, compose's variable interpolation, and the Prometheus configuration."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"


def compose() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text(encoding="utf-8"))


def env_example() -> dict[str, str]:
    pairs = {}
    for line in (DEPLOY / ".env.example").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, value = line.partition("=")
            pairs[name.strip()] = value.strip()
    return pairs


VARIABLE = re.compile(r"\$\{(\w+)(?:(:\?|:-)([^}]*))?\}")


def interpolate(text: str, values: dict[str, str]) -> str:
    """Compose's `${VAR}`, `${VAR:-default}` and `${VAR:?error}` (unset or empty is an error)."""

    def one(match: re.Match[str]) -> str:
        name, kind, rest = match.groups()
        value = values.get(name, "")
        if kind == ":?" and not value:
            raise KeyError(f"{name}: {rest}")
        return value or (rest if kind == ":-" else "")

    return VARIABLE.sub(one, text)


def orquestra_environment(values: dict[str, str]) -> dict[str, str]:
    """The environment compose gives every Orquestra container, interpolated."""
    block = compose()["x-orquestra-environment"]
    return {name: interpolate(str(value), values) for name, value in block.items()}


def service_environment(service: str, values: dict[str, str]) -> dict[str, str]:
    """The environment compose gives `service` (the shared block merged in), interpolated."""
    block = compose()["services"][service]["environment"]
    return {name: interpolate(str(value), values) for name, value in block.items()}


def prometheus() -> dict:
    return yaml.safe_load((DEPLOY / "prometheus.yml").read_text(encoding="utf-8"))


def filled_env() -> dict[str, str]:
    """deploy/.env.example with every secret filled in, as a deployer would."""
    values = env_example()
    for name in ("POSTGRES_PASSWORD", "APP_DB_PASSWORD", "AGENT_DB_PASSWORD"):
        values[name] = f"{name.lower()}-0123456789abcdef"
    values["ORQUESTRA_JWT_SECRET"] = "0123456789abcdef" * 4
    values["ORQUESTRA_METRICS_TOKEN"] = "fedcba9876543210" * 4
    return values
