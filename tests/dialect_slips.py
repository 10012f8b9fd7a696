"""The corpus of dialect slips (tests/integration/guards/dialect_slips.yaml), loaded.

Each slip is SQL a hosted model wrote in T-SQL or MySQL for a question over the logistics
demo, with the PostgreSQL (`gold`) that answers the same question for `TENANT`. The unit
tests normalise every slip, the integration tests compare its rows with the gold's, and a
graph-level test can script a model that writes `sql` and expect the gold's rows with no
fixer call.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

CORPUS = Path(__file__).parent / "integration" / "guards" / "dialect_slips.yaml"
TENANT = "101"
"""The tenant the golds were written for (any tenant works: the guard scopes both)."""
DIALECTS = ("tsql", "mysql")
"""The default `model_sql_dialects`, which every slip is repaired with."""


@dataclass(frozen=True)
class DialectSlip:
    """One slip: the question, the SQL in another dialect, and the PostgreSQL answer."""

    id: str
    dialect: str
    """What the slip is written in."""
    question: str
    sql: str
    """The slip, as the model wrote it."""
    gold: str
    """The correct PostgreSQL for the same question."""
    clock: bool = False
    """Both read the wall clock (now(), CURRENT_DATE): rows depend on when they run."""


def load_slips(path: Path = CORPUS) -> list[DialectSlip]:
    """Every slip of the corpus, in file order; ids are unique."""
    slips = [DialectSlip(**entry) for entry in yaml.safe_load(path.read_text(encoding="utf-8"))]
    ids = [slip.id for slip in slips]
    assert len(set(ids)) == len(ids), "duplicate slip ids"
    return slips
