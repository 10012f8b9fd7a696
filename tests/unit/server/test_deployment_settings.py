"""Settings take the deployment's folders, time zone and reference date, unless set."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
import yaml

from orquestra.core.deployment import DeploymentError
from orquestra.core.settings import Settings
from orquestra.deployments import DEPLOYMENTS_DIR


@pytest.fixture
def lisbon(tmp_path: Path) -> Path:
    """A deployment folder of its own: another name, time zone and reference date."""
    document = yaml.safe_load((DEPLOYMENTS_DIR / "logistics" / "profile.yaml").read_text())
    document.update(name="lisbon-shops", timezone="Europe/Lisbon", reference_date="2025-12-31")
    (tmp_path / "profile.yaml").write_text(yaml.safe_dump(document, allow_unicode=True))
    (tmp_path / "guardrails.yaml").write_text("{}\n")
    return tmp_path


def test_the_default_deployment_keeps_the_demo_settings() -> None:
    settings = Settings()
    assert settings.active_deployment.name == "logistics"
    assert settings.catalog_dir == DEPLOYMENTS_DIR / "logistics" / "catalog"
    assert settings.database_name == "orquestra"
    assert settings.limits.timezone == "America/Sao_Paulo"
    assert settings.reference_date == date(2026, 6, 30)


def test_a_deployment_fills_what_is_left_unset(lisbon: Path) -> None:
    settings = Settings(deployment=str(lisbon))
    assert settings.catalog_dir == lisbon / "catalog"
    assert settings.guardrails_file == lisbon / "guardrails.yaml"
    assert settings.limits.timezone == "Europe/Lisbon"
    assert settings.reference_date == date(2025, 12, 31)
    assert settings.database_name == "orquestra_lisbon_shops"  # never the demo's database


def test_explicit_settings_win_over_the_deployment(lisbon: Path, tmp_path: Path) -> None:
    settings = Settings(
        deployment=str(lisbon),
        catalog_dir=tmp_path / "elsewhere",
        limits={"timezone": "UTC"},
        reference_date=date(2024, 1, 31),
        database_name="shops",
    )
    assert settings.catalog_dir == tmp_path / "elsewhere"
    assert settings.limits.timezone == "UTC"
    assert settings.reference_date == date(2024, 1, 31)
    assert settings.database_name == "shops"
    assert Settings().limits.timezone == "America/Sao_Paulo"  # no default shared and changed


def test_the_environment_selects_the_deployment(
    lisbon: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORQUESTRA_DEPLOYMENT", str(lisbon))
    assert Settings().active_deployment.name == "lisbon-shops"
    monkeypatch.setenv("ORQUESTRA_DEPLOYMENT", "nowhere")
    with pytest.raises(DeploymentError) as caught:
        Settings()
    assert caught.value.code == "DEPLOYMENT_NOT_FOUND"
