"""Settings precedence: explicit > environment > YAML file > defaults."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from pydantic import ValidationError

from orquestra.core.settings import Settings


@pytest.fixture
def config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "orquestra.yaml"
    path.write_text(
        "limits:\n  row_cap: 123\ncaps:\n  max_fix_attempts: 3\n"
        "reference_date: 2025-12-31\nmodels:\n  router: openai:gpt-4o-mini\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("ORQUESTRA_CONFIG", str(path))
    return path


def test_defaults_without_file_or_environment() -> None:
    settings = Settings()
    assert settings.caps.max_fix_attempts == 2
    assert settings.caps.max_sql_attempts == 4
    assert settings.caps.max_clarify_rounds == 2
    assert settings.caps.max_refine_rounds == 3
    assert settings.database_url is None
    assert settings.data_dir == Path(".orquestra")
    assert settings.reference_date == date(2026, 6, 30)


def test_yaml_file_overrides_defaults(config_file: Path) -> None:
    settings = Settings()
    assert settings.limits.row_cap == 123
    assert settings.caps.max_fix_attempts == 3
    assert settings.caps.max_sql_attempts == 4  # untouched keys keep their defaults
    assert settings.reference_date == date(2025, 12, 31)
    assert settings.models.router == "openai:gpt-4o-mini"


def test_environment_overrides_yaml(config_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ORQUESTRA_LIMITS__ROW_CAP", "77")
    monkeypatch.setenv("ORQUESTRA_REFERENCE_DATE", "2026-01-31")
    monkeypatch.setenv("DATABASE_URL", "postgresql://u@db.example:5432/x")
    monkeypatch.setenv("ORQUESTRA_DATA_DIR", "/var/lib/orquestra")
    settings = Settings()
    assert settings.limits.row_cap == 77
    assert settings.caps.max_fix_attempts == 3  # still from the file
    assert settings.reference_date == date(2026, 1, 31)
    assert settings.database_url == "postgresql://u@db.example:5432/x"
    assert settings.data_dir == Path("/var/lib/orquestra")


def test_explicit_arguments_override_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ORQUESTRA_DEMO_SCALE", "3")
    assert Settings(demo_scale=0.5).demo_scale == 0.5
    assert Settings().demo_scale == 3


def test_invalid_values_are_rejected(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ORQUESTRA_CAPS__MAX_SQL_ATTEMPTS", "0")
    with pytest.raises(ValidationError):
        Settings()
    monkeypatch.delenv("ORQUESTRA_CAPS__MAX_SQL_ATTEMPTS")
    path = tmp_path / "bad.yaml"
    path.write_text("no_such_knob: 1\n", encoding="utf-8")
    monkeypatch.setenv("ORQUESTRA_CONFIG", str(path))
    with pytest.raises(ValidationError):
        Settings()
    with pytest.raises(ValidationError):
        Settings(database_name='x"; DROP DATABASE y; --')


def test_today_is_the_reference_date_in_demo_mode() -> None:
    assert Settings().effective_today() == date(2026, 6, 30)
    assert Settings(today=date(2026, 3, 1)).effective_today() == date(2026, 3, 1)
    assert (
        Settings(
            mode="production", jwt_secret="s3cret-of-at-least-thirty-two-bytes"
        ).effective_today()
        == date.today()
    )


def test_production_refuses_the_demo_secret() -> None:
    with pytest.raises(ValidationError, match="ORQUESTRA_JWT_SECRET"):
        Settings(mode="production")
    with pytest.raises(ValidationError, match="RS256 needs"):
        Settings(jwt_algorithm="RS256")


def test_tracing_reads_the_tools_variables_ahead_of_the_yaml(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "orquestra.yaml"
    path.write_text(
        "tracing:\n  langsmith_api_key: from-yaml\n  langsmith_project: yaml-project\n"
        "  otlp_endpoint: http://collector:4318\n"
        "tenants:\n  '103': {mask_personal_data: true}\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("ORQUESTRA_CONFIG", str(path))
    from_yaml = Settings()
    assert from_yaml.tracing.langsmith_api_key == "from-yaml"
    assert from_yaml.tracing.otlp_endpoint == "http://collector:4318"
    assert from_yaml.tracing.langfuse_public_key is None  # explicit default: off
    assert from_yaml.tenants["103"].mask_personal_data
    monkeypatch.setenv("LANGSMITH_API_KEY", "from-env")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://other:4318")
    from_env = Settings()
    assert from_env.tracing.langsmith_api_key == "from-env"
    assert from_env.tracing.langsmith_project == "yaml-project"
    assert from_env.tracing.otlp_endpoint == "http://other:4318"


def test_the_tenant_setting_reaches_the_run_context(monkeypatch: pytest.MonkeyPatch) -> None:
    from orquestra.graph.context import RunContext

    monkeypatch.setenv("ORQUESTRA_TENANTS__103__MASK_PERSONAL_DATA", "true")
    settings = Settings()
    assert RunContext.from_settings(settings, tenant="103").mask_personal_data
    assert not RunContext.from_settings(settings, tenant="101").mask_personal_data
