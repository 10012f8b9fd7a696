"""Run settings: the typed, JSON-serialisable context every run carries (`context_schema`).

The server builds it from `Settings` and the verified token (the tenant never comes from a
message); LangGraph Studio edits it as the assistant's context. The caps and limits are the
settings' own `Caps` and `Limits` objects, so their names and defaults are written once
(`core.settings`). Live handles (pools, caches) are not here: they are `graph.resources`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date

from orquestra.core.settings import Caps, Limits, Settings

ROLES = ("augmenter", "router", "sql_writer", "fixer", "librarian", "judge", "chat", "answer")


@dataclass
class RunContext:
    """Everything one run may vary: who asks, which models, which caps and limits."""

    tenant: str = ""
    """Tenant the run reads as; empty means no data at all (fail closed)."""
    user: str = ""
    """Who asks (for logs and thread ownership)."""
    models: dict[str, str] = field(default_factory=dict)
    """Role → `provider:model` overrides; unset roles use the settings' models."""
    caps: Caps = field(default_factory=Caps)
    """The loops' caps: repairs, SQL attempts, clarifying questions, refinements, model
    calls per turn, LangGraph's recursion limit."""
    limits: Limits = field(default_factory=Limits)
    """Rows, timeouts, model retries and the time zone dates are read in."""
    analysis_code_mode: bool = False
    """The SQL writer also writes pandas analysis code (AST-checked, sandboxed)."""
    mask_personal_data: bool = False
    """Mask CPF, e-mail and phone numbers in answers (the tenant's setting, PII rail)."""
    today: str = ""
    """ISO date relative periods resolve against; empty: the settings' effective today."""

    def __post_init__(self) -> None:
        # LangGraph Server and Studio build the context from JSON (`RunContext(**body)`):
        # nested objects arrive as dicts, and are validated here like the settings' own.
        if isinstance(self.caps, Mapping):
            self.caps = Caps.model_validate(self.caps)
        if isinstance(self.limits, Mapping):
            self.limits = Limits.model_validate(self.limits)

    @classmethod
    def from_settings(cls, settings: Settings, *, tenant: str = "", user: str = "") -> RunContext:
        tenant_settings = settings.tenants.get(tenant)
        return cls(
            tenant=tenant,
            user=user,
            caps=settings.caps.model_copy(),
            limits=settings.limits.model_copy(),
            analysis_code_mode=settings.analysis_code_mode,
            mask_personal_data=tenant_settings.mask_personal_data if tenant_settings else False,
            today=settings.effective_today().isoformat(),
        )

    @property
    def asker(self) -> str:
        """Who asks, as the key of what is kept for one person's turns only (the query
        vectors): never shared with another tenant, nor with a colleague."""
        return f"{self.tenant}\x1f{self.user}"

    def today_date(self, settings: Settings) -> date:
        """The run's today: its own, else the settings' effective today."""
        return date.fromisoformat(self.today) if self.today else settings.effective_today()
