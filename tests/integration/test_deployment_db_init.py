"""`db init` with a deployment other than the default: its own database, its sample data,
clear errors when it has none or the database holds another deployment's."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import asyncpg
import pytest
import yaml

from orquestra.core.database import admin_url
from orquestra.core.settings import Settings
from orquestra.deployments import DEPLOYMENTS_DIR
from orquestra.server.db_init import DatabaseNotEmpty, InitReport, init_database

ORQUESTRA = str(Path(sys.executable).parent / "orquestra")


def deployment_copy(folder: Path, name: str, **profile: object) -> Path:
    """The demo deployment copied to `folder` under another name (profile keys changed;
    None removes one)."""
    shutil.copytree(DEPLOYMENTS_DIR / "logistics" / "catalog", folder / "catalog")
    document = yaml.safe_load((DEPLOYMENTS_DIR / "logistics" / "profile.yaml").read_text())
    document["name"] = name
    for key, value in profile.items():
        if value is None:
            document.pop(key)
        else:
            document[key] = value
    (folder / "profile.yaml").write_text(yaml.safe_dump(document, allow_unicode=True))
    return folder


def orquestra(*args: str, data_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ORQUESTRA_DATA_DIR": str(data_dir)}
    return subprocess.run([ORQUESTRA, *args], capture_output=True, text=True, env=env, timeout=300)


def test_a_deployment_without_sample_data_is_a_clear_error(tmp_path: Path) -> None:
    folder = deployment_copy(tmp_path / "own", "own-data", sample_data=None)
    result = orquestra("db", "init", "--deployment", str(folder), data_dir=tmp_path / "data")
    assert result.returncode == 2
    assert result.stderr.startswith("error [DEPLOYMENT_NO_SAMPLE_DATA]: deployment 'own-data'")
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "data" / "pgdata").exists()  # refused before starting anything


def test_an_unknown_deployment_is_a_clear_error(tmp_path: Path) -> None:
    result = orquestra("--deployment", "nowhere", "db", "init", data_dir=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("error [DEPLOYMENT_NOT_FOUND]: nowhere")
    assert "Traceback" not in result.stderr


async def test_each_deployment_gets_its_own_embedded_database(
    data_dir: Path, demo_db: InitReport, tmp_path: Path
) -> None:
    folder = deployment_copy(tmp_path / "copy", "copy")
    settings = Settings(data_dir=data_dir, deployment=str(folder), demo_scale=0.05)
    report = await init_database(settings)
    assert report.loaded and report.deployment == "copy"
    assert set(report.tenant_rows) == set(demo_db.tenant_rows)
    conn = await asyncpg.connect(admin_url(settings))
    try:
        assert await conn.fetchval("SELECT current_database()") == "orquestra_copy"
        assert await conn.fetchval("SELECT count(*) FROM pedidos") == report.row_counts["pedidos"]
    finally:
        await conn.close()
    again = await init_database(Settings(data_dir=data_dir))  # the demo's own, untouched
    assert not again.loaded and again.deployment == "logistics"
    assert again.row_counts == demo_db.row_counts


async def test_a_database_holding_another_deployment_is_refused(
    data_dir: Path, demo_db: InitReport, tmp_path: Path
) -> None:
    folder = deployment_copy(tmp_path / "other", "other")
    settings = Settings(data_dir=data_dir, deployment=str(folder), database_name="orquestra")
    with pytest.raises(DatabaseNotEmpty) as caught:
        await init_database(settings)
    assert caught.value.code == "DB_OTHER_DEPLOYMENT"
    assert "'logistics'" in caught.value.message and "--reset" in caught.value.message
    assert (await init_database(Settings(data_dir=data_dir))).row_counts == demo_db.row_counts
