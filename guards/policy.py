"""Which tables the guard allows and how each is scoped to a tenant.

A policy comes from the DDL catalog (the default) or from a YAML file of the form
`tables: {<name>: {tenant_column: <col>} | {shared: true}}` (optionally `schema: <s>` per
table, default `public`). A table that is not listed is rejected.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from ddl_catalog import Catalog
from guards.errors import GuardRejection


@dataclass(frozen=True)
class TablePolicy:
    """One allowed table: where it lives and which column scopes it to a tenant."""

    name: str
    schema: str
    tenant_column: str | None
    """`None` for a shared table every tenant may read."""


@dataclass(frozen=True)
class GuardPolicy:
    """The allowlist: table name → policy."""

    tables: dict[str, TablePolicy]

    @classmethod
    def from_catalog(cls, catalog: Catalog) -> GuardPolicy:
        return cls(
            {
                t.name: TablePolicy(t.name, t.db_schema, t.tenant_column)
                for t in catalog.tables.values()
            }
        )

    @classmethod
    def from_file(cls, path: Path) -> GuardPolicy:
        try:
            raw = _PolicyFile.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
        except (OSError, yaml.YAMLError, ValidationError) as exc:
            raise GuardRejection("GUARD_POLICY_INVALID", f"policy file {path}: {exc}") from None
        return cls(
            {
                name: TablePolicy(name, entry.schema_name, entry.tenant_column)
                for name, entry in raw.tables.items()
            }
        )

    def lookup(self, schema: str | None, name: str) -> TablePolicy | None:
        """The policy of `schema.name` (or `name` when unqualified), if allowed."""
        table = self.tables.get(name)
        if table is None or (schema is not None and schema != table.schema):
            return None
        return table


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    tenant_column: str | None = None
    shared: bool = False
    schema_name: str = "public"

    @model_validator(mode="before")
    @classmethod
    def _rename_schema(cls, data: object) -> object:
        if isinstance(data, dict) and "schema" in data:
            data = {**data, "schema_name": data["schema"]}
            del data["schema"]
        return data

    @model_validator(mode="after")
    def _one_tenancy(self) -> _Entry:
        if bool(self.tenant_column) == self.shared:
            raise ValueError("each table needs exactly one of tenant_column or shared: true")
        return self


class _PolicyFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tables: dict[str, _Entry]
