"""The analyzer's sandbox holds: every escape attempt fails cleanly, and it keeps serving."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from orquestra.sandbox.pool import AnalysisError, AnalysisPool

JOB = {
    "kind": "builtin",
    "columns": ["mes", "v"],
    "rows": [["2026-01-01", 1.0], ["2026-02-01", 2.0]],
}


@pytest.fixture(scope="module")
async def pool():
    os.environ["OPENAI_API_KEY"] = "sk-must-not-leak"  # the parent's secret
    sandbox = await AnalysisPool(size=1, timeout_s=2).start()
    await sandbox.run(JOB, timeout_s=30)  # warm
    yield sandbox
    await sandbox.close()
    del os.environ["OPENAI_API_KEY"]


async def test_infinite_loop_dies_within_the_timeout(pool: AnalysisPool) -> None:
    started = time.monotonic()
    with pytest.raises(AnalysisError) as stopped:
        await pool.run({"kind": "python", "code": "while True:\n    pass"}, timeout_s=1.0)
    assert stopped.value.code == "ANALYSIS_TIMEOUT"
    assert time.monotonic() - started < 1.5
    assert (await pool.run(JOB, timeout_s=30))["trend"]["periods"] == 2  # a fresh worker serves


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("x = bytearray(3 * 1024 ** 3)", "out of memory"),
        ("import os\nwhile True:\n    os.fork()", "os.fork is not allowed"),
        ("open('/tmp/orquestra-escape.txt', 'w').write('x')", "writing /tmp/orquestra-escape.txt"),
        ("import socket\nsocket.create_connection(('127.0.0.1', 5432))", "socket"),
        ("import subprocess\nsubprocess.run(['id'])", "subprocess.Popen is not allowed"),
    ],
)
async def test_escapes_fail_cleanly(pool: AnalysisPool, code: str, message: str) -> None:
    with pytest.raises(AnalysisError) as failed:
        await pool.run({"kind": "python", "code": code}, timeout_s=10)
    assert failed.value.code == "ANALYSIS_FAILED" and message in failed.value.message
    assert "Traceback" not in failed.value.message
    assert not await asyncio.to_thread(Path("/tmp/orquestra-escape.txt").exists)
    assert (await pool.run(JOB, timeout_s=30))["measures"]["v"]["sum"] == 3.0


async def test_environment_is_empty_of_secrets(pool: AnalysisPool) -> None:
    seen = await pool.run({"kind": "python", "code": "import os\nresult = dict(os.environ)"})
    assert "OPENAI_API_KEY" not in seen and "DATABASE_URL" not in seen
    assert set(seen) <= {
        "PATH",
        "OPENBLAS_NUM_THREADS",
        "OMP_NUM_THREADS",
        "PYTHONHASHSEED",
        "LC_CTYPE",
    }


async def test_writing_inside_its_own_folder_works(pool: AnalysisPool) -> None:
    code = "open('scratch.txt', 'w').write('ok')\nresult = open('scratch.txt').read()"
    assert await pool.run({"kind": "python", "code": code}) == "ok"


@pytest.mark.parametrize(
    "code",
    [
        "import os\nresult = 1",
        "import subprocess\nresult = 1",
        "result = open('/etc/passwd').read()",
        "result = ().__class__.__bases__",
    ],
)
async def test_code_mode_rejects_before_running(pool: AnalysisPool, code: str) -> None:
    with pytest.raises(AnalysisError) as failed:
        await pool.run({"kind": "code", "code": code, "columns": ["v"], "rows": [[1]]})
    assert "CodeRejected" in failed.value.message


async def test_code_mode_runs_pandas(pool: AnalysisPool) -> None:
    job = {
        "kind": "code",
        "columns": ["v"],
        "rows": [[1], [2], [4]],
        "code": "result = {'total': float(df['v'].sum()), 'median': float(df['v'].median())}",
    }
    analysis = await pool.run(job, timeout_s=30)
    assert analysis["figures"] == {"total": 7.0, "median": 2.0}
    assert analysis["measures"]["v"]["sum"] == 7.0  # the built-in analysis runs beside it


SPY = """
import json, os, statistics
import pandas as pd
statistics.SEEN = []
real = statistics.fmean
def spy(values):
    statistics.SEEN.append(list(values))
    return real(values)
