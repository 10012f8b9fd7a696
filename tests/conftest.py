"""Shared fixtures: hermetic settings, one embedded PostgreSQL per session holding the demo
data and, in a database of its own, the clinics sample; `deployment` runs a test on each."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import asyncpg
import pytest

from orquestra.core.settings import Settings
from tests.deployment_cases import CLINICS_SCALE, DEPLOYMENTS, TENANTS, DeploymentUnderTest
from tests.graph_resources import OpenResources

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session", autouse=True)
def hermetic_environment() -> Iterator[None]:
    """No developer's DATABASE_URL, key or config file leaks into the tests."""
    saved = dict(os.environ)
    for name in list(os.environ):
        if name.startswith(
            ("ORQUESTRA_", "OPENAI_", "LANGSMITH_", "LANGCHAIN_", "LANGFUSE_", "OTEL_")
        ) or name in ("DATABASE_URL",):
            del os.environ[name]
    os.environ["ORQUESTRA_CONFIG"] = str(REPO / "tests" / "no-such-config.yaml")
    yield
    os.environ.clear()
    os.environ.update(saved)


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The embedded PostgreSQL's folder for this test session."""
    return tmp_path_factory.mktemp("orquestra")


@pytest.fixture(scope="session")
def settings(data_dir: Path, hermetic_environment: None) -> Settings:
    return Settings(data_dir=data_dir)


@pytest.fixture(scope="session")
async def demo_db(settings: Settings):
    """The embedded database with the demo data at scale 1 (loaded once per session)."""
    from orquestra.server.db_init import init_database

    return await init_database(settings)


@pytest.fixture(scope="session")
def clinics_settings(data_dir: Path, hermetic_environment: None) -> Settings:
    """The clinics deployment on the session's embedded server, in its default database
    (`orquestra_clinics`), so that a CLI or server started with only
    ORQUESTRA_DEPLOYMENT=clinics and this data folder finds the same rows."""
    return Settings(data_dir=data_dir, deployment="clinics")


@pytest.fixture(scope="session")
def clinics_db(clinics_settings: Settings):
    """The clinics sample, loaded once per session (as `orquestra db init` would).

    Loaded on a thread of its own: the first suite to ask for it may be running inside an
    event loop already (Playwright's sync API, in the browser tests)."""
    from orquestra.server.db_init import init_database

    with ThreadPoolExecutor(max_workers=1) as loader:
        load = loader.submit(asyncio.run, init_database(clinics_settings, scale=CLINICS_SCALE))
        report = load.result()
    assert report.deployment == "clinics" and report.scale == CLINICS_SCALE
    return report


@pytest.fixture(scope="session", params=DEPLOYMENTS)
def deployment(request: pytest.FixtureRequest) -> DeploymentUnderTest:
    """Each shipped deployment in turn, its sample loaded (the clinics one only if asked)."""
    name = request.param
    request.getfixturevalue("demo_db" if name == "logistics" else "clinics_db")
    settings = request.getfixturevalue("settings" if name == "logistics" else "clinics_settings")
    return DeploymentUnderTest(name, settings, TENANTS[name])


@pytest.fixture(scope="session")
def db_url(settings: Settings, demo_db: object) -> str:
    from orquestra.core.database import admin_url

    return admin_url(settings)


@pytest.fixture
async def conn(db_url: str) -> AsyncIterator[asyncpg.Connection]:
    connection = await asyncpg.connect(db_url)
    try:
        yield connection
    finally:
        await connection.close()


@pytest.fixture
async def agent(settings: Settings, demo_db) -> AsyncIterator[asyncpg.Connection]:
    """A connection as the least-privilege agent role."""
    from orquestra.core.database import agent_url

    connection = await asyncpg.connect(agent_url(settings))
    try:
        yield connection
    finally:
        await connection.close()


@pytest.fixture(scope="session")
async def open_resources() -> AsyncIterator[OpenResources]:
    opened = OpenResources()
    yield opened
    if opened.current is not None:
        await opened.current.close()
