"""The analysis worker (`python -I -m graph.sandbox.worker`): one JSON job a line on stdin.

Jobs: `{"kind": "builtin", ...}` runs the built-in analysis; `{"kind": "code", "code": ...}`
runs model-written pandas code that already passed the AST check (checked again here);
`{"kind": "python", "code": ...}` runs code unchecked — used only by the tests that prove the
confinement holds by itself. One JSON answer a line: `{"ok": true, "analysis": …}` or
`{"ok": false, "error": "…"}`.
"""

from __future__ import annotations

import json
import os
import sys
import traceback

from orquestra.sandbox.confine import install_audit_hook


def handle(job: dict) -> dict:
    kind = job.get("kind")
    if kind == "builtin":
        from orquestra.sandbox.analysis import analyze

        return {"ok": True, "analysis": analyze(job)}
    if kind in ("code", "python"):
        if kind == "code":
            from orquestra.sandbox.codecheck import check_code

            check_code(job["code"])
        return {"ok": True, "analysis": _run_code(job)}
    return {"ok": False, "error": f"unknown job kind {kind!r}"}


def _run_code(job: dict) -> object:
    namespace: dict = {
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


def main() -> None:
    import numpy  # noqa: F401  (loaded before the hook: extension modules need dlopen)
    import pandas  # noqa: F401

    install_audit_hook(os.getcwd())
    for line in sys.stdin:
        try:
            answer = handle(json.loads(line))
        except MemoryError:
            answer = {"ok": False, "error": "the analysis ran out of memory"}
        except RecursionError:
            answer = {"ok": False, "error": "the analysis recursed too deeply"}
        except Exception as exc:  # reported to the parent, which turns it into a clear error
            answer = {
                "ok": False,
                "error": f"{type(exc).__name__}: {exc}"[:500],
                "detail": traceback.format_exc(limit=3)[-1500:],
            }
        sys.stdout.write(json.dumps(answer, default=str) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
