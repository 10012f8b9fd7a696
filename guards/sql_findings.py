"""What the catalog check (`guards/sql_check.py`) finds in a draft: problems with what would
be right, value corrections, and the checked statement; data the fixer's prompt and the
in-process models read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ProblemKind = Literal["unknown_table", "unknown_column", "ambiguous_column", "unknown_value"]
CODE = "SQL_CHECK"
"""The code a statement the check stopped carries in the fixer's error text."""


@dataclass(frozen=True)
class Problem:
    """One mistake the database would refuse (or answer emptily), with what would be right."""

    kind: ProblemKind
    name: str
    """The table, column or value as written."""
    table: str | None = None
    """The table (or alias) the column was read from, or the enumerated column's table."""
    column: str | None = None
    """For an unknown value: the enumerated column compared with it."""
    suggestions: tuple[str, ...] = ()
    """The nearest valid names or values, best first (for a value: every valid one; for an
    ambiguous column: each qualified way to write it)."""
    elsewhere: tuple[str, ...] = ()
    """For an unknown column: catalog tables that do have it (a missing join?); for an
    ambiguous one: the table behind each of `suggestions`."""
    joins: tuple[str, ...] = ()
    """For an unknown column found elsewhere: the catalog's join to each such table, as
    SQL (`JOIN inventory ON inventory.film_id = film.film_id`)."""

    def message(self) -> str:
        """One line for the fixer, in the database's own terms."""
        where = f" in {self.table}" if self.table else ""
        if self.kind == "unknown_table":
            text = f'table "{self.name}" does not exist'
        elif self.kind == "ambiguous_column":
            pairs = zip(self.suggestions, self.elsewhere, strict=True)
            choices = " or ".join(f"{written} ({table})" for written, table in pairs)
            return f'column "{self.name}" is ambiguous: write {choices}'
        elif self.kind == "unknown_column":
            text = f'column "{self.name}" does not exist{where}'
        else:
            valid = ", ".join(f"'{v}'" for v in self.suggestions)
            return f"{self.table}.{self.column} has no value '{self.name}'; valid values: {valid}"
        if self.suggestions:
            text += "; did you mean " + " or ".join(f'"{s}"' for s in self.suggestions[:3]) + "?"
        if self.elsewhere:
            text += f" ({self.name} is a column of {', '.join(self.elsewhere)})"
        if self.joins:
            text += "; to use it, " + " or ".join(self.joins)
        return text

    def as_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "name": self.name,
            "table": self.table,
            "column": self.column,
            "suggestions": list(self.suggestions),
            "elsewhere": list(self.elsewhere),
            "joins": list(self.joins),
        }


@dataclass(frozen=True)
class Correction:
    """A value whose case was corrected to the enumerated one it meant."""

    column: str
    """`table.column`."""
    found: str
    value: str

    def as_dict(self) -> dict[str, str]:
        return {"column": self.column, "found": self.found, "value": self.value}


@dataclass(frozen=True)
class Checked:
    """The statement after the check: corrected SQL, what was corrected, what is wrong."""

    sql: str
    corrections: tuple[Correction, ...] = ()
    problems: tuple[Problem, ...] = ()

    def feedback(self) -> str:
        """The error text the fixer gets: the code, then each problem."""
        return f"{CODE}: " + "; ".join(problem.message() for problem in self.problems)
