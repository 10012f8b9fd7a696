"""The rows the answer's model reads are written as the table writes them: times in the
deployment's zone, and a column of periods as its periods read — never `01/04/2026, 03:00`."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from orquestra.nodes.streamer import preview

QUARTERS = "SELECT date_trunc('quarter', d) AS q, sum(v) AS total FROM t GROUP BY 1 ORDER BY 1"


def rows_of(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()[1:]]


def test_periods_read_as_periods_in_the_turns_language() -> None:
    result = {
        "columns": ["q", "total"],
        "rows": [
            [datetime(2026, 1, 1, 3, tzinfo=UTC), 10],
            [datetime(2026, 4, 1, 3, tzinfo=UTC), 12],
        ],
        "row_count": 2,
        "truncated": False,
    }
    shown = rows_of(preview(result, "America/Sao_Paulo", QUARTERS, "pt"))
    assert [row["q"] for row in shown] == ["1º tri 2026", "2º tri 2026"]
    english = rows_of(preview(result, "America/Sao_Paulo", QUARTERS, "en"))
    assert [row["q"] for row in english] == ["Q1 2026", "Q2 2026"]


def test_other_times_are_local_and_keep_their_time() -> None:
    moment = datetime(2026, 6, 30, 20, 15, tzinfo=UTC)
    result = {"columns": ["quando"], "rows": [[moment]], "row_count": 1, "truncated": False}
    assert rows_of(preview(result, "America/Sao_Paulo"))[0]["quando"] == "2026-06-30 17:15:00"
