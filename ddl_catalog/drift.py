"""One difference between the catalog and the database, pointing at the line to fix."""

from __future__ import annotations

from dataclasses import dataclass

from orquestra.ddl_catalog.model import Location


@dataclass(frozen=True)
class Drift:
    """One difference between the catalog and the database."""

    code: str
    where: Location
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.code}: {self.message}"
