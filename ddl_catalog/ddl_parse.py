"""A system file's DDL read with PostgreSQL's own parser: tables with their columns, keys and
metadata, and the schema's own types."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

import pglast
from pglast import ast
from pglast.enums.parsenodes import ConstrType
from pglast.stream import RawStream

from orquestra.ddl_catalog.errors import CatalogError
from orquestra.ddl_catalog.model import (
    CatalogType,
    Column,
    ColumnMeta,
    ForeignKey,
    Location,
    SystemFile,
    Table,
)

_T = TypeVar("_T")


def parse_ddl(path: Path, ddl: str, first_line: int) -> list[tuple[Any, str, int]]:
    """Statements of a DDL block as (node, source text, file line): tables, indexes, and the
    schema's own types (enums, domains, composites)."""
    try:
        parsed = pglast.parse_sql(ddl)
    except pglast.parser.ParseError as exc:
        offset = exc.args[1] if len(exc.args) > 1 and exc.args[1] else 0
        line = first_line + ddl[:offset].count("\n")
        raise CatalogError("CATALOG_DDL_SYNTAX", f"{path}:{line}: {exc}") from None
    out = []
    for raw in parsed:
        start, length = raw.stmt_location, raw.stmt_len
        assert start is not None and length is not None  # the parser places every statement
        # A length of 0 is PostgreSQL's "to the end": the last statement, without its `;`.
        chunk = ddl[start : start + length] if length else ddl[start:]
        offset = start + len(chunk) - len(chunk.lstrip())
        source = chunk.strip()
        line = first_line + ddl[:offset].count("\n")
        if not isinstance(raw.stmt, (ast.CreateStmt, ast.IndexStmt, *TYPE_STATEMENTS)):
            kind = type(raw.stmt).__name__
            raise CatalogError(
                "CATALOG_DDL_STATEMENT",
                f"{path}:{line}: a catalog holds only CREATE TABLE, CREATE INDEX, CREATE TYPE "
                f"and CREATE DOMAIN, not {kind}",
            )
        if _qualified(raw.stmt):
            raise CatalogError(
                "CATALOG_DDL_QUALIFIED",
                f"{path}:{line}: write table names unqualified; the file's `schema:` places them",
            )
        out.append((raw.stmt, source, line))
    return out


TYPE_STATEMENTS = (ast.CreateEnumStmt, ast.CreateDomainStmt, ast.CompositeTypeStmt)
"""The type definitions a system file may hold beside its tables."""


def _given(value: _T | None) -> _T:
    """A field the parser always fills in for these statements (a name, a type), which
    pglast's type hints mark as optional like every other node field."""
    assert value is not None
    return value


def _qualified(stmt: Any) -> bool:
    """True when a statement names its table or type with a schema."""
    if isinstance(stmt, ast.CreateEnumStmt):
        return len(_given(stmt.typeName)) > 1
    if isinstance(stmt, ast.CreateDomainStmt):
        return len(_given(stmt.domainname)) > 1
    if isinstance(stmt, ast.CompositeTypeStmt):
        return bool(_given(stmt.typevar).schemaname)
    return bool(stmt.relation.schemaname)


def catalog_type(stmt: Any, source: str, schema: str, where: Location) -> CatalogType:
    """The type a CREATE TYPE / CREATE DOMAIN statement defines."""
    if isinstance(stmt, ast.CreateEnumStmt):
        labels = tuple(v.sval for v in stmt.vals or ())
        name = _given(stmt.typeName)[-1].sval
        return CatalogType(name, schema, "enum", labels, None, source, where)
    if isinstance(stmt, ast.CreateDomainStmt):
        base = RawStream()(_given(stmt.typeName))
        name = _given(stmt.domainname)[-1].sval
        return CatalogType(name, schema, "domain", (), base, source, where)
    return CatalogType(stmt.typevar.relname, schema, "composite", (), None, source, where)


