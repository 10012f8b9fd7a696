"""The analysis worker (`python -I -m orquestra.sandbox.worker`): one JSON job a line on stdin.

The worker is a clean template: it loads pandas, numpy and the analysis once, and never runs
a job itself. Each job runs in a fork of it, in a new empty folder of its own: no module
attribute a job replaces, no object it keeps and no file it leaves survives into the next
job, whoever asked for it (tenants share the workers). The fork reads nothing of the
template's pipes: its answer goes back on a pipe of its own, and the template relays it.

Jobs: `{"kind": "builtin", ...}` runs the built-in analysis; `{"kind": "code", "code": ...}`
runs the built-in analysis and model-written pandas code that already passed the AST check
(checked again here), whose `result` comes back as `figures`; `{"kind": "python", "code":
...}` runs code unchecked — used only by the tests that prove the confinement holds by itself.
One JSON answer a line: `{"ok": true, "analysis": …}` or `{"ok": false, "error": "…"}`.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import traceback
from typing import Any

from orquestra.sandbox.confine import install_audit_hook, readable_roots

ANSWER_LIMIT = 8 * 1024 * 1024
"""Bytes of one answer; a job that writes more gets an error instead (`pool.OUTPUT_LIMIT`, the
line the pool reads, is sized from it)."""


def handle(job: dict[str, Any]) -> dict[str, Any]:
    kind = job.get("kind")
    if kind == "builtin":
        from orquestra.sandbox.analysis import analyze

        return {"ok": True, "analysis": analyze(job)}
    if kind == "code":
        from orquestra.sandbox.analysis import analyze
        from orquestra.sandbox.codecheck import check_code

        check_code(job["code"])
        return {"ok": True, "analysis": {**analyze(job), "figures": _run_code(job)}}
    if kind == "python":
        return {"ok": True, "analysis": _run_code(job)}
    return {"ok": False, "error": f"unknown job kind {kind!r}"}


def _run_code(job: dict[str, Any]) -> object:
    namespace: dict[str, Any] = {
        "columns": job.get("columns", []),
        "rows": job.get("rows", []),
        "result": None,
    }
    if job.get("kind") == "code":
        import numpy as np
        import pandas as pd

        namespace.update(
            pd=pd, np=np, df=pd.DataFrame(job.get("rows", []), columns=job.get("columns"))
        )
    exec(compile(job["code"], "<analysis>", "exec"), namespace)  # confined: see confine.py
    return json.loads(json.dumps(namespace.get("result"), default=str))


def answer_for(line: str) -> dict[str, Any]:
    """The answer to one job line, every failure a plain `{"ok": false, "error"}`."""
    try:
        return handle(json.loads(line))
    except MemoryError:
        return {"ok": False, "error": "the analysis ran out of memory"}
    except RecursionError:
        return {"ok": False, "error": "the analysis recursed too deeply"}
    except Exception as exc:  # reported to the parent, which turns it into a clear error
        return {
            "ok": False,
            "error": f"{type(exc).__name__}: {exc}"[:500],
            "detail": traceback.format_exc(limit=3)[-1500:],
        }


def _job_in_fork(line: str, folder: str, answer_fd: int, readable: tuple[str, ...]) -> None:
    """In the fork: cut from the template's pipes, confined to `folder`, answer, exit."""
    quiet = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # the next job arrives on stdin; answers leave on stdout
        os.dup2(quiet, fd)
    os.close(quiet)
    out = os.fdopen(answer_fd, "wb")
    os.chdir(folder)
    install_audit_hook(folder, readable)
    try:
        data = json.dumps(answer_for(line), default=str).encode()
    except Exception:  # an answer that does not serialise is still an answer
        data = json.dumps({"ok": False, "error": "the analysis result is not JSON"}).encode()
    if len(data) > ANSWER_LIMIT:
        data = json.dumps({"ok": False, "error": "the analysis result is too large"}).encode()
    out.write(data)
    out.flush()
    os._exit(0)


def run_job(line: str, base: str, readable: tuple[str, ...]) -> dict[str, Any]:
    """`line`'s job in a fresh fork with a new empty folder under `base`, removed after; the
    fork may read only that folder and `readable`."""
    folder = tempfile.mkdtemp(prefix="job-", dir=base)
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the job's own process
        os.close(read_fd)
        try:
            _job_in_fork(line, folder, write_fd, readable)
        finally:
            os._exit(1)
    os.close(write_fd)
    chunks, size = [], 0
    with os.fdopen(read_fd, "rb") as answers:
        while chunk := answers.read(65536):
            size += len(chunk)
            if size <= ANSWER_LIMIT + 1024:
                chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    shutil.rmtree(folder, ignore_errors=True)
    try:
        answer: dict[str, Any] = json.loads(b"".join(chunks))
        return answer
    except ValueError:
        signal = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        why = f" (signal {signal})" if signal else ""
        return {"ok": False, "error": f"the analysis process ended unexpectedly{why}"}


def main() -> None:
    import numpy  # noqa: F401  (loaded once in the template: every fork starts with them)
    import pandas  # noqa: F401

    import orquestra.sandbox.analysis
    import orquestra.sandbox.codecheck  # noqa: F401

    base, readable = os.getcwd(), readable_roots()
    for line in sys.stdin:
        sys.stdout.write(json.dumps(run_job(line, base, readable), default=str) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
