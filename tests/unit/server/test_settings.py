"""Settings precedence: explicit > environment > YAML file > defaults."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from pydantic import ValidationError

from server.settings import Settings


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
    assert Settings(mode="production", jwt_secret="s3cret").effective_today() == date.today()


def test_production_refuses_the_demo_secret() -> None:
    with pytest.raises(ValidationError, match="ORQUESTRA_JWT_SECRET"):
        Settings(mode="production")
    with pytest.raises(ValidationError, match="RS256 needs"):
        Settings(jwt_algorithm="RS256")