statistics.fmean = spy
pd.DataFrame.groupby = lambda *a, **k: statistics.SEEN.append('groupby')
pd.DataFrame({'v': [1]}).to_csv('left-behind.csv')
result = os.getcwd()
"""
LOOK = """
import os, statistics
import pandas as pd
try:
    open(os.path.join(FOLDER, 'left-behind.csv')).read()
    read = 'read'
except (OSError, PermissionError) as failure:
    read = type(failure).__name__
result = {
    'seen': getattr(statistics, 'SEEN', None),
    'fmean': statistics.fmean.__name__,
    'groupby': pd.DataFrame.groupby.__name__,
    'folder_left': os.path.exists(FOLDER),
    'read': read,
    'here': os.listdir('.'),
}
"""


async def test_nothing_a_job_does_reaches_the_next_job(pool: AnalysisPool) -> None:
    """A spy planted in the worker's modules, an object kept at module level and a file left
    behind by one tenant's job are all gone when the next job (another tenant's) runs."""
    folder = await pool.run({"kind": "python", "code": SPY}, timeout_s=30)
    other_tenant = {
        "kind": "builtin",
        "columns": ["cliente", "valor_vencido"],
        "rows": [["Cliente Secreto", 18230.0], ["Outro Cliente", 120.5]],
    }
    assert (await pool.run(other_tenant, timeout_s=30))["measures"]["valor_vencido"]["sum"]
    seen = await pool.run({"kind": "python", "code": f"FOLDER = {folder!r}\n{LOOK}"}, timeout_s=30)
    assert seen == {
        "seen": None,
        "fmean": "fmean",
        "groupby": "groupby",
        "folder_left": False,
        "read": "PermissionError",
        "here": [],
    }


async def test_a_job_cannot_read_or_list_beyond_its_own_folder(tmp_path: Path) -> None:
    """Another job's folder (running at the same time), the server's data folder, system
    files: none can be read or listed from a job, only its own folder and the interpreter."""
    secret = tmp_path / "pgdata" / "base.dat"
    await asyncio.to_thread(secret.parent.mkdir)
    await asyncio.to_thread(secret.write_text, "other tenants' rows")
    slow = "import time\nopen('mine.txt', 'w').write('tenant A')\ntime.sleep(1.5)\nresult = 1"
    snoop = f"""
import os
tries = {{}}
def attempt(name, action):
    try:
        action()
        tries[name] = 'allowed'
    except PermissionError as refused:
        tries[name] = str(refused)
parent = os.path.dirname(os.getcwd())
attempt('list parent', lambda: os.listdir(parent))
attempt('list tmp', lambda: os.listdir('/tmp'))
attempt('data folder', lambda: open({str(secret)!r}).read())
attempt('passwd', lambda: open('/etc/passwd').read())
attempt('pandas', lambda: __import__('pandas').read_csv({str(secret)!r}))
result = tries
"""
    async with asyncio.timeout(60):
        sandbox = await AnalysisPool(size=2, timeout_s=10).start()
        try:
            first = asyncio.create_task(sandbox.run({"kind": "python", "code": slow}))
            await asyncio.sleep(0.3)
            tries = await sandbox.run({"kind": "python", "code": snoop})
            assert await first == 1
        finally:
            await sandbox.close()
    assert all("is not allowed in the analyzer" in why for why in tries.values()), tries


async def test_an_answer_too_large_is_a_clear_error_and_the_pool_keeps_serving(
    pool: AnalysisPool,
) -> None:
    with pytest.raises(AnalysisError) as failed:
        await pool.run({"kind": "python", "code": "result = 'x' * (9 * 1024 * 1024)"}, 30)
    assert "too large" in failed.value.message
    assert (await pool.run(JOB, timeout_s=30))["measures"]["v"]["sum"] == 3.0
