"""Load the DDL catalog: YAML system files + their DDL, validated against each other.

`load_catalog()` reads every `systems/*.yaml` and `glossary.yaml` of a catalog folder and
returns a `Catalog`. Anything inconsistent (metadata naming a column the DDL lacks, a join
to an unknown table, a table without declared tenancy) is a `CatalogError` naming the file
and line, because the guard's allowlist is built from this and must fail closed.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pglast
import yaml
from pglast import ast
from pglast.enums.parsenodes import ConstrType
from pglast.stream import RawStream
from pydantic import ValidationError

from orquestra.core.errors import OrquestraError
from orquestra.ddl_catalog.model import (
    Catalog,
    CatalogType,
    Column,
    ColumnMeta,
    ForeignKey,
    GlossaryFile,
    GlossaryTerm,
    Location,
    System,
    SystemFile,
    Table,
    base_type,
    type_family,
)
from orquestra.deployments import DEFAULT_DEPLOYMENT, DEPLOYMENTS_DIR

DEMO_CATALOG_DIR = DEPLOYMENTS_DIR / DEFAULT_DEPLOYMENT / "catalog"
"""The default deployment's catalog (the demo), shipped with the package."""


class CatalogError(OrquestraError):
    """A catalog file is invalid; `code` is stable, `message` names file and line."""


def load_catalog(folder: Path | None = None) -> Catalog:
    """Load and cross-check every system file and the glossary under `folder`."""
    folder = Path(folder) if folder is not None else DEMO_CATALOG_DIR
    files = sorted((folder / "systems").glob("*.yaml"))
    if not files:
        raise CatalogError("CATALOG_EMPTY", f"no system files in {folder / 'systems'}")
    systems: list[System] = []
    tables: dict[str, Table] = {}
    warnings: list[str] = []
    for path in files:
        system, system_tables, system_warnings = load_system_file(path)
        for table in system_tables:
            if table.name in tables:
                other = tables[table.name].where
                raise CatalogError(
                    "CATALOG_DUPLICATE_TABLE",
                    f"{table.where}: table {table.name} is already declared at {other}",
                )
            tables[table.name] = table
        systems.append(system)
        warnings.extend(system_warnings)
    types = _collect_types(systems)
    warnings.extend(_enum_value_warnings(tables, types))
    tables = _with_unique_indexes(tables, systems)
    _check_joins(tables)
    _check_tenant_via(tables)
    _check_shared(tables)
    _check_tenant_types(tables)
    directories = [t for t in tables.values() if t.meta.tenant_name_column]
    if len(directories) > 1:
        raise CatalogError(
            "CATALOG_TENANT_NAME_COLUMN",
            f"{directories[1].where}: tenant_name_column is already declared on"
            f" {directories[0].name}; only the tenants' own table has it",
        )
    glossary, where = load_glossary(folder / "glossary.yaml", tables)
    return Catalog(tuple(systems), tables, glossary, where, tuple(warnings), types)


def load_system_file(path: Path) -> tuple[System, list[Table], list[str]]:
    """Parse one system file into its system, tables and warnings."""
    text = path.read_text(encoding="utf-8")
    data, lines = _parse_yaml(path, text)
    try:
        raw = SystemFile.model_validate(data)
    except ValidationError as exc:
        raise _validation_error(path, exc, lines) from None
    if raw.system != path.stem:
        raise CatalogError(
            "CATALOG_SYSTEM_NAME",
            f"{path}:{lines.get(('system',), 1)}: system is {raw.system!r} "
            f"but the file is {path.name}; name the file after its system",
        )
    ddl_first_line = lines.get(("ddl",), 1) + 1
    statements = _parse_ddl(path, raw.ddl, ddl_first_line)
    tables: list[Table] = []
    table_ddl: list[str] = []
    index_ddl: list[str] = []
    warnings: list[str] = []
    types: list[CatalogType] = []
    for stmt, source, line in statements:
        if isinstance(stmt, ast.IndexStmt):
            index_ddl.append(source)
            continue
        if isinstance(stmt, TYPE_STATEMENTS):
            types.append(_catalog_type(stmt, source, raw.db_schema, Location(path, line)))
            continue
        table = _resolve_table(path, raw, stmt, (raw.ddl, ddl_first_line), line, lines, warnings)
        tables.append(table)
        table_ddl.append(source)
    declared = {t.name for t in tables}
    for name in raw.tables:
        if name not in declared:
            where = lines.get(("tables", name), 1)
            raise CatalogError(
                "CATALOG_UNKNOWN_TABLE",
                f"{path}:{where}: metadata describes table {name}, which the DDL does not create",
            )
    system = System(
        name=raw.system,
        title=raw.title or raw.system,
        purpose=raw.purpose,
        purpose_en=raw.purpose_en,
        db_schema=raw.db_schema,
        file=path,
        table_ddl=tuple(table_ddl),
        index_ddl=tuple(index_ddl),
        tables=tuple(t.name for t in tables),
        types=tuple(types),
    )
    return system, tables, warnings


def load_glossary(
    path: Path, tables: dict[str, Table]
) -> tuple[tuple[GlossaryTerm, ...], tuple[Location, ...]]:
    """Load the glossary and where each term is; every table it names must exist."""
    if not path.exists():
        return (), ()
    data, lines = _parse_yaml(path, path.read_text(encoding="utf-8"))
    if data is None:
        return (), ()  # a draft holding only comments (`orquestra init`) has no terms yet
    try:
        glossary = GlossaryFile.model_validate(data)
    except ValidationError as exc:
        raise _validation_error(path, exc, lines) from None
    for index, term in enumerate(glossary.terms):
        line = lines.get(("terms", index), 1)
        named = [*term.tables, *([term.metric.table] if term.metric else [])]
        for table in named:
            if table not in tables:
                raise CatalogError(
                    "CATALOG_GLOSSARY_TABLE",
                    f"{path}:{line}: term {term.term!r} names unknown table {table}",
                )
        metric = term.metric
        if metric and metric.date_column not in (None, *tables[metric.table].column_names):
            raise CatalogError(
                "CATALOG_GLOSSARY_COLUMN",
                f"{path}:{line}: term {term.term!r}: {metric.table} has no column "
                f"{metric.date_column}",
            )
    where = tuple(Location(path, lines.get(("terms", i), 1)) for i in range(len(glossary.terms)))
    return tuple(glossary.terms), where


