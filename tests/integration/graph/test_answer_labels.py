"""The offline answer calls columns by their labels in the question's language.

Probing the demo: "where is invoice 40908?" was answered "Num nota: 40908; Status: ENTREGUE;
Cidade: São Paulo; Uf: SP." and "how many returns last month?" with "Devolucao: 4." — the
table and the cards were in English, the answer text was the columns' raw names. The writer
now gets a "Labels" section (the deployment's words in the turn's language, the question's
first), as the hosted model does."""

from __future__ import annotations

from orquestra.graph.hints import ModelHints, ShownRows
from orquestra.nodes.display import readable_label
from orquestra.nodes.streamer import labels_text, units_text
from orquestra.offline.answers import answer
from tests.integration.graph.conftest import Harness, ask_offline

QUESTIONS = {
    "logistics": ("where is invoice 40908?", "revenue by month in 2026"),
    "clinics": ("what is the status of report 5012?", "revenue by month in 2026"),
}


async def test_english_answers_use_english_labels(offline: Harness) -> None:
    catalog = offline.deployment.catalog
    one_row, series = QUESTIONS[offline.deployment.name]
    result = (await ask_offline(offline, one_row, "row")).result
    text = result["answer"]
    shown = [c for c in result["columns"] if readable_label(c, catalog, "en", one_row) != c]
    assert shown, result["columns"]
    for column in shown:  # "Invoice: 40908", not "Num nota: 40908"
        label = readable_label(column, catalog, "en", one_row)
        assert f"{label}:" in text, (column, label, text[:160])
        raw = column.replace("_", " ").capitalize()
        assert raw == label or f"{raw}:" not in text, (column, text[:160])
    result = (await ask_offline(offline, series, "series")).result
    measure = result["columns"][-1]  # the trend sentence names the measure as asked
    label = readable_label(measure, catalog, "en", series).lower()
    assert f", {label} " in result["answer"] and label != measure, result["answer"][:160]
    # the trend's period as the English table writes it, not "In 06/2026"
    assert result["answer"].startswith("In Jun 2026, "), result["answer"][:160]


def test_the_writer_falls_back_to_the_column_name_without_labels() -> None:
    rows = ShownRows(({"num_nota": 40908, "status": "ENTREGUE"},), 1)
    assert answer(ModelHints(rows=rows), "en").startswith("Num nota: 40908")
    labelled = answer(ModelHints(rows=rows, labels={"num_nota": "Invoice"}), "en")
    assert labelled.startswith("Invoice: 40908; Status: ENTREGUE")


async def test_the_writer_gets_the_tables_labels_and_units(offline: Harness) -> None:
    """ "Mes: Dec 2025" in an English answer: the writer now reads the presenter's labels
    and units (`display`), so a period column is "Month" and the answer says what the table
    heads, through the real graph."""
    turn = await ask_offline(offline, "revenue by month in 2026", "periods")
    state = turn.result
    columns = {c["name"]: c for c in state["display"]["columns"]}
    assert columns["month"]["label"] == "Month"  # an English question's column is English
    assert "month: Month" in labels_text(state)
    money = [name for name, c in columns.items() if c.get("unit")]
    assert money and all(f"{name}: " in units_text(state) for name in money)
    assert "Mes:" not in state["answer"]
