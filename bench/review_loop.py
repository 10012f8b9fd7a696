"""The learning loop, measured: ask, rate, review, approve, ask again (issue #39).

Usage: python bench/review_loop.py [--out DIR]

On Chinook imported with `orquestra init` (tenants: the support reps), with the default
offline model:
1. the 40 paraphrases of `evals/datasets/learning/chinook/` are scored with `orquestra eval`
   (relaxed execution accuracy): before;
2. a real `orquestra serve` answers the 40 questions, each as its tenant; each answer is
   rated up when its rows are the gold's, down otherwise (`POST …/feedback`);
3. every turn of the queue is approved with `orquestra review approve`: a right one as it
   is, a wrong one (or one that could not answer) with the gold SQL (`--sql FILE`); the
   command's time per turn is the review time measured (a person reading the turn adds
   their own);
4. the paraphrases are scored again: after;
5. every approved example, as each other tenant sees it, is checked for values found in
   the approving tenant's rows only.

Both question sets were written by someone who never read the offline model's code, and
committed before it first ran on them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import asyncpg
import httpx
from figures import quantile, wait_until_ready
from imported_schemas import orquestra, prepare
from load_rig import free_port, start_server

from orquestra.core.database import ensure_state_database, state_scope
from orquestra.core.settings import Settings
from orquestra.evals.compare import relaxed_match
from orquestra.graph.reviewed_examples import TABLE as EXAMPLES
from orquestra.graph.reviewed_examples import ReviewedExamples
from orquestra.server.auth import mint_token
from orquestra.server.review import LOG, TURNS

REPO = Path(__file__).resolve().parents[1]
SETS = REPO / "evals" / "datasets" / "learning" / "chinook"
TENANT_TABLES = ("customer", "invoice")


def as_cases(path: Path, out: Path) -> Path:
    """The set as `orquestra eval` cases (its own split and link fields left out)."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        case.pop("paraphrase_of", None)
        case["split"], case["origin"] = "heldout", "chinook_learning"
        lines.append(json.dumps(case, ensure_ascii=False))
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def score(env: dict[str, str], dataset: Path, out: Path) -> tuple[int, int, list[dict]]:
    ran = orquestra(env, "eval", "--dataset", str(dataset), "--out", str(out))
    report = out / "report.json"
    if not report.is_file():
        print(ran.stdout[-2000:], ran.stderr[-2000:])
        raise SystemExit(1)
    cases = json.loads(report.read_text(encoding="utf-8"))["cases"]
    return sum(1 for c in cases if c.get("relaxed")), len(cases), cases


def gold_rows(env: dict[str, str], case: dict) -> list[list]:
    ran = orquestra(env, "sql", "--tenant", case["tenant"], "--json", case["gold_sql"])
    return json.loads(ran.stdout)["rows"] if ran.returncode == 0 else []


def ask(url: str, token: str, question: str) -> tuple[str, str, dict]:
    """One turn over SSE: its thread, run id and result."""
    run_id = thread_id = ""
    result: dict = {}
    event = ""
    with httpx.stream(
        "POST",
        f"{url}/v1/chat/stream",
        json={"message": question},
        headers={"Authorization": f"Bearer {token}"},
        timeout=120,
    ) as response:
        for line in response.iter_lines():
            if line.startswith("event:"):
                event = line.split(":", 1)[1].strip()
            elif line.startswith("data:") and event in ("run", "result"):
                data = json.loads(line[5:])
                if event == "run":
                    run_id, thread_id = data["run_id"], data["thread_id"]
                else:
                    result = data
    return thread_id, run_id, result


async def leaks(env: dict[str, str], settings: Settings) -> tuple[int, int]:
    """(examples checked as seen by another tenant, values of the approving tenant's rows
    found in them). A value is the approving tenant's when it is in its customers' or
    invoices' text columns and in no other tenant's."""
    url = env["DATABASE_URL"]
    conn = await asyncpg.connect(url)
    try:
        owned: dict[str, set[str]] = {}
        for table in TENANT_TABLES:
            columns = await conn.fetch(
                "SELECT column_name FROM information_schema.columns WHERE table_name = $1"
                " AND data_type IN ('text', 'character varying')",
                table,
            )
            for column in (c["column_name"] for c in columns):
                rows = await conn.fetch(
                    f'SELECT DISTINCT c.support_rep_id::text AS t, x."{column}"::text AS v'
                    f" FROM {table} x JOIN customer c USING (customer_id)"
                    if table != "customer"
                    else f'SELECT DISTINCT support_rep_id::text AS t, "{column}"::text AS v'
                    " FROM customer"
                )
                for row in rows:
                    if row["v"] and len(row["v"]) > 2:
                        owned.setdefault(row["v"], set()).add(row["t"])
    finally:
        await conn.close()
    own_only = {v: next(iter(t)) for v, t in owned.items() if len(t) == 1}
    state = await asyncpg.create_pool(await ensure_state_database(settings), min_size=1, max_size=2)
    try:
        scope = state_scope(Path(env["ORQUESTRA_DEPLOYMENT"]).name, url)
        store = ReviewedExamples(state, scope, settings.limits.database_timeout_s)
        checked = found = 0
        for tenant in ("3", "4", "5"):
            for example in await store.seen_by(tenant):
                if example.own:
                    continue
                checked += 1
                text = f"{example.question}\n{example.sql}"
                found += sum(1 for v, t in own_only.items() if t != tenant and f"'{v}'" in text)
                found += sum(
                    1 for v, t in own_only.items() if t != tenant and v in example.question
                )
        return checked, found
    finally:
        await state.close()


