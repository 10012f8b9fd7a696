"""Native judge `shape`: a data answer's result has the shape its question asks for.

Deterministic (no model call), so it runs on every data answer. The question's shape is read
from its words, given per language in the judge's YAML entry (`options`); the result's shape
from its columns and rows:

- names asked ("which customers", "quais clientes", "who"): the result must hold something
  other than figures — a result of numbers only ("Quantidade: 5" for "which title") answers
  another question;
- a figure for each of something ("for each genre", "de cada categoria"): not one number;
- one figure (a question that opens with "how many orders in 1997?", "quantos clientes no
  Brasil?", with no grouping and no names asked): not a list of rows.

>>> import asyncio
>>> from orquestra.guards.rails.config import Entry
>>> judge = AnswerShape(Entry(name="shape", options=WORDS), None)
>>> case = JudgeCase("which title has the most tracks?", "Count: 5.", "answer", columns=["count"],
...                  rows=[[5]], row_count=1)
>>> asyncio.run(judge.evaluate(case)).passed
False
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from orquestra.core.texts import say
from orquestra.ddl_catalog.text import fold
from orquestra.guards.rails.config import Entry
from orquestra.guards.rails.contracts import JudgeCase, JudgeResult

WORDS: dict[str, list[str]] = {
    "names_asked": ["which", "who", "quais", "quem"],
    "each_asked": ["each", "every", "cada"],
    "one_asked": ["how many", "how much", "quantos", "quantas", "quanto", "quanta"],
    "grouping": ["by", "per", "por", "each", "every", "cada"],
    "period_columns": [
        *("year", "month", "quarter", "week", "day", "date"),
        *("ano", "mes", "trimestre", "semana", "dia", "data"),
    ],
}
"""The words the judge reads a question's shape by when its entry gives none."""


def _said(words: list[str], *, first: bool = False) -> re.Pattern[str]:
    """Any of `words` anywhere in a folded question; `first`: as its opening words."""
    spelled = "|".join(re.escape(fold(w)) for w in sorted(words, key=len, reverse=True))
    if not spelled:
        return re.compile(r"(?!)")
    return re.compile(rf"^\W*(?:{spelled})\b" if first else rf"\b(?:{spelled})\b")


def _figure(value: Any) -> bool:
    return isinstance(value, int | float | Decimal) and not isinstance(value, bool)


class AnswerShape:
    """The result has the shape the question asks for (see the module's docstring)."""

    def __init__(self, entry: Entry, toolkit: object) -> None:
        del toolkit
        said = {key: list(entry.setting(key, words)) for key, words in WORDS.items()}
        self.names = _said(said["names_asked"])
        self.each = _said(said["each_asked"])
        # Only a question that opens with it asks one figure: in "orders paid late, and how
        # many days" the figure is asked of each row listed.
        self.one = _said(said["one_asked"], first=True)
        self.grouping = _said(said["grouping"])
        self.periods = frozenset(fold(w) for w in said["period_columns"])

    async def evaluate(self, case: JudgeCase) -> JudgeResult:
        if case.phase != "answer" or not case.columns or not case.rows:
            return JudgeResult(passed=True)
        text = fold(case.question)
        shown = [row for row in case.rows if isinstance(row, list | tuple)]
        # A period is a name too: "which year had the most orders" answers with its year.
        periods = any(set(fold(c).replace("_", " ").split()) & self.periods for c in case.columns)
        figures = not periods and all(all(_figure(v) or v is None for v in row) for row in shown)
        rows = case.row_count if case.row_count is not None else len(shown)
        if self.names.search(text) and figures:
            return self._failed("shape.names", case.lang)
        if self.each.search(text) and rows == 1 and figures and len(case.columns) == 1:
            return self._failed("shape.each", case.lang)
        asks_one = self.one.search(text) and not self.grouping.search(text)
        if asks_one and not self.names.search(text) and rows > 1:
            return self._failed("shape.one", case.lang)
        return JudgeResult(passed=True, score=1.0)

    @staticmethod
    def _failed(why: str, lang: str) -> JudgeResult:
        """The verdict, its feedback in the question's language: the person reads it when
        the judge refuses (`refuses: true`), the writer when it asks for a rewrite."""
        return JudgeResult(passed=False, score=0.0, feedback=say(why, lang))
