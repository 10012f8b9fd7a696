"""Load the DDL catalog: YAML system files + their DDL, validated against each other.

`load_catalog()` reads every `systems/*.yaml` and `glossary.yaml` of a catalog folder and
returns a `Catalog`. Anything inconsistent (metadata naming a column the DDL lacks, a join
to an unknown table, a table without declared tenancy) is a `CatalogError` naming the file
and line, because the guard's allowlist is built from this and must fail closed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pglast import ast
from pydantic import ValidationError

from orquestra.ddl_catalog.catalog_rules import (
    check_joins,
    check_shared,
    check_tenant_types,
    check_tenant_via,
    collect_types,
    enum_value_warnings,
    with_unique_indexes,
)
from orquestra.ddl_catalog.ddl_parse import (
    TYPE_STATEMENTS,
    catalog_type,
    parse_ddl,
    resolve_table,
)
from orquestra.ddl_catalog.errors import CatalogError
from orquestra.ddl_catalog.model import (
    Catalog,
    CatalogType,
    GlossaryFile,
    GlossaryTerm,
    Location,
    System,
    SystemFile,
    Table,
)
from orquestra.deployments import DEFAULT_DEPLOYMENT, DEPLOYMENTS_DIR

__all__ = ["DEMO_CATALOG_DIR", "CatalogError", "load_catalog", "load_glossary", "load_system_file"]


DEMO_CATALOG_DIR = DEPLOYMENTS_DIR / DEFAULT_DEPLOYMENT / "catalog"
"""The default deployment's catalog (the demo), shipped with the package."""


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
    types = collect_types(systems)
    warnings.extend(enum_value_warnings(tables, types))
    tables = with_unique_indexes(tables, systems)
    check_joins(tables)
    check_tenant_via(tables)
    check_shared(tables)
    check_tenant_types(tables)
    directories = [t for t in tables.values() if t.meta.tenant_name_column]
    if len(directories) > 1:
        raise CatalogError(
            "CATALOG_TENANT_NAME_COLUMN",
            f"{directories[1].where}: tenant_name_column is already declared on"
            f" {directories[0].name}; only the tenants' own table has it",
        )
    terms, where = load_glossary(folder / "glossary.yaml", tables)
    confirmed = [i for i, term in enumerate(terms) if not term.draft]
    drafts = [i for i, term in enumerate(terms) if term.draft]
    return Catalog(
        tuple(systems),
        tables,
        tuple(terms[i] for i in confirmed),
        tuple(where[i] for i in confirmed),
        tuple(warnings),
        types,
        drafts=tuple(terms[i] for i in drafts),
        draft_locations=tuple(where[i] for i in drafts),
    )


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
    statements = parse_ddl(path, raw.ddl, ddl_first_line)
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
            types.append(catalog_type(stmt, source, raw.db_schema, Location(path, line)))
            continue
        table = resolve_table(path, raw, stmt, (raw.ddl, ddl_first_line), line, lines, warnings)
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


def _validation_error(
    path: Path, exc: ValidationError, lines: dict[tuple[Any, ...], int]
) -> CatalogError:
    first = exc.errors()[0]
    loc = tuple(first["loc"])
    line = 1
    for depth in range(len(loc), 0, -1):
        if loc[:depth] in lines:
            line = lines[loc[:depth]]
            break
    where = ".".join(str(p) for p in loc) or "(file)"
    return CatalogError("CATALOG_INVALID", f"{path}:{line}: {where}: {first['msg']}")
