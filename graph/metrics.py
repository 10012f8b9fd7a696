"""Prometheus metrics the graph records (served to operators only, by the metrics listener
of `orquestra serve`: `server.metrics_listener`)."""

from __future__ import annotations

from prometheus_client import Counter, Histogram

MODEL_CALLS = Counter("orquestra_model_calls_total", "Model calls", ["role"])
MODEL_TOKENS = Counter("orquestra_model_tokens_total", "Model tokens", ["role", "kind"])
CAP_HITS = Counter("orquestra_cap_hits_total", "Loop caps reached", ["cap"])
GUARD_REJECTIONS = Counter("orquestra_guard_rejections_total", "Guard rejections", ["code"])
SQL_CHECK_FINDINGS = Counter(
    "orquestra_sql_check_findings_total",
    "The catalog check's findings on drafts: problems that stopped a draft, by kind, and"
    " values it corrected (kind `corrected_value`)",
    ["kind"],
)
SQL_NORMALISED = Counter(
    "orquestra_sql_normalised_total", "Drafts read as another dialect and repaired", ["dialect"]
)
NODE_SECONDS = Histogram(
    "orquestra_node_seconds",
    "Time per graph stage",
    ["node"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
