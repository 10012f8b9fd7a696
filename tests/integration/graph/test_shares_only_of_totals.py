"""A share of the total is only said of a real total, through the real graph offline.

Probing the demo found "Rápido Paulista responde por 17,30% do total" under average delays
per carrier, and a "total" card summing averages: the analysis took any number column as
parts of a whole. Now only a measure the query sums or counts has shares and a total."""

from __future__ import annotations

from tests.integration.graph.conftest import Harness, ask_offline

QUESTIONS = {
    "logistics": {
        "average": "ticket médio por canal em 2026",
        "ratio": "frete por kg por transportadora em 2026",
        "sum": "faturamento por canal em 2026",
        "listing": "pedidos cancelados em junho de 2026",
    },
    "clinics": {
        "average": "tempo de laudo por modalidade em 2026",
        "ratio": "taxa de absenteísmo por convênio em 2026",
        "sum": "receita por modalidade em 2026",
        "listing": "exames cancelados em 2026",
    },
}
SHARE = ("responde por", "accounts for")
TREND = ("subiu", "caiu", "rose", "fell")


async def test_shares_and_total_cards_only_for_sums_and_counts(offline: Harness) -> None:
    asked = QUESTIONS[offline.deployment.name]
    for kind, question in asked.items():
        if kind == "listing":
            continue
        turn = await ask_offline(offline, question, kind)
        result = turn.result
        assert len(result["rows"]) > 1, (question, result.get("sql"))
        said = any(word in result["answer"] for word in SHARE)
        assert said is (kind == "sum"), (question, result["answer"][:120])
        totals = [c for c in result.get("cards") or [] if c.get("value") is not None]
        assert bool(totals) is (kind == "sum"), (question, result.get("cards"))


async def test_rows_listed_one_by_one_have_no_trend(offline: Harness) -> None:
    """ "Em 27/06/2026 18:00, valor subiu 571,70%" compared two cancelled exams."""
    question = QUESTIONS[offline.deployment.name]["listing"]
    result = (await ask_offline(offline, question, "listing")).result
    assert len(result["rows"]) > 1 and "GROUP BY" not in result["sql"], result["sql"]
    assert not any(word in result["answer"] for word in TREND), result["answer"][:160]
