"""Source selection's recall on a labelled question set: did it choose every table the gold
SQL reads, and how much of the catalog did it show to get there?

Usage: python bench/selection_recall.py DEPLOYMENT DATASET [DATASET…] [--verbose]
       [--database URL [--tenant T]]
DEPLOYMENT is a packaged name or a folder; each DATASET is JSON Lines with `question` and
`gold_sql`. Cases without gold SQL are not counted, nor conversations (`turns`): selection
reads a follow-up as the augmenter rewrote it, which the dataset does not hold. The
gold's tables are read by PostgreSQL's own parser (pglast, as the guard reads SQL), CTE names
aside. Prints, per dataset: the share of questions whose gold tables were all selected (all
questions, and those reading two or more tables), and the mean share of the catalog selected;
`--verbose` also lists each miss with the tables missing. Vectors are cached on disk under
ORQUESTRA_DATA_DIR/cache, so a second run is fast. No database is needed; with `--database`
the names a question writes are also looked up in the data, as a turn does
(`graph.data_values`, through the guard, as tenant T or the deployment's only one), and
the lookup's time is printed apart.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import pglast

from orquestra.core.deployment import load_deployment
from orquestra.core.settings import Settings
from orquestra.ddl_catalog import Catalog, load_catalog
from orquestra.ddl_catalog.data_values import FoundValue
from orquestra.ddl_catalog.selection import SourceIndex
from orquestra.graph.data_values import look_up
from orquestra.graph.embeddings import E5Embeddings
from orquestra.graph.sources import choose_sources, source_index
from orquestra.graph.vector_cache import VectorCache
from orquestra.guards import GuardPolicy
from orquestra.guards.tenant_key import deployment_key
from orquestra.guards.tree import iter_relations


@dataclass(frozen=True)
class Outcome:
    """One question: what the gold reads, what selection chose."""

    case: str
    question: str
    gold: frozenset[str]
    chosen: tuple[str, ...]

    @property
    def missing(self) -> set[str]:
        return set(self.gold) - set(self.chosen)


def gold_tables(sql: str, catalog: Catalog) -> frozenset[str]:
    """The catalog tables `sql` reads (CTE names and unknown names aside).

    >>> from orquestra.ddl_catalog import load_catalog
    >>> sorted(gold_tables("WITH t AS (SELECT * FROM pedidos) SELECT * FROM t JOIN clientes"
    ...                    " USING (cod_cliente)", load_catalog()))
    ['clientes', 'pedidos']
    """
    found = set()
    for statement in pglast.parse_sql(sql):
        for ref, ctes in iter_relations(statement.stmt):
            if ref.schemaname is None and ref.relname in ctes:
                continue
            if ref.relname in catalog.tables:
                found.add(ref.relname)
    return frozenset(found)


def cases(path: Path) -> list[tuple[str, str, str]]:
    """(id, question, gold SQL) of each case of `path` that has gold SQL."""
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        row = json.loads(line)
        if row.get("gold_sql") and row.get("question"):
            out.append((str(row.get("id", number)), row["question"], row["gold_sql"]))
    return out


@dataclass
class Lookup:
    """Where the names a question writes are looked up (`--database`), and its times."""

    pool: asyncpg.Pool
    policy: GuardPolicy
    tenant: str
    seconds: list[float]

    async def values(self, index: SourceIndex, question: str) -> tuple[FoundValue, ...]:
        start = time.perf_counter()
        looked = await look_up(
            question,
            index,
            self.pool,
            self.policy,
            tenant=self.tenant,
            limits=Settings().limits.execution(),
        )
        self.seconds.append(time.perf_counter() - start)
        return looked.found


async def measure(
    index: SourceIndex, cache: VectorCache, path: Path, lookup: Lookup | None
) -> list[Outcome]:
    outcomes = []
    for case, question, sql in cases(path):
        gold = gold_tables(sql, index.catalog)
        if not gold:
            continue  # reads no catalog table (a constant, a function): nothing to select
        values = await lookup.values(index, question) if lookup else ()
        selection = await choose_sources(index, cache, question, asker="bench", values=values)
        outcomes.append(Outcome(case, question, gold, selection.tables))
    return outcomes


def report(name: str, outcomes: list[Outcome], size: int, verbose: bool) -> None:
    """One line: all-tables recall (all questions, multi-table ones) and the mean share."""
    many = [o for o in outcomes if len(o.gold) > 1]
    share = statistics.fmean(len(o.chosen) / size for o in outcomes) if outcomes else 0.0

    def recall(group: list[Outcome]) -> str:
        hits = sum(not o.missing for o in group)
        return f"{hits / len(group):6.1%} ({hits:>3}/{len(group):<3})" if group else " " * 16

    print(f"  {name:<28} all {recall(outcomes)}  multi {recall(many)}  share {share:5.1%}")
    if verbose:
        for o in outcomes:
            if o.missing:
                print(f"    miss {o.case}: {o.question!r}")
                print(f"      missing {sorted(o.missing)}; chose {list(o.chosen)}")


async def main(
    deployment: str, datasets: list[Path], verbose: bool, database: str | None, tenant: str | None
) -> None:
    chosen = load_deployment(deployment)
    catalog = load_catalog(chosen.catalog_dir)
    cache = await VectorCache.open(E5Embeddings(), None, Settings().data_dir / "cache")
    index = await source_index(catalog, cache)
    names = index.names
    print(f"{deployment}: {len(names)} tables")
    lookup = None
    if database:
        canonical = deployment_key(catalog, chosen.profile).canonical(tenant)
        pool = await asyncpg.create_pool(database, min_size=1, max_size=2)
        lookup = Lookup(pool, GuardPolicy.from_catalog(catalog), canonical, [])
    seconds: list[float] = []
    every: list[Outcome] = []
    for path in datasets:
        outcomes = await measure(index, cache, path, lookup)
        report(path.stem, outcomes, len(names), verbose)
        every += outcomes
        for o in outcomes:  # the whole of it: the question's vector (cached) and its words'
            start = time.perf_counter()
            await choose_sources(index, cache, o.question, asker="bench")
            seconds.append(time.perf_counter() - start)
    if len(datasets) > 1:
        report("(every set)", every, len(names), verbose=False)
    if seconds:
        print(f"selection time per question: median {statistics.median(seconds) * 1000:.2f} ms")
    if lookup and lookup.seconds:
        ms = sorted(s * 1000 for s in lookup.seconds)
        p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
        print(f"value lookup per question: median {statistics.median(ms):.2f} ms, p95 {p95:.2f} ms")
        await lookup.pool.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("deployment", help="a packaged deployment's name or a folder")
    parser.add_argument("datasets", nargs="+", type=Path, help="JSON Lines with gold_sql")
    parser.add_argument("--verbose", action="store_true", help="list each question missed")
    parser.add_argument("--database", help="look the names up in this database, as a turn does")
    parser.add_argument("--tenant", help="the tenant to look up as (a deployment with tenants)")
    arguments = parser.parse_args()
    asyncio.run(
        main(
            arguments.deployment,
            arguments.datasets,
            arguments.verbose,
            arguments.database,
            arguments.tenant,
        )
    )
