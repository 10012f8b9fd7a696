"""A sum over no rows is null: the offline writer says nothing matched, not "Faturamento: —".

Probing the demo: "revenue in 2019" (no invoices that year) was answered "Faturamento: —."."""

from __future__ import annotations

import pytest

from orquestra.graph.hints import ModelHints, ShownRows
from orquestra.offline.answers import answer


@pytest.mark.parametrize(
    ("lang", "said"),
    [("pt", "Nenhum registro atende"), ("en", "No records match")],
)
def test_a_row_of_nulls_is_said_to_match_nothing(lang: str, said: str) -> None:
    rows = ShownRows(({"total_vendido": None, "media": None},), 1)
    text = answer(ModelHints(rows=rows), lang)
    assert text.startswith(said) and "total vendido, media" in text
    assert "—" not in text


def test_a_row_with_one_value_is_still_a_figure() -> None:
    rows = ShownRows(({"entregue_em": None, "status": "EM_ROTA"},), 1)
    text = answer(ModelHints(rows=rows), "pt")
    assert "EM_ROTA" in text and "Nenhum registro" not in text
