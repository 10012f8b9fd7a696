"""`orquestra ask` and `orquestra eval` on a machine where nothing was loaded yet.

A new user may run `orquestra eval` (or `make eval`) before `make demo`: on the embedded
database, which is Orquestra's own, the deployment's sample data is loaded first, as `demo`
does, instead of failing on a role that does not exist yet. Each test uses a database name
of its own on the session's embedded server, so it really starts empty.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ORQUESTRA = str(Path(sys.executable).parent / "orquestra")


def orquestra(data_dir: Path, database: str, *args: str) -> subprocess.CompletedProcess[str]:
    environment = {
        **os.environ,
        "ORQUESTRA_DATA_DIR": str(data_dir),
        "ORQUESTRA_DATABASE_NAME": database,
        "ORQUESTRA_DEMO_SCALE": "0.05",
    }
    return subprocess.run(
        [ORQUESTRA, *args], capture_output=True, text=True, env=environment, cwd=REPO, timeout=300
    )


def test_ask_on_an_empty_embedded_database_loads_the_sample_first(
    data_dir: Path, demo_db: object
) -> None:
    first = orquestra(
        data_dir,
        "fresh_ask_clinics",
        *("--deployment", "clinics", "ask", "--tenant", "201", "--json"),
        "quantos exames realizamos em maio?",
    )
    assert first.returncode == 0, first.stderr
    assert "loaded the clinics sample data" in first.stderr
    events = [json.loads(line) for line in first.stdout.splitlines() if line.startswith("{")]
    result = next(e["data"] for e in events if e["event"] == "result")
    assert "exames" in result["sql"] and result["rows"]
    again = orquestra(
        data_dir,
        "fresh_ask_clinics",
        *("--deployment", "clinics", "ask", "--tenant", "201"),
        "quantos laudos atrasados temos hoje?",
    )
    assert again.returncode == 0, again.stderr
    assert "loaded" not in again.stderr  # already there: nothing reloaded


def test_eval_on_an_empty_embedded_database_runs(data_dir: Path, demo_db, tmp_path: Path) -> None:
    dataset = tmp_path / "two.jsonl"
    cases = [
        {
            "id": "a",
            "question": "quantas notas bloqueadas temos?",
            "tenant": "101",
            "route": "analytics",
            "gold_sql": "SELECT count(*) FROM notas_fiscais WHERE status = 'BLOQUEADA'",
        },
        {"id": "b", "question": "o que é nota bloqueada?", "tenant": "101", "route": "knowledge"},
    ]
    provenance = {"split": "project", "origin": "fresh_commands"}
    lines = (json.dumps({**case, **provenance}) for case in cases)
    dataset.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    ran = orquestra(
        data_dir, "fresh_eval_logistics", "eval", "--dataset", str(dataset), "--out", str(out)
    )
    assert ran.returncode == 0, ran.stderr
    assert "loaded the logistics sample data" in ran.stderr
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["summary"]["errors"] == 0 and report["summary"]["tenant_leaks"] == 0
    assert [c["id"] for c in report["cases"]] == ["a", "b"]
