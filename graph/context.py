"""Run settings: the typed, JSON-serialisable context every run carries (`context_schema`).

The server builds it from `Settings` and the verified token (the tenant never comes from a
message); LangGraph Studio edits it as the assistant's context. Live handles (pools, caches)
are not here: they live in `graph.resources`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from orquestra.core.settings import Settings

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
    max_fix_attempts: int = 2
    """Fixer repairs within one SQL attempt."""
    max_sql_attempts: int = 4
    """SQL attempts per turn (first plus zero-row retries)."""
    max_clarify_rounds: int = 2
    """Clarifying questions before answering with the best reading."""
    max_refine_rounds: int = 3
    """Answer refinements driven by the judges in one turn (concept and data answers)."""
    max_model_calls: int = 16
    """Model calls per turn; past it the turn stops with a clear message."""
    model_retries: int = 2
    """Retries of a rate-limited or failing model call."""
    model_wait_s: float = 20.0
    """Seconds a turn may wait before such retries, in all."""
    recursion_limit: int = 60
    """LangGraph super-step backstop, set on every run."""
    row_cap: int = 500
    """Rows returned by a query."""
    statement_timeout_ms: int = 8_000
    client_timeout_s: float = 10.0
    timezone: str = "America/Sao_Paulo"
    analysis_code_mode: bool = False
    """The SQL writer also writes pandas analysis code (AST-checked, sandboxed)."""
    mask_personal_data: bool = False
    """Mask CPF, e-mail and phone numbers in answers (the tenant's setting, PII rail)."""
    today: str = ""
    """ISO date relative periods resolve against; empty: the settings' effective today."""

    @classmethod
    def from_settings(cls, settings: Settings, *, tenant: str = "", user: str = "") -> RunContext:
        caps, limits = settings.caps, settings.limits
        return cls(
            tenant=tenant,
            user=user,
            max_fix_attempts=caps.max_fix_attempts,
            max_sql_attempts=caps.max_sql_attempts,
            max_clarify_rounds=caps.max_clarify_rounds,
            max_refine_rounds=caps.max_refine_rounds,
            max_model_calls=caps.max_model_calls_per_turn,
            model_retries=limits.model_retries,
            model_wait_s=limits.model_wait_s,
            recursion_limit=caps.recursion_limit,
            row_cap=limits.row_cap,
            statement_timeout_ms=limits.statement_timeout_ms,
            client_timeout_s=limits.client_timeout_s,
            timezone=limits.timezone,
            analysis_code_mode=settings.analysis_code_mode,
            mask_personal_data=(
                settings.tenants[tenant].mask_personal_data if tenant in settings.tenants else False
            ),
            today=settings.effective_today().isoformat(),
        )

    def today_date(self) -> date:
        return date.fromisoformat(self.today) if self.today else Settings().effective_today()
