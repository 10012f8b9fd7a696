"""How much one agent query may take (the executor's limits, set from the settings)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ExecutionLimits:
    """How much one query may take: rows, server time, client time; and its time zone."""

    row_cap: int = 500
    """Rows returned (one more is fetched to know the result was truncated); 0 = no cap."""
    statement_timeout_ms: int = 8_000
    client_timeout_s: float = 10.0
    timezone: str = "America/Sao_Paulo"
    """Time zone dates are read in (`date_trunc('month', …)` depends on it)."""