async def forget_reviews(env: dict[str, str], settings: Settings) -> None:
    """Remove what an earlier run reviewed on this deployment and database (the state database
    outlives the data database `prepare` loads again)."""
    conn = await asyncpg.connect(await ensure_state_database(settings))
    try:
        scope = state_scope(Path(env["ORQUESTRA_DEPLOYMENT"]).name, env["DATABASE_URL"])
        for table in (EXAMPLES, TURNS, LOG):
            if await conn.fetchval("SELECT to_regclass($1)", table):
                await conn.execute(f"DELETE FROM {table} WHERE scope = $1", scope)
    finally:
        await conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="review-loop-"))
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        env = asyncio.run(prepare("chinook", "tenants", None, Path(work)))
        os.environ.update(env)
        settings = Settings()
        asyncio.run(forget_reviews(env, settings))  # a run before this one used the same scope
        questions = as_cases(SETS / "questions.jsonl", out / "questions.jsonl")
        paraphrases = as_cases(SETS / "paraphrases.jsonl", out / "paraphrases.jsonl")
        before, total, _ = score(env, paraphrases, out / "before")
        print(f"paraphrases before review: {before}/{total} ({before / total:.0%})")
        asked_right, _, _ = score(env, questions, out / "questions-eval")
        print(f"questions (eval, for reference): {asked_right}/{total}")

        port = free_port()
        server = start_server(port, {**os.environ, **env, "ORQUESTRA_LOG_LEVEL": "WARNING"}, out)
        try:
            wait_until_ready(server.url, server.process)
            cases = [json.loads(line) for line in questions.read_text().splitlines()]
            rated = {"up": 0, "down": 0}
            corrections: dict[str, str] = {}
            started = time.perf_counter()
            for case in cases:
                token = mint_token(settings, case["tenant"], f"user{case['tenant']}")
                thread, run, result = ask(server.url, token, case["question"])
                right = bool(result.get("rows") is not None) and relaxed_match(
                    result.get("rows") or [], gold_rows(env, case)
                )
                rating = "up" if right else "down"
                rated[rating] += 1
                httpx.post(
                    f"{server.url}/v1/threads/{thread}/feedback",
                    json={"run_id": run, "rating": rating},
                    headers={"Authorization": f"Bearer {token}"},
                    timeout=30,
                ).raise_for_status()
                if not right:
                    corrections[case["question"]] = case["gold_sql"]
            print(
                f"asked and rated over the server: {len(cases)} turns in"
                f" {time.perf_counter() - started:.0f} s; up {rated['up']}, down {rated['down']}"
            )
        finally:
            server.process.terminate()
            server.process.wait(30)

        queue = orquestra(env, "review", "list", "--json")
        turns = [json.loads(line) for line in queue.stdout.splitlines() if line.strip()]
        times = []
        for turn in turns:
            command = ["review", "approve", str(turn["id"]), "--by", "bench", "--json"]
            sql = corrections.get(turn["question"])
            if sql is not None:
                path = out / f"gold-{turn['id']}.sql"
                path.write_text(sql, encoding="utf-8")
                command += ["--sql", str(path)]
            began = time.perf_counter()
            done = orquestra(env, *command)
            times.append(time.perf_counter() - began)
            if done.returncode != 0:
                print(f"  approve {turn['id']} failed: {done.stdout[-300:]} {done.stderr[-300:]}")
        shared = sum(
            1
            for line in orquestra(
                env, "review", "list", "--status", "approved", "--json"
            ).stdout.splitlines()
            if line.strip()
        )
        print(
            f"reviewed {len(turns)} turns with the command line ({len(corrections)} corrected):"
            f" median {statistics.median(times):.2f} s, p95 {quantile(times, 0.95):.2f} s"
            f" per approval; {shared} approved"
        )
        after, total, cases_after = score(env, paraphrases, out / "after")
        said = ("reviewed example", "exemplo revisado")
        reused = sum(1 for c in cases_after if any(s in (c.get("answer") or "") for s in said))
        print(
            f"paraphrases after review: {after}/{total} ({after / total:.0%}),"
            f" {after - before:+d} ({(after - before) / total:+.0%} points)"
        )
        print(f"  answered from a reviewed example: {reused}")
        checked, found = asyncio.run(leaks(env, settings))
        print(
            f"another tenant's view of the approvals: {checked} examples checked,"
            f" {found} values of the approving tenant's own rows in them"
        )
    print(f"\nreports: {out}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
