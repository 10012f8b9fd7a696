"""Typed shapes of the DDL catalog: what a system file holds, and the resolved catalog.

A system file (`systems/<system>.yaml`) holds real DDL plus metadata keyed by table and
column names. The loader parses both and resolves them into `Table` and `Column` objects
that remember the file and line they came from, so every error and drift can point there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Synonyms(_Strict):
    """Words people use for a table or column, in Portuguese and English."""

    pt: list[str] = []
    en: list[str] = []

    def all(self) -> list[str]:
        """Every synonym, Portuguese first."""
        return [*self.pt, *self.en]


class ColumnMeta(_Strict):
    """What the database cannot say about a column."""

    description: str = ""
    description_en: str = ""
    synonyms: Synonyms = Synonyms()
    values: dict[str, str] = {}
    """Enumerated values and their meanings."""
    value_synonyms: dict[str, list[str]] = {}
    """Other words people use for an enumerated value ("cancelled" for CANCELADA)."""

    @model_validator(mode="after")
    def _synonyms_name_values(self) -> ColumnMeta:
        unknown = set(self.value_synonyms) - set(self.values)
        if unknown:
            raise ValueError(f"value_synonyms name unknown values: {sorted(unknown)}")
        return self

    unit: str | None = None
    example: str | None = None


class JoinMeta(_Strict):
    """A join key from this table to another catalog table (possibly in another system)."""

    to: str
    on: dict[str, str] = Field(min_length=1)
    """Local column → column of `to`."""
    description: str = ""


class TableMeta(_Strict):
    """Metadata of one table."""

    description: str = ""
    description_en: str = ""
    tenant_column: str | None = None
    shared: bool = False
    """True for reference tables every tenant may read (no tenant column)."""
    tenant_name_column: str | None = None
    """On the table of the tenants themselves (keyed by the tenant column): the column with
    each tenant's name, so that a question naming another tenant is told it was not used."""
    synonyms: Synonyms = Synonyms()
    columns: dict[str, ColumnMeta] = {}
    joins: list[JoinMeta] = []

    @model_validator(mode="after")
    def _tenancy_declared(self) -> TableMeta:
        if self.shared and self.tenant_column:
            raise ValueError("a table is either shared or has a tenant_column, not both")
        if not self.shared and not self.tenant_column:
            raise ValueError(
                "declare tenant_column, or shared: true for a table every tenant reads"
            )
        return self


class SystemFile(_Strict):
    """The raw content of one system file."""

    system: str
    title: str = ""
    purpose: str = ""
    purpose_en: str = ""
    db_schema: str = Field("public", alias="schema")
    ddl: str
    tables: dict[str, TableMeta]


INTEGER_TYPES = {
    "int2": "smallint",
    "smallint": "smallint",
    "smallserial": "smallint",
    "int": "integer",
    "int4": "integer",
    "integer": "integer",
    "serial": "integer",
    "int8": "bigint",
    "bigint": "bigint",
    "bigserial": "bigint",
}
"""Every spelling of PostgreSQL's integer types, by the canonical name."""


def base_type(type_sql: str) -> str:
    """`integer`, `varchar`, `uuid`… from a DDL type such as `character varying(20)`."""
    return re.sub(r"\(.*\)|\[\]", "", type_sql).strip().lower()


def type_family(base: str) -> str:
    """`integer` for any integer type, else the base type itself."""
    return "integer" if base in INTEGER_TYPES else base


@dataclass(frozen=True)
class Location:
    """A place in a catalog file, for messages people can jump to."""

    file: Path
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class Column:
    """A column as declared in the DDL, with its metadata."""

    name: str
    type_sql: str
    """Type as written in the DDL, e.g. `numeric(14,2)`."""
    not_null: bool
    meta: ColumnMeta
    where: Location


@dataclass(frozen=True)
class Table:
    """A catalog table: DDL columns, tenancy and metadata resolved together."""

    name: str
    system: str
    db_schema: str
    columns: tuple[Column, ...]
    primary_key: tuple[str, ...]
    meta: TableMeta
    where: Location

    @property
    def tenant_column(self) -> str | None:
        return self.meta.tenant_column

    @property
    def shared(self) -> bool:
        return self.meta.shared

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    def column(self, name: str) -> Column:
        for col in self.columns:
            if col.name == name:
                return col
        raise KeyError(f"{self.name}.{name}")


@dataclass(frozen=True)
class System:
    """One source system: its file, purpose, DDL statements and tables."""

    name: str
    title: str
    purpose: str
    purpose_en: str
    db_schema: str
    file: Path
    table_ddl: tuple[str, ...]
    """CREATE TABLE statements, in file order."""
    index_ddl: tuple[str, ...]
    """CREATE INDEX statements, applied after data is loaded."""
    tables: tuple[str, ...]


@dataclass(frozen=True)
class Catalog:
    """The whole catalog: systems, tables by name, glossary, and non-fatal warnings."""

    systems: tuple[System, ...]
    tables: dict[str, Table]
    glossary: tuple[GlossaryTerm, ...] = ()
    glossary_locations: tuple[Location, ...] = ()
    """Where each glossary term is written, in the same order."""
    warnings: tuple[str, ...] = field(default=())

    def table(self, name: str) -> Table:
        return self.tables[name]

    def tenant_tables(self) -> dict[str, str]:
        """Tenant table → its tenant column."""
        return {t.name: t.tenant_column for t in self.tables.values() if t.tenant_column}

    def shared_tables(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.tables.values() if t.shared)

    def tenant_types(self) -> set[str]:
        """Base types of the tenant columns (`integer`, `bigint`, `text`, `uuid`…)."""
        return {
            base_type(table.column(table.tenant_column).type_sql)
            for table in self.tables.values()
            if table.tenant_column
        }

    def tenant_directory(self) -> Table | None:
        """The table of the tenants themselves, when the catalog names their name column."""
        return next((t for t in self.tables.values() if t.meta.tenant_name_column), None)

    def guard_policy(self) -> dict[str, dict[str, dict[str, object]]]:
        """The guard's policy (`tables: {name: {tenant_column: c} | {shared: true}}`)."""
        policy: dict[str, dict[str, object]] = {}
        for table in self.tables.values():
            if table.shared:
                policy[table.name] = {"shared": True}
            else:
                policy[table.name] = {"tenant_column": table.tenant_column}
        return {"tables": policy}


class MetricDefinition(_Strict):
    """How a glossary term is computed, so the SQL writer uses the business's definition.

    `{today}` in the expression or filter stands for the run's "today" as a date literal.
    """

    expression: str
    table: str
    filter: str | None = None
    date_column: str | None = None
    unit: str | None = None


class GlossaryTerm(_Strict):
    """A business term the database cannot explain."""

    term: str
    synonyms: list[str] = []
    definition: str
    definition_en: str = ""
    tables: list[str] = []
    metric: MetricDefinition | None = None


class GlossaryFile(_Strict):
    terms: list[GlossaryTerm] = Field(min_length=1)
