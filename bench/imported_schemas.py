"""Schemas nobody here wrote, taken as a company would: `init` → `catalog check` → `db policies
--apply` → `eval`, with no hand edits, through the real `orquestra` processes.

Usage: python bench/imported_schemas.py [--schema northwind] [--split dev] [--tenancy none]
       [--no-foreign-keys] [--model offline] [--out DIR]

For each public schema in `tests/fixtures/schemas/` (Northwind, Chinook, …) and its question
sets in `evals/datasets/imported/<schema>/`, it prints `init`'s time, the catalog it wrote
(tables, joins), and per set the three figures that matter for a schema the model was not
tuned for: answered right, answered wrong (rows that do not match the reference — the worst
outcome), said it could not (no query ran: an honest stop, a clarifying question; or a judge
withheld the result as not the answer) — and the
cases that failed with an error. `--tenancy tenants` imports with the schema's natural tenant
column (Chinook: the support rep of `customer`), `none` with `--no-tenancy`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # tests/schemas.py loads the public schemas

from orquestra.core.database import embedded_server  # noqa: E402
from orquestra.core.settings import Settings  # noqa: E402
from orquestra.ddl_catalog import load_catalog  # noqa: E402
from tests.schemas import load_schema, schema_names  # noqa: E402

BIN = Path(sys.executable).parent
TENANT_COLUMNS = {"chinook": "support_rep_id"}
"""The natural tenant column of a schema that has one (`tests/fixtures/schemas/README.md`)."""
SETS = REPO / "evals" / "datasets" / "imported"


def orquestra(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "orquestra"), *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=3600,
    )


def outcome(case: dict) -> str:
    """right, wrong, could_not (no query ran, or its result withheld) or error, for one case
    of a report."""
    if case.get("error"):
        return "error"
    if case.get("exact") or case.get("relaxed"):
        return "right"
    if not case.get("sql") or case.get("stop_reason") == "ANSWER_REFUSED":
        return "could_not"  # no query ran, or its result was withheld as not the answer
    return "wrong"


async def prepare(
    schema: str, tenancy: str, foreign_keys: bool | None, work: Path
) -> dict[str, str]:
    """The schema in a fresh database and its deployment, as the commands leave them."""
    settings = Settings()
    server = embedded_server(settings.data_dir).get_uri()  # type: ignore[attr-defined]
    suffix = "_nofk" if foreign_keys is False else ""
    url, _ = await load_schema(
        server, schema, f"bench_{schema}_{tenancy}{suffix}", foreign_keys=foreign_keys
    )
    folder = work / f"{schema}-{tenancy}{suffix}"
    env = {
        "DATABASE_URL": url,
        "ORQUESTRA_DATA_DIR": str(settings.data_dir),
        "ORQUESTRA_DEPLOYMENT": str(folder),
    }
    decision = (
        ["--tenant-column", TENANT_COLUMNS[schema]] if tenancy == "tenants" else ["--no-tenancy"]
    )
    started = time.perf_counter()
    written = orquestra(env, "init", str(folder), "--schema", "public", *decision)
    took = time.perf_counter() - started
    print(f"\n## {schema} ({tenancy}{', no foreign keys' if foreign_keys is False else ''})")
    print(f"init: {took:.2f} s, exit {written.returncode}")
    if written.returncode != 0:
        print(written.stdout[-3000:], written.stderr[-2000:])
        raise SystemExit(1)
    catalog = load_catalog(folder / "catalog")
    joins = sum(len(t.meta.joins) for t in catalog.tables.values())
    values = sum(1 for t in catalog.tables.values() for c in t.columns if c.meta.values)
    print(f"catalog: {len(catalog.tables)} tables, {joins} joins, {values} columns with values")
    for step in (("catalog", "check"), ("db", "policies", "--apply")):
        done = orquestra(env, *step)
        print(f"{' '.join(step)}: exit {done.returncode}")
        if done.returncode != 0:
            print(done.stdout[-2000:], done.stderr[-2000:])
            raise SystemExit(1)
    return env


def evaluate(env: dict[str, str], schema: str, split: str, model: str, out: Path) -> dict:
    dataset = SETS / schema / f"{split}.jsonl"
    target = out / f"{schema}-{split}"
    args = ["eval", "--dataset", str(dataset), "--out", str(target), "--concurrency", "2"]
    if model != "offline":
        args += ["--model", model]
    started = time.perf_counter()
    ran = orquestra(env, *args)
    took = time.perf_counter() - started
    report = target / "report.json"
    if not report.is_file():
        print(ran.stdout[-2000:], ran.stderr[-2000:])
        raise SystemExit(1)
    cases = json.loads(report.read_text(encoding="utf-8"))["cases"]
    counts = {k: 0 for k in ("right", "wrong", "could_not", "error")}
    for case in cases:
        counts[outcome(case)] += 1
    total = len(cases)
    shares = ", ".join(f"{k} {v} ({v / total:.0%})" for k, v in counts.items())
    print(f"{split}: {total} cases in {took:.0f} s: {shares}")
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--schema", action="append", choices=schema_names(), default=None)
    parser.add_argument(
        "--split", action="append", choices=("dev", "dev2", "heldout"), default=None
    )
    parser.add_argument("--tenancy", choices=("none", "tenants"), default="none")
    parser.add_argument("--no-foreign-keys", action="store_true")
    parser.add_argument("--model", default="offline", help="a model spec, or offline")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    schemas = args.schema or [s for s in schema_names() if (SETS / s).is_dir()]
    if args.tenancy == "tenants":
        schemas = [s for s in schemas if s in TENANT_COLUMNS]
    out = args.out or Path(tempfile.mkdtemp(prefix="imported-"))
    with tempfile.TemporaryDirectory() as work:
        for schema in schemas:
            keys = False if args.no_foreign_keys else None  # None: as the schema was published
            env = asyncio.run(prepare(schema, args.tenancy, keys, Path(work)))
            for split in args.split or ["dev", "heldout"]:
                evaluate(env, schema, split, args.model, out)
    print(f"\nreports: {out}")


if __name__ == "__main__":
    main()
