"""The `result` event carries how to write it (`display`) and which model answered (`model`),
so a client needs nothing but the result to show an answer; on both deployments."""

from __future__ import annotations

from tests.integration.graph.conftest import Harness
from tests.integration.graph.scripts import data_turn


async def test_a_monthly_result_says_how_to_write_it_and_who_answered(harness: Harness) -> None:
    sql = harness.sql
    question = f"{sql.measure} por mês em 2026"
    harness.use(data_turn(question, sql.monthly))
    turn = await harness.ask(question)
    result = turn.result
    display = result["display"]
    assert [c["name"] for c in display["columns"]] == result["columns"]
    assert {c["kind"] for c in display["columns"]} >= {"period"}
    assert display["lang"] == "pt" and display["timezone"] and display["locale"]
    assert len(display["cards"]) == len(result["cards"])
    assert result["model"] == "scripted"
    node_ends = [e for e in turn.of("node") if e["status"] == "end"]
    assert not any("display" in e or "model" in e for e in node_ends)  # said once, in result
