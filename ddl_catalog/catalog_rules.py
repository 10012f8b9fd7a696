"""Rules across a catalog's tables: joins, tenancy through parents (unique links, no cycles,
no shared link), fail-closed sharing, tenant key types, the schema's own types."""

from __future__ import annotations

from dataclasses import replace

import pglast
from pglast import ast

from orquestra.ddl_catalog.ddl_parse import table_name
from orquestra.ddl_catalog.errors import CatalogError
from orquestra.ddl_catalog.model import (
    CatalogType,
    System,
    Table,
    base_type,
    type_family,
)


def collect_types(systems: list[System]) -> dict[str, CatalogType]:
    """Every system's types by name; one name, one definition."""
    types: dict[str, CatalogType] = {}
    for system in systems:
        for catalog_type in system.types:
            if catalog_type.name in types:
                raise CatalogError(
                    "CATALOG_DUPLICATE_TYPE",
                    f"{catalog_type.where}: type {catalog_type.name} is already defined at "
                    f"{types[catalog_type.name].where}",
                )
            types[catalog_type.name] = catalog_type
    return types


def enum_value_warnings(tables: dict[str, Table], types: dict[str, CatalogType]) -> list[str]:
    """A column of an enum type whose metadata lists other values than the enum's labels:
    the database decides, so this is a warning for a person, not an error."""
    out = []
    for table in tables.values():
        for column in table.columns:
            enum = types.get(base_type(column.type_sql).split(".")[-1].strip('"'))
            if enum is None or enum.kind != "enum" or not column.meta.values:
                continue
            if set(column.meta.values) != set(enum.values):
                missing = sorted(set(enum.values) - set(column.meta.values))
                unknown = sorted(set(column.meta.values) - set(enum.values))
                out.append(
                    f"{column.where}: {table.name}.{column.name} is of enum type {enum.name}; "
                    f"its values lack {missing} and name labels the enum has not: {unknown}"
                )
    return out


def check_tenant_types(tables: dict[str, Table]) -> None:
    """One kind of tenant identifier: a token's tenant is canonicalised once, for all tables
    (an integer key reads `"0101"` as `101`; a text key could not)."""
    kinds: dict[str, Table] = {}
    for table in tables.values():
        if table.tenant_column:
            family = type_family(base_type(table.column(table.tenant_column).type_sql))
            kinds.setdefault(family, table)
    if len(kinds) > 1:
        named = ", ".join(f"{t.name}.{t.tenant_column} ({kind})" for kind, t in kinds.items())
        raise CatalogError(
            "CATALOG_TENANT_TYPES",
            f"tenant columns must share one type (integers of any width, text, or uuid): {named}",
        )


def check_joins(tables: dict[str, Table]) -> None:
    """Every join names a catalog table and columns that exist on both sides."""
    for table in tables.values():
        for join in table.meta.joins:
            target = tables.get(join.to)
            if target is None:
                raise CatalogError(
                    "CATALOG_JOIN_TABLE",
                    f"{table.where}: {table.name} joins unknown table {join.to}",
                )
            for local, remote in join.on.items():
                for side, column in ((table, local), (target, remote)):
                    if column not in side.column_names:
                        raise CatalogError(
                            "CATALOG_JOIN_COLUMN",
                            f"{table.where}: join {table.name} → {join.to} uses "
                            f"{side.name}.{column}, which does not exist",
                        )


def with_unique_indexes(tables: dict[str, Table], systems: list[System]) -> dict[str, Table]:
    """The tables with the unique keys their systems' `CREATE UNIQUE INDEX` declare (plain
    columns and no `WHERE`: a partial index makes nothing unique table-wide)."""
    found: dict[str, list[tuple[str, ...]]] = {}
    for system in systems:
        for source in system.index_ddl:
            for raw in pglast.parse_sql(source):
                index = raw.stmt
                if not isinstance(index, ast.IndexStmt) or not index.unique or index.whereClause:
                    continue
                columns = tuple(p.name for p in index.indexParams or ())
                name = table_name(index.relation)
                if all(columns) and name in tables:
                    found.setdefault(name, []).append(columns)
    return {
        name: replace(table, unique_keys=(*table.unique_keys, *found[name]))
        if name in found
        else table
        for name, table in tables.items()
    }


