"""Which tables the guard allows and how each is scoped to a tenant.

A policy comes from the DDL catalog (the default) or from a YAML file of the form
`tables: {<name>: {tenant_column: <col>} | {tenant_via: {parent: <table>, columns:
{<col>: <parent col>, ...}}} | {shared: true}}` (optionally `schema: <s>` per table, default
`public`). A table that is not listed is rejected.

A `tenant_via` table belongs to the tenant of its parent row; chains of parents end at a
table with a tenant column. A file whose chains do not (unknown or shared parent, a cycle)
is refused as a whole.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from orquestra.ddl_catalog import Catalog
from orquestra.guards.errors import GuardRejection


@dataclass(frozen=True)
class ParentLink:
    """How a row finds its parent: child column → parent column, all of them equal."""

    parent: str
    columns: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class TablePolicy:
    """One allowed table: where it lives and how it is scoped to a tenant."""

    name: str
    schema: str
    tenant_column: str | None
    """The column holding the tenant; `None` for shared and `via` tables."""
    via: ParentLink | None = None
    """The parent whose tenant a row shares; `None` for shared and tenant-column tables."""

    @property
    def scoped(self) -> bool:
        """Whether tenants see only their own rows (a tenant column or a parent)."""
        return self.tenant_column is not None or self.via is not None


@dataclass(frozen=True)
class GuardPolicy:
    """The allowlist: table name → policy."""

    tables: dict[str, TablePolicy]
    types: frozenset[str] = frozenset()
    """The schema's own enum and domain types a value may be cast to, as `schema.name` (and
    as bare `name` for those in `public`)."""

    @classmethod
    def from_catalog(cls, catalog: Catalog) -> GuardPolicy:
        return cls(
            {
                t.name: TablePolicy(
                    t.name,
                    t.db_schema,
                    t.tenant_column,
                    _link(t.tenant_via.parent, t.tenant_via.columns) if t.tenant_via else None,
                )
                for t in catalog.tables.values()
            },
            _catalog_types(catalog),
        )

    @classmethod
    def from_file(cls, path: Path) -> GuardPolicy:
        try:
            raw = _PolicyFile.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
        except (OSError, yaml.YAMLError, ValidationError) as exc:
            raise GuardRejection("GUARD_POLICY_INVALID", f"policy file {path}: {exc}") from None
        policy = cls(
            {
                name: TablePolicy(
                    name,
                    entry.schema_name,
                    entry.tenant_column,
                    _link(entry.tenant_via.parent, entry.tenant_via.columns)
                    if entry.tenant_via
                    else None,
                )
                for name, entry in raw.tables.items()
            },
            _type_names(name.rpartition(".")[::2] for name in raw.types),
        )
        for name in policy.tables:
            try:
                policy.chain(name)
            except ValueError as exc:
                raise GuardRejection("GUARD_POLICY_INVALID", f"policy file {path}: {exc}") from None
        return policy

    def chain(self, name: str) -> tuple[TablePolicy, ...]:
        """`name` and its parents up to the table holding the tenant column (empty when
        shared). `ValueError` when the chain reaches an unknown or shared table or loops."""
        chain = [self.tables[name]]
        while chain[-1].via is not None:
            parent = self.tables.get(chain[-1].via.parent)
            if parent is None or not parent.scoped:
                what = "unknown" if parent is None else "shared"
                raise ValueError(
                    f"{chain[-1].name} is scoped through {what} table {chain[-1].via.parent}"
                )
            if parent in chain:
                names = " → ".join(t.name for t in (*chain, parent))
                raise ValueError(f"tenant_via goes round in a circle: {names}")
            chain.append(parent)
        return tuple(chain) if chain[0].scoped else ()

    def lookup(self, schema: str | None, name: str | None) -> TablePolicy | None:
        """The policy of `schema.name` (or `name` when unqualified), if allowed; a reference
        without a name (`None`, as pglast types it) is never allowed."""
        table = self.tables.get(name) if name is not None else None
        if table is None or (schema is not None and schema != table.schema):
            return None
        return table


def _catalog_types(catalog: Catalog) -> frozenset[str]:
    types = getattr(catalog, "types", {}).values()
    return _type_names((t.schema, t.name) for t in types if t.kind in ("enum", "domain"))


def _type_names(names: Iterable[tuple[str, str]]) -> frozenset[str]:
    """Each `(schema, name)` as `schema.name` (no schema means `public`), and as bare `name`
    when in `public`: the only schema a bare name is sure to reach on the agent's path."""
    qualified = {(schema or "public", name) for schema, name in names}
    return frozenset(
        {f"{schema}.{name}" for schema, name in qualified}
        | {name for schema, name in qualified if schema == "public"}
    )


def _link(parent: str, columns: dict[str, str]) -> ParentLink:
    return ParentLink(parent, tuple(columns.items()))


class _Via(BaseModel):
    """Tenancy through a parent: a row belongs to the tenant of its `parent` row."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    parent: str
    """The parent table."""
    columns: dict[str, str] = Field(min_length=1)
    """Child column → parent column; all of them must match."""


class _Entry(BaseModel):
    """One table the guard may read, and how its rows belong to a tenant: exactly one of
    `tenant_column`, `tenant_via` or `shared: true`."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, use_attribute_docstrings=True)

    tenant_column: str | None = None
    """The table carries the tenant in this column."""
    tenant_via: _Via | None = None
    """The table's rows belong to the tenant of their parent row (chains allowed)."""
    shared: bool = False
    """A reference table every tenant may read."""
    shared_because: str | None = None
    """Why a shared table that holds a foreign key into tenant data is still shared."""
    schema_name: str = Field("public", alias="schema")
    """The table's schema."""

    @model_validator(mode="after")
    def _one_tenancy(self) -> _Entry:
        if sum([bool(self.tenant_column), self.tenant_via is not None, self.shared]) != 1:
            raise ValueError(
                "each table needs exactly one of tenant_column, tenant_via or shared: true"
            )
        return self


class _PolicyFile(BaseModel):
    """A guard policy file: the tables the guard may read, and the schema's own types."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    tables: dict[str, _Entry]
    """Each table by name; a table not listed is rejected."""
    types: list[str] = []
    """The schema's own enum and domain types, `schema.name` (or `name` in `public`)."""
