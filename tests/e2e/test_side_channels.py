"""Side channels between tenants that share one server process, tried as an attacker would.

A supplier holding a valid token tries to learn another supplier's rows through what every
tenant shares in one process: the analysis workers (a spy planted in their modules, a file
left behind) and the query-embedding cache (whether someone else asked the same question,
read from the asker's own timings). Each test runs against a real `orquestra serve`.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.e2e.conftest import Server, start_server, stream, token

OVERDUE = (
    "SELECT c.nome, sum(t.valor) AS valor FROM titulos t "
    "JOIN clientes c ON c.cod_cliente = t.cod_cliente "
    "WHERE t.status = 'VENCIDO' GROUP BY c.nome ORDER BY valor DESC LIMIT 8"
)
PLANT = """
import statistics
import pandas as pd
statistics.SEEN = []
real_fmean = statistics.fmean
def spy(values):
    values = list(values)
    statistics.SEEN.append(values)
    return real_fmean(values)
statistics.fmean = spy
real_groupby = pd.DataFrame.groupby
def spy_groupby(frame, *args, **kwargs):
    statistics.SEEN.append(frame.to_dict('records'))
    return real_groupby(frame, *args, **kwargs)
pd.DataFrame.groupby = spy_groupby
df.to_csv('left-behind.csv')
result = {'count': float(len(df))}
"""
VICTIM = "result = {'total': float(df.groupby('nome')['valor'].sum().sum())}"
COLLECT = """
import statistics
import pandas as pd
try:
    seen = statistics.SEEN
except AttributeError:
    seen = []
try:
    left = pd.read_csv('left-behind.csv').to_dict('records')
except Exception:
    left = []
if seen or left:
    result = {'trend': {'measure': str(seen) + str(left), 'time': 'nome',
              'last': {'period': str(seen), 'value': 1.0}}}
else:
    result = {'count': 0.0}
"""


def _turn(question: str, code: str) -> dict[str, dict]:
    return {
        "augmenter": {"question": question, "is_data_question": True, "missing": [], "lang": "pt"},
        "router": {"route": "ANALYTICS", "wants_knowledge": False, "reason": "test"},
        "sql_writer": {
            "thought_process": "scripted",
            "sql": OVERDUE,
            "confidence": 0.9,
            "analysis_code": code,
        },
        "answer": "Aqui está.",
    }


@pytest.fixture(scope="module")
def code_mode_server(
    data_dir: Path, demo_db, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    """Code mode on, one analysis worker (so the attacker need not plant twice), and a
    scripted SQL writer standing in for a hosted model that writes the code the asker
    dictates: 101 plants a spy, 102 asks, 101 collects."""
    turns = [
        _turn("valor vencido por cliente", PLANT),
        _turn("valor vencido por cliente", VICTIM),
        _turn("valor vencido por cliente", COLLECT),
    ]
    script = tmp_path_factory.mktemp("side-channels") / "script.yaml"
    roles = {role: [turn[role] for turn in turns] for role in turns[0]}
    script.write_text(yaml.safe_dump({"roles": roles}), encoding="utf-8")
    running = start_server(
        data_dir,
        ORQUESTRA_MODELS__DEFAULT=f"scripted:{script}",
        ORQUESTRA_ANALYSIS_CODE_MODE="true",
        ORQUESTRA_ANALYSIS_WORKERS="1",
    )
    yield running
    running.stop()


def _result(events: list[dict]) -> dict:
    return next(e["data"] for e in events if e["event"] == "result")


def _analyzer_summary(events: list[dict]) -> str:
    ends = [
        e["data"]
        for e in events
        if e["event"] == "node" and e["data"]["node"] == "analyzer" and e["data"]["status"] == "end"
    ]
    assert ends, [e["event"] for e in events]
    return ends[-1].get("summary") or ""


def test_a_spy_in_the_analysis_workers_sees_nothing_of_another_tenant(
    code_mode_server: Server,
) -> None:
    url = code_mode_server.url
    planted = stream(url, "valor vencido por cliente", bearer=token("101", "mallory"))
    assert "figures" in _analyzer_summary(planted)  # the planting job ran, in code mode
    victim = stream(url, "valor vencido por cliente", bearer=token("102", "bruno"))
    victims_rows = _result(victim)["rows"]
    assert victims_rows and "figures" in _analyzer_summary(victim)
    collected = stream(url, "valor vencido por cliente", bearer=token("101", "mallory"))
    # The collecting code found no spy and no file: its plain figures were accepted.
    assert "figures" in _analyzer_summary(collected)
    own = {json.dumps(v) for row in _result(planted)["rows"] for v in row}
    said = json.dumps([e["data"] for e in collected], ensure_ascii=False)
    leaked = [
        value
        for row in victims_rows
        for value in row
        if json.dumps(value) not in own and json.dumps(value, ensure_ascii=False)[1:-1] in said
    ]
    assert not leaked
    cards = _result(collected).get("cards") or []
    assert all(
        card["label"] in _result(collected)["columns"] or card["label"].startswith("total ")
        for card in cards
    )


def _stage_ms(events: list[dict], node: str) -> float:
    return next(
        e["data"]["ms"]
        for e in events
        if e["event"] == "node" and e["data"]["node"] == node and e["data"]["status"] == "end"
    )


def test_whether_another_tenant_asked_the_same_question_does_not_show(server: Server) -> None:
    """Before, a question another tenant had just asked was a cache hit for the asker's own
    `select_sources` (0.6 ms against 25-37 ms: 40 of 40 trials told apart). Now the query
    vectors are kept per asker: the asker's time is that of a question nobody asked.
    (The margin is wide on purpose: it tells a 40-fold gap from none, not small changes.)"""
    asked_by_other, fresh = [], []
    for trial in range(6):
        shared = f"quantas notas bloqueadas com valor acima de {1000 + trial * 7} reais"
        stream(server.url, shared, bearer=token("102", "bruno"))
        asked_by_other.append(
            _stage_ms(stream(server.url, shared, bearer=token("101", "mallory")), "select_sources")
        )
        own = f"quantas notas bloqueadas com valor acima de {5000 + trial * 7} reais"
        fresh.append(
            _stage_ms(stream(server.url, own, bearer=token("101", "mallory")), "select_sources")
        )
    ratio = statistics.median(asked_by_other) / statistics.median(fresh)
    assert ratio > 0.3, (asked_by_other, fresh)
