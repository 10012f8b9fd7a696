"""`catalog check --data`: each join the catalog declares, tried on the rows.

A join is written once and used by every question that crosses it, so a wrong one makes
every such answer wrong without an error. This measures each `joins:` entry as `init`
measures the joins it proposes (`ddl_catalog.join_evidence`): the share of the child's values
found in the parent and the parent's uniqueness (a key the database enforces, else the rows).
A join the data contradicts (fewer than `MIN_OVERLAP` of its values found, or a parent whose
values repeat, so a child row meets several) is a failure; orphans (fewer than
`MIN_CONTAINMENT` found: an inner join drops those rows), too few values, or a measurement
that timed out, is reported and is not. Read-only, bounded like the import.
"""

from __future__ import annotations

from dataclasses import dataclass

import asyncpg

from orquestra.ddl_catalog.join_evidence import (
    Evidence,
    Side,
    declared_uniqueness,
    measure,
    unique_keys,
)
from orquestra.ddl_catalog.model import Catalog, Location

__all__ = ["JoinFinding", "check_join_data"]


@dataclass(frozen=True)
class JoinFinding:
    """One declared join and what its rows say."""

    where: Location
    evidence: Evidence

    @property
    def contradicted(self) -> bool:
        return self.evidence.verdict == "contradicted"

    def __str__(self) -> str:
        verdict = self.evidence.verdict
        return f"{self.where}: join {verdict.upper()}: {self.evidence.describe()}"


async def check_join_data(conn: asyncpg.Connection, catalog: Catalog) -> list[JoinFinding]:
    """A finding per join of every catalog table, in catalog order."""
    schemas = sorted({t.db_schema for t in catalog.tables.values()})
    unique = {schema: await unique_keys(conn, schema) for schema in schemas}
    findings = []
    for table in catalog.tables.values():
        for join in table.meta.joins:
            target = catalog.table(join.to)
            child = Side(table.db_schema, table.name, tuple(join.on))
            parent = Side(target.db_schema, target.name, tuple(join.on.values()))
            declared = declared_uniqueness(
                unique[target.db_schema].get(target.name, {}), parent.columns
            )
            findings.append(JoinFinding(table.where, await measure(conn, child, parent, declared)))
    return findings