def _parse_yaml(path: Path, text: str) -> tuple[Any, dict[tuple[Any, ...], int]]:
    """YAML content plus the 1-based line of every mapping key and sequence item."""
    try:
        # libyaml's loader when built in: a 100-table system file parses ~10x faster
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        node = yaml.compose(text, Loader=loader)
        data = yaml.load(text, Loader=loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        raise CatalogError("CATALOG_YAML", f"{path}:{line}: {exc}") from None
    lines: dict[tuple[Any, ...], int] = {}
    if node is not None:
        _index_lines(node, (), lines)
    return data, lines


def _index_lines(node: yaml.Node, prefix: tuple[Any, ...], out: dict[tuple[Any, ...], int]) -> None:
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            path = (*prefix, key_node.value)
            out[path] = key_node.start_mark.line + 1
            _index_lines(value_node, path, out)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            path = (*prefix, index)
            out[path] = item.start_mark.line + 1
            _index_lines(item, path, out)


def _validation_error(path: Path, exc: ValidationError, lines: dict) -> CatalogError:
    first = exc.errors()[0]
    loc = tuple(first["loc"])
    line = 1
    for depth in range(len(loc), 0, -1):
        if loc[:depth] in lines:
            line = lines[loc[:depth]]
            break
    where = ".".join(str(p) for p in loc) or "(file)"
    return CatalogError("CATALOG_INVALID", f"{path}:{line}: {where}: {first['msg']}")


def _parse_ddl(path: Path, ddl: str, first_line: int) -> list[tuple[Any, str, int]]:
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
        chunk = ddl[raw.stmt_location : raw.stmt_location + raw.stmt_len]
        offset = raw.stmt_location + len(chunk) - len(chunk.lstrip())
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


def _qualified(stmt: Any) -> bool:
    """True when a statement names its table or type with a schema."""
    if isinstance(stmt, ast.CreateEnumStmt):
        return len(stmt.typeName) > 1
    if isinstance(stmt, ast.CreateDomainStmt):
        return len(stmt.domainname) > 1
    if isinstance(stmt, ast.CompositeTypeStmt):
        return bool(stmt.typevar.schemaname)
    return bool(stmt.relation.schemaname)


def _catalog_type(stmt: Any, source: str, schema: str, where: Location) -> CatalogType:
    """The type a CREATE TYPE / CREATE DOMAIN statement defines."""
    if isinstance(stmt, ast.CreateEnumStmt):
        labels = tuple(v.sval for v in stmt.vals or ())
        return CatalogType(stmt.typeName[-1].sval, schema, "enum", labels, None, source, where)
    if isinstance(stmt, ast.CreateDomainStmt):
        base = RawStream()(stmt.typeName)
        return CatalogType(stmt.domainname[-1].sval, schema, "domain", (), base, source, where)
    return CatalogType(stmt.typevar.relname, schema, "composite", (), None, source, where)


def _collect_types(systems: list[System]) -> dict[str, CatalogType]:
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


def _enum_value_warnings(tables: dict[str, Table], types: dict[str, CatalogType]) -> list[str]:
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


def _resolve_table(
    path: Path,
    raw: SystemFile,
    stmt: ast.CreateStmt,
    ddl_lines: tuple[str, int],
    line: int,
    lines: dict,
    warnings: list[str],
) -> Table:
    name = stmt.relation.relname
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
            foreign_keys += [
                _foreign_key(c, (element.colname,))
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
                primary_key = (element.colname,)
            if ConstrType.CONSTR_UNIQUE in constraints:
                unique_keys.append((element.colname,))
            col_meta = meta.columns.get(element.colname)
            if col_meta is None:
                warnings.append(
                    f"{path}:{col_line}: column {name}.{element.colname} has no metadata"
                )
            columns.append(
                Column(
                    name=element.colname,
                    type_sql=RawStream()(element.typeName),
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
    where = Location(path, line)
    return Table(
        name,
        raw.system,
        raw.db_schema,
        tuple(columns),
        primary_key,
        meta,
        where,
        tuple(foreign_keys),
        tuple(unique_keys),
    )


def _foreign_key(constraint: ast.Constraint, columns: tuple[str, ...]) -> ForeignKey:
    """A `REFERENCES` column constraint (on `columns`) or a `FOREIGN KEY` table constraint."""
    local = columns or tuple(k.sval for k in constraint.fk_attrs or ())
    remote = tuple(k.sval for k in constraint.pk_attrs or ())
    return ForeignKey(local, constraint.pktable.relname, remote)


def _check_tenant_types(tables: dict[str, Table]) -> None:
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


def _check_joins(tables: dict[str, Table]) -> None:
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


def _with_unique_indexes(tables: dict[str, Table], systems: list[System]) -> dict[str, Table]:
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
                if all(columns) and index.relation.relname in tables:
                    found.setdefault(index.relation.relname, []).append(columns)
    return {
        name: replace(table, unique_keys=(*table.unique_keys, *found[name]))
        if name in found
        else table
        for name, table in tables.items()
    }


def _check_tenant_via(tables: dict[str, Table]) -> None:
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


def _check_shared(tables: dict[str, Table]) -> None:
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