def resolve_table(
    path: Path,
    raw: SystemFile,
    stmt: ast.CreateStmt,
    ddl_lines: tuple[str, int],
    line: int,
    lines: dict[tuple[Any, ...], int],
    warnings: list[str],
) -> Table:
    name = table_name(stmt.relation)
    meta = raw.tables.get(name)
    if meta is None:
        raise CatalogError(
            "CATALOG_UNDESCRIBED_TABLE",
            f"{path}:{line}: table {name} has no entry under `tables:`; declare at least "
            "its tenant_column or shared: true",
        )
    columns: list[Column] = []
    primary_key: tuple[str, ...] = ()
    foreign_keys: list[ForeignKey] = []
    unique_keys: list[tuple[str, ...]] = []
    for element in stmt.tableElts or ():
        if isinstance(element, ast.ColumnDef):
            column_name = _given(element.colname)
            foreign_keys += [
                _foreign_key(c, (column_name,))
                for c in element.constraints or ()
                if c.contype == ConstrType.CONSTR_FOREIGN
            ]
            ddl, first_line = ddl_lines
            col_line = first_line + ddl[: element.location].count("\n")
            constraints = [c.contype for c in element.constraints or ()]
            not_null = any(
                c in (ConstrType.CONSTR_NOTNULL, ConstrType.CONSTR_PRIMARY) for c in constraints
            )
            if ConstrType.CONSTR_PRIMARY in constraints:
                primary_key = (column_name,)
            if ConstrType.CONSTR_UNIQUE in constraints:
                unique_keys.append((column_name,))
            col_meta = meta.columns.get(column_name)
            if col_meta is None:
                warnings.append(f"{path}:{col_line}: column {name}.{column_name} has no metadata")
            columns.append(
                Column(
                    name=column_name,
                    type_sql=RawStream()(_given(element.typeName)),
                    not_null=not_null,
                    meta=col_meta or ColumnMeta(),
                    where=Location(path, col_line),
                )
            )
        elif element.contype == ConstrType.CONSTR_PRIMARY:
            primary_key = tuple(k.sval for k in element.keys)
        elif element.contype == ConstrType.CONSTR_UNIQUE:
            unique_keys.append(tuple(k.sval for k in element.keys))
        elif element.contype == ConstrType.CONSTR_FOREIGN:
            foreign_keys.append(_foreign_key(element, ()))
    names = {c.name for c in columns}
    meta_line = lines.get(("tables", name), line)
    for col_name in meta.columns:
        if col_name not in names:
            where = lines.get(("tables", name, "columns", col_name), meta_line)
            raise CatalogError(
                "CATALOG_UNKNOWN_COLUMN",
                f"{path}:{where}: metadata describes {name}.{col_name}, which the DDL lacks",
            )
    if meta.tenant_column and meta.tenant_column not in names:
        where = lines.get(("tables", name, "tenant_column"), meta_line)
        raise CatalogError(
            "CATALOG_TENANT_COLUMN",
            f"{path}:{where}: tenant_column {meta.tenant_column} is not a column of {name}",
        )
    if meta.tenant_name_column and (
        meta.tenant_name_column not in names or primary_key != (meta.tenant_column,)
    ):
        where = lines.get(("tables", name, "tenant_name_column"), meta_line)
        raise CatalogError(
            "CATALOG_TENANT_NAME_COLUMN",
            f"{path}:{where}: tenant_name_column belongs on the tenants' own table (primary key"
            f" = its tenant_column) and must name one of its columns",
        )
    if meta.tenant_via:
        for child in meta.tenant_via.columns:
            if child not in names:
                where = lines.get(("tables", name, "tenant_via"), meta_line)
                raise CatalogError(
                    "CATALOG_TENANT_VIA",
                    f"{path}:{where}: tenant_via of {name} uses {child}, which is not a "
                    f"column of {name}",
                )
    return Table(
        name,
        raw.system,
        raw.db_schema,
        tuple(columns),
        primary_key,
        meta,
        Location(path, line),
        tuple(foreign_keys),
        tuple(unique_keys),
    )


def _foreign_key(constraint: ast.Constraint, columns: tuple[str, ...]) -> ForeignKey:
    """A `REFERENCES` column constraint (on `columns`) or a `FOREIGN KEY` table constraint."""
    local = columns or tuple(k.sval for k in constraint.fk_attrs or ())
    remote = tuple(k.sval for k in constraint.pk_attrs or ())
    return ForeignKey(local, table_name(constraint.pktable), remote)


def table_name(relation: ast.RangeVar | None) -> str:
    """The table a CREATE TABLE, CREATE INDEX or REFERENCES names (always given)."""
    return _given(_given(relation).relname)