def check_tenant_via(tables: dict[str, Table]) -> None:
    """Every `tenant_via` names a scoped parent and its columns on one of the parent's unique
    keys, and every chain ends at a table holding the tenant column: no cycles, no shared
    link, comparable key types."""
    for table in tables.values():
        via = table.tenant_via
        if via is None:
            continue
        parent = tables.get(via.parent)
        if parent is None:
            raise CatalogError(
                "CATALOG_TENANT_VIA",
                f"{table.where}: tenant_via of {table.name} names unknown table {via.parent}",
            )
        if parent.shared:
            raise CatalogError(
                "CATALOG_TENANT_VIA",
                f"{table.where}: tenant_via of {table.name} goes through {parent.name}, which "
                "is shared and so belongs to no tenant",
            )
        for child_col, parent_col in via.columns.items():
            if parent_col not in parent.column_names:
                raise CatalogError(
                    "CATALOG_TENANT_VIA",
                    f"{table.where}: tenant_via of {table.name} uses {parent.name}.{parent_col}"
                    ", which does not exist",
                )
            kinds = {
                type_family(base_type(side.column(col).type_sql))
                for side, col in ((table, child_col), (parent, parent_col))
            }
            if len(kinds) > 1:
                raise CatalogError(
                    "CATALOG_TENANT_VIA",
                    f"{table.where}: tenant_via compares {table.name}.{child_col} with "
                    f"{parent.name}.{parent_col}, of another type ({' vs '.join(sorted(kinds))})",
                )
        linked = set(via.columns.values())
        if not any(key and set(key) <= linked for key in (parent.primary_key, *parent.unique_keys)):
            # Fail closed: a child matching parents of several tenants would be each one's.
            raise CatalogError(
                "CATALOG_TENANT_VIA_NOT_UNIQUE",
                f"{table.where}: tenant_via of {table.name} matches {parent.name} on "
                f"({', '.join(via.columns.values())}), which is neither its primary key nor a "
                f"unique key, so one {table.name} row could match {parent.name} rows of several "
                "tenants and be visible to each. Link on a unique key of the parent, or "
                "declare the UNIQUE constraint or index the database has.",
            )
    for table in tables.values():
        seen = [table.name]
        current = table
        while current.tenant_via is not None:
            current = tables[current.tenant_via.parent]
            if current.name in seen:
                raise CatalogError(
                    "CATALOG_TENANT_VIA_CYCLE",
                    f"{table.where}: tenant_via goes round in a circle: "
                    f"{' → '.join([*seen, current.name])}",
                )
            seen.append(current.name)


def check_shared(tables: dict[str, Table]) -> None:
    """Fail closed: a shared table with a foreign key into tenant data must say why."""
    for table in tables.values():
        if not table.shared or table.meta.shared_because:
            continue
        for columns, target in _references(table, tables):
            if not tables[target].shared:
                raise CatalogError(
                    "CATALOG_SHARED_REFERENCES_TENANT",
                    f"{table.where}: {table.name} is shared but its key "
                    f"({', '.join(columns)}) → {target} points into tenant data, so every "
                    f"tenant would read rows tied to other tenants. Scope it with tenant_via "
                    f"(parent: {target}), or keep shared: true and say why in shared_because",
                )


def _references(table: Table, tables: dict[str, Table]) -> list[tuple[tuple[str, ...], str]]:
    """Foreign keys of `table` into catalog tables: the DDL's, and declared joins onto the
    target's whole primary key."""
    found = [(fk.columns, fk.to) for fk in table.foreign_keys if fk.to in tables]
    for join in table.meta.joins:
        target = tables.get(join.to)
        if target and target.primary_key and set(join.on.values()) == set(target.primary_key):
            found.append((tuple(join.on), join.to))
    return found
