"""Benchmark the agent graph with an instant scripted model (no model latency at all).

Usage: python bench/graph.py [--turns 30]
Prints: model calls per turn by route; the SQL writer's prompt size with source selection
versus the whole catalog; the graph's own time per turn (everything but the model: stages,
embeddings, guard, database), median and p95, for a greeting and for a data question.
Uses the embedded database in ORQUESTRA_DATA_DIR (loading the demo data if missing).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import yaml
from figures import DATA_QUESTIONS as QUESTIONS
from figures import quantile
from langgraph.checkpoint.memory import InMemorySaver

from orquestra.agent.wiring import build_graph
from orquestra.core.settings import Settings
from orquestra.ddl_catalog.render import render_schema
from orquestra.graph.context import ROLES, RunContext
from orquestra.graph.events import run_turn
from orquestra.graph.resources import Resources
from orquestra.nodes.prompts import prompt
from orquestra.offline.scripted import reset_scripts
from orquestra.server.db_init import init_database

REVENUE = (
    "SELECT date_trunc('month', data_emissao) AS mes, sum(valor_nota) AS faturamento "
    "FROM notas_fiscais WHERE status = 'AUTORIZADA' GROUP BY 1 ORDER BY 1"
)
STATUS = (
    "SELECT DISTINCT ON (serie, num_nota) serie, num_nota, status FROM eventos_rastreamento "
    "WHERE num_nota = 40908 ORDER BY serie, num_nota, last_updated DESC"
)


def aug(question: str, data: bool = True) -> dict:
    return {"question": question, "is_data_question": data, "missing": [], "lang": "pt"}


SCRIPTS = {
    "greeting": {},
    "tracking": {
        "augmenter": [aug("status da nota 40908")],
        "router": [{"route": "TRACKING"}],
        "sql_writer": [{"thought_process": "t", "sql": STATUS}],
        "answer": ["ok"],
    },
    "analytics": {
        "augmenter": [aug("faturamento por mês")],
        "router": [{"route": "ANALYTICS"}],
        "sql_writer": [{"thought_process": "t", "sql": REVENUE}],
        "answer": ["ok"],
    },
    "knowledge": {
        "augmenter": [aug("o que é OTIF?", False)],
        "router": [{"route": "KNOWLEDGE"}],
        "librarian": [{"answer": "OTIF é ..."}],
        "judge": [{"addresses_question": True}],
    },
    "chat": {
        "augmenter": [aug("quem é você?", False)],
        "router": [{"route": "CHAT"}],
        "chat": ["Sou o Orquestra."],
    },
    "concept + data": {
        "augmenter": [aug("o que é nota bloqueada e quantas eu tenho?")],
        "router": [{"route": "ANALYTICS", "wants_knowledge": True}],
        "librarian": [{"answer": "..."}],
        "judge": [{"addresses_question": True}],
        "sql_writer": [
            {
                "thought_process": "t",
                "sql": "SELECT count(*) FROM notas_fiscais WHERE status = 'BLOQUEADA'",
            }
        ],
        "answer": ["ok"],
    },
}
MESSAGES = {
    "greeting": "bom dia",
    "tracking": "status da nota 40908",
    "analytics": "faturamento",
    "knowledge": "o que é OTIF?",
    "chat": "quem é você?",
    "concept + data": "o que é nota bloqueada e quantas eu tenho?",
}


async def turn(
    graph, context: RunContext, folder: Path, route: str, thread: str
) -> tuple[float, int]:
    reset_scripts()
    path = folder / "script.yaml"
    path.write_text(yaml.safe_dump({"roles": SCRIPTS[route]}, allow_unicode=True))
    context = replace(context, models={role: f"scripted:{path}" for role in ROLES})
    started = time.perf_counter()
    async for _ in run_turn(graph, MESSAGES[route], thread_id=thread, context=context):
        pass
    seconds = time.perf_counter() - started
    state = (await graph.aget_state({"configurable": {"thread_id": thread}})).values
    return seconds, state.get("model_calls", 0)


async def main(turns: int) -> None:
    settings = Settings()
    await init_database(settings)
    resources = await Resources.open(settings)
    graph = build_graph(resources).compile(checkpointer=InMemorySaver())
    context = RunContext.from_settings(settings, tenant="101")
    with tempfile.TemporaryDirectory() as folder:
        print("model calls per turn (scripted, no errors):")
        for route in SCRIPTS:
            _, calls = await turn(graph, context, Path(folder), route, f"calls-{route}")
            print(f"  {route:<16} {calls}")
        print(f"\ngraph time per turn with an instant model ({turns} turns each):")
        for route in ("greeting", "tracking", "analytics"):
            times = [
                (await turn(graph, context, Path(folder), route, f"t-{route}-{i}"))[0] * 1000
                for i in range(turns)
            ]
            print(
                f"  {route:<16} median {statistics.median(times):7.1f} ms   "
                f"p95 {quantile(times, 0.95):7.1f} ms"
            )
    catalog = resources.catalog
    everything = render_schema(catalog, catalog.tables, catalog.glossary)
    selected_sizes, whole_sizes = [], []
    for question in QUESTIONS:
        selection = resources.sources.select(
            question, await resources.vectors.query(question, asker="bench")
        )
        schema = render_schema(catalog, selection.tables, selection.terms)
        selected_sizes.append(
            len(prompt("sql_analytics", schema=schema, examples="", today="")) // 4
        )
        whole_sizes.append(
            len(prompt("sql_analytics", schema=everything, examples="", today="")) // 4
        )
    print(f"\nSQL writer system prompt, ~tokens (4 chars/token), {len(QUESTIONS)} questions:")
    print(
        f"  with source selection  median {statistics.median(selected_sizes):7.0f}   "
        f"max {max(selected_sizes):7.0f}"
    )
    print(f"  whole catalog                 {whole_sizes[0]:7.0f}")
    print(
        f"  ratio                  median {statistics.median(selected_sizes) / whole_sizes[0]:.2f}"
    )
    await resources.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=30)
    asyncio.run(main(parser.parse_args().turns))
