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
    assert await pool.run(job, timeout_s=30) == {"total": 7.0, "median": 2.0}
