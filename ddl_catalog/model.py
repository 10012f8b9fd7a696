"""Typed shapes of the DDL catalog: what a system file holds, and the resolved catalog.

A system file (`systems/<system>.yaml`) holds real DDL plus metadata keyed by table and
column names. The loader parses both and resolves them into `Table` and `Column` objects
that remember the file and line they came from, so every error and drift can point there.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field, model_validator

from orquestra.ddl_catalog.metric_shape import MetricShape, shape_of


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Synonyms(_Strict):
    """Words people use for a table or column, in Portuguese and English."""

    pt: list[str] = []
    en: list[str] = []

    def all(self) -> list[str]:
        """Every synonym, Portuguese first."""
        return [*self.pt, *self.en]


ColumnKind = Literal["date", "amount", "quantity", "identifier", "name"]
"""What a column holds, as profiling reads it (`ddl_catalog.naming.column_kind`)."""


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
    kind: ColumnKind | None = None
    """What the column holds, as `init` read it from its type and its name's words (a date,
    an amount of money, a quantity, an identifier or code, a name); unset: none of these."""


class JoinMeta(_Strict):
    """A join key from this table to another catalog table (possibly in another system)."""

    to: str
    on: dict[str, str] = Field(min_length=1)
    """Local column → column of `to`."""
    description: str = ""


class TenantVia(_Strict):
    """Tenancy through a parent: a row belongs to the tenant of the `parent` row that
    matches it on every listed column (no such row, or a NULL key: it belongs to nobody)."""

    parent: str
    columns: dict[str, str] = Field(min_length=1)
    """Child column → parent column; all of them must match."""


class TableMeta(_Strict):
    """Metadata of one table."""

    description: str = ""
    description_en: str = ""
    tenant_column: str | None = None
    """The table carries the tenant in this column."""
    tenant_via: TenantVia | None = None
    """The table's rows belong to the tenant of their parent row (chains allowed)."""
    shared: bool = False
    """True for reference tables every tenant may read (no tenant column)."""
    shared_because: str | None = None
    """Why a shared table that holds a foreign key into tenant data is still shared."""
    tenant_name_column: str | None = None
    """On the table of the tenants themselves (keyed by the tenant column): the column with
    each tenant's name, so that a question naming another tenant is told it was not used."""
    synonyms: Synonyms = Synonyms()
    columns: dict[str, ColumnMeta] = {}
    joins: list[JoinMeta] = []

    @model_validator(mode="after")
    def _tenancy_declared(self) -> TableMeta:
        declared = [bool(self.tenant_column), self.tenant_via is not None, self.shared]
        if sum(declared) != 1:
            raise ValueError(
                "declare exactly one of tenant_column (the table holds the tenant), "
                "tenant_via (its rows belong to a parent's tenant) or shared: true "
                "(every tenant reads it)"
            )
        if self.shared_because is not None and not self.shared:
            raise ValueError("shared_because explains a shared table; this one is not shared")
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
class ForeignKey:
    """A foreign key of the DDL: local columns → columns of `to` (its primary key if none)."""

    columns: tuple[str, ...]
    to: str
    to_columns: tuple[str, ...]


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
    foreign_keys: tuple[ForeignKey, ...] = ()
    """Foreign keys written in the DDL (`REFERENCES`, `FOREIGN KEY`)."""
    unique_keys: tuple[tuple[str, ...], ...] = ()
    """Column sets the DDL declares unique besides the primary key (`UNIQUE` constraints and
    unique indexes without a `WHERE`)."""

    @property
    def tenant_column(self) -> str | None:
        return self.meta.tenant_column

    @property
    def tenant_via(self) -> TenantVia | None:
        return self.meta.tenant_via

    @property
    def shared(self) -> bool:
        return self.meta.shared

    @property
    def tenancy(self) -> Literal["column", "via", "shared"]:
        """How the table's rows are scoped: its own column, a parent, or not at all."""
        if self.tenant_column:
            return "column"
        return "via" if self.tenant_via else "shared"

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    def column(self, name: str) -> Column:
        for col in self.columns:
            if col.name == name:
                return col
        raise KeyError(f"{self.name}.{name}")


@dataclass(frozen=True)
class CatalogType:
    """A type the schema defines itself (`CREATE TYPE … AS ENUM`, `CREATE DOMAIN`, or a
    composite `CREATE TYPE … AS (…)`), so columns, casts and the check can use it."""

    name: str
    schema: str
    kind: Literal["enum", "domain", "composite"]
    values: tuple[str, ...] = ()
    """An enum's labels, in their order."""
    base: str | None = None
    """A domain's base type as written, e.g. `integer`."""
    ddl: str = ""
    """The statement as written in the system file."""
    where: Location | None = None


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
    types: tuple[CatalogType, ...] = ()
    """CREATE TYPE / CREATE DOMAIN of the system's own types, in file order."""


