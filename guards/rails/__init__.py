"""Guardrails and judges declared per deployment in YAML: generic mechanisms here, policies
outside (`type: external` classes a deployment ships in its own package)."""

from orquestra.guards.rails.config import Entry, GuardrailsError
from orquestra.guards.rails.contracts import (
    JudgeCase,
    JudgeResult,
    ModelAccess,
    RailCheck,
    RailResult,
)
from orquestra.guards.rails.engine import Decision, Guardrails
from orquestra.guards.rails.native_input import Toolkit

__all__ = [
    "Decision",
    "Entry",
    "Guardrails",
    "GuardrailsError",
    "JudgeCase",
    "JudgeResult",
    "ModelAccess",
    "RailCheck",
    "RailResult",
    "Toolkit",
]
