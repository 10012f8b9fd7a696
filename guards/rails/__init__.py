"""Guardrails and judges declared per deployment in YAML: generic mechanisms here, policies
outside (`type: external` classes a deployment ships in its own package)."""

from guards.rails.config import Entry, GuardrailsError
from guards.rails.contracts import (
    JudgeCase,
    JudgeResult,
    ModelAccess,
    RailCheck,
    RailResult,
)
from guards.rails.engine import Decision, Guardrails
from guards.rails.input_rails import Toolkit

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
