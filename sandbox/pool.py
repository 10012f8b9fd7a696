"""A small pool of warm analysis workers, each a confined process (see `confine.py`).

A job goes to an idle worker over a pipe; the worker is a clean template that runs each job
in a fork of its own, in a new folder removed afterwards (`worker.py`), so nothing one job
does reaches the next, whichever tenant asked. An answer must come back within the
wall-clock limit, or the worker's whole process group (the template and its fork) is killed
and a fresh one takes its place. The worker's environment is empty (no credentials, no keys).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import shutil
import signal
import sys
import tempfile
from typing import Any

from orquestra.core.errors import OrquestraError
from orquestra.sandbox.confine import MEMORY_BYTES, can_drop_privileges, limit_process
from orquestra.sandbox.worker import ANSWER_LIMIT

OUTPUT_LIMIT = 2 * ANSWER_LIMIT
"""Bytes of one answer line the pool reads: room for the largest answer a worker relays
(`worker.ANSWER_LIMIT`), however the template's re-serialising escapes it."""


class AnalysisError(OrquestraError):
    """The analysis failed or was stopped; `code` says which, `message` is for people."""


class Worker:
    """One confined process and its temporary folder."""

    def __init__(self, process: asyncio.subprocess.Process, folder: str) -> None:
        self.process = process
        self.folder = folder

    @classmethod
    async def start(cls, memory_bytes: int) -> Worker:
        # File-system work happens off the event loop (it must never block a server).
        folder = await asyncio.to_thread(tempfile.mkdtemp, prefix="orquestra-analysis-")
        drop = await asyncio.to_thread(can_drop_privileges)
        env = {
            "PATH": "/usr/bin:/bin",
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
            "PYTHONHASHSEED": "0",
        }
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-I",
            "-m",
            "orquestra.sandbox.worker",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            cwd=folder,
            env=env,
            limit=OUTPUT_LIMIT,
            preexec_fn=functools.partial(limit_process, folder, memory_bytes, drop),
        )
        return cls(process, folder)

    async def call(self, job: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write((json.dumps(job, default=str) + "\n").encode())
        await self.process.stdin.drain()
        line = await asyncio.wait_for(self.process.stdout.readline(), timeout_s)
        if not line:
            raise AnalysisError("ANALYSIS_FAILED", "the analysis process ended unexpectedly")
        answer: dict[str, Any] = json.loads(line)
        return answer

    async def stop(self) -> None:
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            await self.process.wait()
        await asyncio.to_thread(shutil.rmtree, self.folder, ignore_errors=True)


class AnalysisPool:
    """`size` warm workers; `run(job)` returns the worker's analysis or raises `AnalysisError`."""

    def __init__(self, size: int = 2, timeout_s: float = 5.0, memory_bytes: int = MEMORY_BYTES):
        self.size, self.timeout_s, self.memory_bytes = size, timeout_s, memory_bytes
        self.idle: asyncio.Queue[Worker] = asyncio.Queue()
        self.workers: set[Worker] = set()

    async def start(self) -> AnalysisPool:
        for _ in range(self.size):
            worker = await Worker.start(self.memory_bytes)
            self.workers.add(worker)
            self.idle.put_nowait(worker)
        return self

    async def run(self, job: dict[str, Any], timeout_s: float | None = None) -> Any:
        worker = await self.idle.get()
        healthy = False
        try:
            answer = await worker.call(job, timeout_s or self.timeout_s)
            healthy = True
        except TimeoutError:
            raise AnalysisError(
                "ANALYSIS_TIMEOUT", "the analysis took too long and was stopped"
            ) from None
        except (OSError, ValueError, AnalysisError):
            raise AnalysisError("ANALYSIS_FAILED", "the analysis process failed") from None
        finally:
            await self._return(worker, healthy)
        if not answer.get("ok"):
            raise AnalysisError("ANALYSIS_FAILED", answer.get("error", "the analysis failed"))
        return answer["analysis"]

    async def _return(self, worker: Worker, healthy: bool) -> None:
        if healthy and worker.process.returncode is None:
            self.idle.put_nowait(worker)
            return
        self.workers.discard(worker)
        await worker.stop()
        fresh = await Worker.start(self.memory_bytes)
        self.workers.add(fresh)
        self.idle.put_nowait(fresh)

    async def close(self) -> None:
        for worker in list(self.workers):
            await worker.stop()
        self.workers.clear()
