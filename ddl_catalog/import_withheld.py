"""Schema text `catalog import` and `init` leave out of the catalog: what looks personal.

What a person wrote into the schema reaches the catalog, and so every tenant's prompt, as
text: table and column comments (the descriptions), index definitions (a partial index's
`WHERE`, an expression's literals), generated-column expressions and domain `CHECK`s. When
`personal_data` finds something in one of them, the whole text is left out, not only the
value: the words around an e-mail address (a name, a role) are often personal too, and what
the patterns miss would stay in every prompt. Each text left out is listed for the owner to
decide, with the values masked; the database keeps the original, where its owner can read it.

Leaving an index out costs the catalog nothing it relies on: a partial index makes nothing
unique table-wide, and an expression declares no key. A generated column stays, as a plain
column of its type; a domain keeps its other checks.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from orquestra.ddl_catalog.personal_data import find_personal_data, masked

__all__ = ["Screened", "Withheld", "withhold_personal_data"]


@dataclass(frozen=True)
class Withheld:
    """One text of the schema not copied into the catalog."""

    table: str | None
    """The table it belongs to; None for a type's (a domain's CHECK)."""
    part: str
    """Where in it: `table comment`, `column email comment`, `index x_idx predicate`, …"""
    kinds: tuple[str, ...]
    masked: str
    """The text with each personal value replaced by its kind."""

    def describe(self) -> str:
        """`customer: column contact comment — e-mail address: 'Write to <e-mail address>'`."""
        place = f"{self.table}: {self.part}" if self.table else self.part
        return f"{place} — {', '.join(self.kinds)}: {' '.join(self.masked.split())!r}"


@dataclass
class Screened:
    """The rows `catalog import` read, without the personal texts, and what was left out."""

    relations: list[dict[str, Any]]
    columns: list[dict[str, Any]]
    types: list[dict[str, Any]]
    indexes: list[dict[str, Any]]
    withheld: list[Withheld] = field(default_factory=list)


def withhold_personal_data(
    relations: Iterable[Any], columns: Iterable[Any], types: Iterable[Any], indexes: Iterable[Any]
) -> Screened:
    """The `pg_catalog` rows of an import, each personal text left out and listed."""
    screened = Screened([], [], [], [])

    def keeps(text: str | None, table: str | None, part: str) -> bool:
        found = find_personal_data(text or "")
        if found:
            kinds = tuple(dict.fromkeys(f.kind for f in found))
            screened.withheld.append(Withheld(table, part, kinds, masked(text or "", found)))
        return not found

    for relation in map(dict, relations):
        if not keeps(relation["comment"], relation["table_name"], "table comment"):
            relation["comment"] = None
        screened.relations.append(relation)
    for column in map(dict, columns):
        name, where = column["column_name"], column["table_name"]
        if not keeps(column["comment"], where, f"column {name} comment"):
            column["comment"] = None
        if not keeps(column["generated"], where, f"column {name} generated expression"):
            column["generated"] = None
        screened.columns.append(column)
    for row in map(dict, types):
        checks = row["checks"] or ()
        row["checks"] = [c for c in checks if keeps(c, None, f"domain {row['name']} CHECK")]
        screened.types.append(row)
    for index in map(dict, indexes):
        if keeps(index["ddl"], index["table_name"], f"index {index['index_name']} {_part(index)}"):
            screened.indexes.append(index)
    return screened


def _part(index: dict[str, Any]) -> str:
    """`predicate` when every personal value is in the index's `WHERE`, else `definition`."""
    where = index["ddl"].find(" WHERE ")
    found = find_personal_data(index["ddl"])
    return "predicate" if where >= 0 and all(f.start > where for f in found) else "definition"