@dataclass(frozen=True)
class Catalog:
    """The whole catalog: systems, tables by name, glossary, and non-fatal warnings."""

    systems: tuple[System, ...]
    tables: dict[str, Table]
    glossary: tuple[GlossaryTerm, ...] = ()
    glossary_locations: tuple[Location, ...] = ()
    """Where each glossary term is written, in the same order."""
    warnings: tuple[str, ...] = field(default=())
    types: dict[str, CatalogType] = field(default_factory=dict)
    """The catalog's own enum, domain and composite types, by name."""
    drafts: tuple[GlossaryTerm, ...] = ()
    """Glossary terms still marked `draft: true`: checked, never used (not in `glossary`)."""
    draft_locations: tuple[Location, ...] = ()

    def table(self, name: str) -> Table:
        return self.tables[name]

    def tenant_tables(self) -> dict[str, str]:
        """Tenant table → its tenant column."""
        return {t.name: t.tenant_column for t in self.tables.values() if t.tenant_column}

    def tenant_chain(self, name: str) -> tuple[Table, ...]:
        """`name`'s table, then each `tenant_via` parent up to the root holding the tenant
        column; empty for a shared table. The loader has refused cycles and shared parents."""
        chain: list[Table] = []
        table: Table | None = self.tables[name]
        while table is not None and not table.shared:
            chain.append(table)
            table = self.tables[table.tenant_via.parent] if table.tenant_via else None
        return tuple(chain)

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


RATIO = "ratio"
"""The unit of a share from 0 to 1, shown as a percentage."""


def is_ratio(unit: str | None) -> bool:
    return unit == RATIO


def is_money(unit: str | None) -> bool:
    """An ISO 4217 currency code (`BRL`, `USD`) rather than a measure (`kg`, `dias`)."""
    return unit is not None and len(unit) == 3 and unit.isalpha() and unit.isupper()


CURRENCY_SYMBOLS = {"BRL": "R$", "USD": "US$", "EUR": "€", "GBP": "£", "JPY": "¥"}
"""How a currency code is written before an amount; other codes are written as they are."""


def currency_symbol(unit: str) -> str:
    """What is written before an amount in the currency `unit` (a money unit).

    >>> currency_symbol("BRL"), currency_symbol("CHF")
    ('R$', 'CHF')
    """
    return CURRENCY_SYMBOLS.get(unit, unit)


class MetricDefinition(_Strict):
    """How a glossary term is computed, so the SQL writer uses the business's definition.

    `{today}` in the expression or filter stands for the run's "today" as a date literal.
    """

    expression: str
    table: str
    filter: str | None = None
    date_column: str | None = None
    unit: str | None = None
    """A currency code (BRL), a measure (dias, kg), or `ratio`: a share from 0 to 1, shown
    as a percentage (0.834 → 83.4%) while the query keeps the fraction."""
    better: Literal["higher", "lower"] | None = None
    """Which values are better, when the business says so: what "pior"/"worst" and
    "melhor"/"best" rank by (the worst OTIF is the lowest, the worst lead time the highest)."""
    snapshot: bool = False
    """A balance measured as it stands (what is open or overdue), not a flow over a period:
    "hoje"/"today"/"now" is its value now, not its rows dated today; a period asked for
    still places its rows by `date_column`."""

    @model_validator(mode="after")
    def _shaped(self) -> MetricDefinition:
        """Its shape is read as the catalog loads (and remembered), never per question."""
        shape_of(self.expression, self.filter)
        return self

    @property
    def shape(self) -> MetricShape:
        """What its expression and filter say (`metric_shape.MetricShape`), read once."""
        return shape_of(self.expression, self.filter)


class GlossaryTerm(_Strict):
    """A business term the database cannot explain."""

    term: str
    synonyms: list[str] = []
    term_en: str = ""
    """The term's name in English (labels and headings of English answers); empty when the
    term reads the same in both languages or the deployment speaks one."""
    definition: str
    definition_en: str = ""
    tables: list[str] = []
    metric: MetricDefinition | None = None
    draft: bool = False
    """Written by `orquestra init` for the owner to confirm: loaded and checked like any term,
    used by no stage until the owner removes `draft: true` (or deletes the term)."""


class GlossaryFile(_Strict):
    terms: list[GlossaryTerm] = Field(min_length=1)


_T = TypeVar("_T")
_T_co = TypeVar("_T_co", covariant=True)
_MEMO_CATALOGS = 8
"""Catalogs remembered per memo: a process serves one, tests load a few."""


class PerCatalog(Protocol[_T_co]):
    """A `per_catalog` function: called with a catalog; `cache_clear()` forgets every one
    (a test that must start as a fresh process does)."""

    def __call__(self, catalog: Catalog, /) -> _T_co: ...

    def cache_clear(self) -> None: ...


def per_catalog(build: Callable[[Catalog], _T]) -> PerCatalog[_T]:
    """`build`, computed once per catalog object and remembered: a loaded catalog never
    changes, and what the stages derive from it (words, units, join graphs, schemas) is
    asked for on every turn. Keyed by identity (a catalog holds dicts, so it cannot hash);
    the memo keeps the catalog itself, so an id is never reused while remembered."""
    memo: dict[int, tuple[Catalog, _T]] = {}

    @functools.wraps(build)
    def remembered(catalog: Catalog) -> _T:
        hit = memo.get(id(catalog))
        if hit is not None and hit[0] is catalog:
            return hit[1]
        value = build(catalog)
        if len(memo) >= _MEMO_CATALOGS:
            memo.clear()
        memo[id(catalog)] = (catalog, value)
        return value

    remembered.cache_clear = memo.clear  # type: ignore[attr-defined]
    _MEMOS.append(memo)
    return cast(PerCatalog[_T], remembered)


_MEMOS: list[dict[int, Any]] = []


def forget_catalogs() -> None:
    """Every `per_catalog` memo forgets what it remembered: a test that must start as a
    fresh process does (nothing built, no catalog read yet)."""
    for memo in _MEMOS:
        memo.clear()
