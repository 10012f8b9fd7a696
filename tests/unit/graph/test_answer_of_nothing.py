"""A sum over no rows is null: the offline writer says nothing matched, not "Faturamento: —".

Probing the demo: "revenue in 2019" (no invoices that year) was answered "Faturamento: —."."""

from __future__ import annotations

import pytest

from orquestra.offline.answers import answer


@pytest.mark.parametrize(
    ("lang", "said"),
    [("pt", "Nenhum registro atende"), ("en", "No records match")],
)
def test_a_row_of_nulls_is_said_to_match_nothing(lang: str, said: str) -> None:
    text = answer({"result": '1 of 1 rows\n{"total_vendido": null, "media": null}'}, lang)
    assert text.startswith(said) and "total vendido, media" in text
    assert "—" not in text


def test_a_row_with_one_value_is_still_a_figure() -> None:
    text = answer({"result": '1 of 1 rows\n{"entregue_em": null, "status": "EM_ROTA"}'}, "pt")
    assert "EM_ROTA" in text and "Nenhum registro" not in text
