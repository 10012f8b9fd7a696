"""A deployment's own guardrails and judges, as a test package (`type: external` entries)."""
