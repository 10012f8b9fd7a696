"""Which end of a ranking "pior"/"worst" and "melhor"/"best" mean, read from the glossary:
a metric said to be better when higher ranks its worst from the lowest; a time taken is
better when lower; a metric that says nothing ranks the most first for both words."""

from __future__ import annotations

from datetime import date

import pytest

from orquestra.core.deployment import load_deployment
from orquestra.ddl_catalog import load_catalog
from orquestra.offline.lexicon import lexicon_for
from orquestra.offline.parser import parse
from orquestra.offline.sql import build_sql

TODAY = date(2026, 6, 30)
CATALOGS = {
    name: load_catalog(load_deployment(name).catalog_dir) for name in ("logistics", "clinics")
}


def sql_for(deployment: str, question: str) -> str:
    catalog = CATALOGS[deployment]
    intent = parse(question, catalog, lexicon_for(catalog), TODAY)
    return " ".join(build_sql(intent, catalog, TODAY.isoformat()).split())


@pytest.mark.parametrize(
    ("deployment", "question", "order"),
    [
        ("logistics", "qual modal teve o pior OTIF em 2025?", "ORDER BY otif ASC LIMIT 1"),
        ("logistics", "which carrier has the worst on-time rate?", "ORDER BY otif ASC LIMIT 1"),
        ("logistics", "which carrier has the best on-time rate?", "ORDER BY otif DESC LIMIT 1"),
        ("logistics", "qual transportadora tem o melhor lead time?", "lead_time ASC LIMIT 1"),
        ("logistics", "which carrier had the worst lead time?", "lead_time DESC LIMIT 1"),
        ("logistics", "o pior cliente em atraso", "DESC LIMIT 1"),
        ("clinics", "which unit has the best turnaround time?", "tempo_de_laudo ASC LIMIT 1"),
        ("clinics", "qual unidade tem o pior tempo de laudo?", "tempo_de_laudo DESC LIMIT 1"),
    ],
)
def test_worst_and_best_follow_the_metrics_direction(
    deployment: str, question: str, order: str
) -> None:
    assert order in sql_for(deployment, question)
