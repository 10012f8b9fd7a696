"""`orquestra catalog import`: a catalog system file from a live schema, for a person to review.

The schema's tables, columns, primary keys, indexes, foreign keys, comments and its own
types are read from `pg_catalog` (under `search_path = <schema>`, so the schema's own types
come back unqualified and other schemas' qualified). The DDL written is what PostgreSQL
reports: enums, domains and composite types first, then tables with generated columns and
`PARTITION BY` kept; partitions are folded into their parent (skipped as tables, the
parent's keys kept). Foreign keys become `joins:` and are not repeated as REFERENCES in the
DDL, which stays creatable in any order. Views and materialized views are imported as
read-only tables when asked for. Tenancy is proposed by `ddl_catalog.tenancy`: a table it
cannot decide gets none, which the loader refuses until a person declares it. A comment or
other schema text that looks like personal data is left out and listed
(`ddl_catalog.import_withheld`): the catalog goes into every tenant's prompt.
The data is profiled (`ddl_catalog.profiling`): common values as `values:`, each column's
`kind:`, the words of camelCase and abbreviated names where no comment describes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import asyncpg
import pglast
import yaml
from pglast import ast
from pglast.stream import RawStream

from orquestra.ddl_catalog.import_review import review_lines, table_comments, withheld_comment
from orquestra.ddl_catalog.import_withheld import Withheld, withhold_personal_data
from orquestra.ddl_catalog.importer_sql import (
    COLUMNS_SQL,
    FOREIGN_KEYS_SQL,
    INDEXES_SQL,
    PARTITIONS_SQL,
    PRIMARY_KEYS_SQL,
    RELATIONS_SQL,
    TYPES_SQL,
)
from orquestra.ddl_catalog.join_evidence import unique_keys
from orquestra.ddl_catalog.join_proposals import JoinProposals, naming_columns, propose_joins
from orquestra.ddl_catalog.loader import CatalogError
from orquestra.ddl_catalog.path_agreement import PathAgreement, measure_agreement
from orquestra.ddl_catalog.profiling import ColumnProfile, SchemaProfile, profile_schema
from orquestra.ddl_catalog.tenancy import Key, TenancyProposal, propose_tenancy

__all__ = ["SchemaImport", "import_schema", "review_lines"]


@dataclass(frozen=True)
class SchemaImport:
    """A system file's text and what a person must review in it."""

    text: str
    tables: tuple[str, ...]
    tenancy: TenancyProposal
    views: tuple[str, ...] = ()
    partitions: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Partitioned table → its partitions, folded into it."""
    types: tuple[str, ...] = ()
    undescribed: tuple[str, ...] = ()
    """`table.column` without a description (no database comment)."""
    agreement: dict[str, list[PathAgreement]] = field(default_factory=dict)
    """Per `tenant_via` table with several paths: do the others name the same tenant?"""
    withheld: tuple[Withheld, ...] = ()
    """Schema text that looks like personal data, not copied into the catalog."""
    joins: JoinProposals = field(default_factory=JoinProposals)
    """Joins proposed where no foreign key is declared: written, listed, unmatched keys."""
    profile: SchemaProfile = field(default_factory=SchemaProfile)
    """What profiling the data found: values, kinds of columns, words, language."""

    @property
    def undecided(self) -> list[str]:
        return list(self.tenancy.undecided)


async def import_schema(
    conn: asyncpg.Connection,
    schema: str,
    *,
    system: str,
    tenant_column: str | None,
    views: bool = False,
) -> SchemaImport:
    """A system file for `schema` and the proposal's review items; `tenant_column=None`:
    one organisation's data (`--no-tenancy`), every table `shared: true`."""
    async with conn.transaction(readonly=True):
        await conn.execute("SELECT set_config('search_path', quote_ident($1), true)", schema)
        relations = [
            r for r in await conn.fetch(RELATIONS_SQL, schema) if views or r["kind"] not in "vm"
        ]
        columns = await conn.fetch(COLUMNS_SQL, schema)
        primary_keys = {
            r["table_name"]: r["columns"] for r in await conn.fetch(PRIMARY_KEYS_SQL, schema)
        }
        types = await conn.fetch(TYPES_SQL, schema)
        indexes = await conn.fetch(INDEXES_SQL, schema)
        foreign_keys = await conn.fetch(FOREIGN_KEYS_SQL, schema)
        partitions = await conn.fetch(PARTITIONS_SQL, schema)
        unique = await unique_keys(conn, schema)
    screened = withhold_personal_data(relations, columns, types, indexes)
    relations, columns = screened.relations, screened.columns
    types, indexes = screened.types, screened.indexes
    if not relations:
        raise CatalogError(
            "IMPORT_SCHEMA_EMPTY",
            f"schema {schema!r} holds no tables to import; check --schema and the database "
            "DATABASE_URL (or --database-url) points at",
        )
    names = [r["table_name"] for r in relations]
    by_table: dict[str, list[Any]] = {name: [] for name in names}
    for row in columns:
        if row["table_name"] in by_table:
            by_table[row["table_name"]].append(row)
    ddl = [_type_ddl(t) for t in types]
    ddl += [
        _create_table(r, by_table[r["table_name"]], primary_keys.get(r["table_name"]))
        for r in relations
    ]
    ddl += [_unqualified_index(r["ddl"]) for r in indexes if r["table_name"] in by_table]
    keys = list(  # the same key declared on every partition is one key of the parent
        dict.fromkeys(
            _key(fk, schema, by_table) for fk in foreign_keys if fk["table_name"] in by_table
        )
    )
    joins = await propose_joins(
        conn,
        schema,
        {  # tables only: a view has no key to trust, a foreign table may be slow to read
            r["table_name"]: naming_columns(
                by_table[r["table_name"]],
                primary_keys.get(r["table_name"]),
                unique.get(r["table_name"], {}),
            )
            for r in relations
            if r["kind"] in "rp"
        },
        keys,
    )
    proposal = propose_tenancy(
        {n: tuple(c["column_name"] for c in by_table[n]) for n in names},
        keys + joins.tenancy_keys(),
        tenant_column,
        frozenset(r["table_name"] for r in relations if r["kind"] in "vm"),
    )
    agreement = (
        await measure_agreement(conn, schema, proposal, tenant_column) if tenant_column else {}
    )
    profile = await profile_schema(
        conn,
        schema,
        by_table,
        primary_keys,
        keys + joins.tenancy_keys(),
        proposal,
        tenant_column,
        [r["comment"] for r in [*relations, *columns] if r["comment"]],
        domains={t["quoted"]: t["base"] for t in types if t["kind"] == "d"},
    )
    header = {
        "system": system,
        "title": system,
        "purpose": "",
        "purpose_en": "",
        "schema": schema,
        "ddl": _Literal("\n".join(ddl) + "\n"),
    }
    text = "".join(f"# {withheld_comment(w)}\n" for w in screened.withheld if w.table is None)
    text += _dump(header) + "tables:\n"
    for relation in relations:
        name = relation["table_name"]
        entry = _table_entry(relation, by_table[name], proposal, tenant_column, profile)
        withheld = [w for w in screened.withheld if w.table == name]
        comments = table_comments(
            relation, proposal, agreement.get(name, []), withheld, joins.tenancy_keys()
        )
        text += comments + _indent(_dump({name: entry})) + _joins_text(name, keys, joins)
    folded: dict[str, list[str]] = {}
    for row in partitions:
        folded.setdefault(row["parent"], []).append(row["partition"])
    return SchemaImport(
        text=text,
        tables=tuple(names),
        tenancy=proposal,
        views=tuple(r["table_name"] for r in relations if r["kind"] in "vm"),
        partitions={k: tuple(v) for k, v in folded.items()},
        types=tuple(t["name"] for t in types),
        undescribed=tuple(
            f"{c['table_name']}.{c['column_name']}"
            for n in names
            for c in by_table[n]
            if not c["comment"]
        ),
        agreement=agreement,
        withheld=tuple(screened.withheld),
        joins=joins,
        profile=profile,
    )


def _key(row: Any, schema: str, by_table: dict[str, list[Any]]) -> Key:
    """A foreign key; a target in another schema keeps its qualified name (not imported)."""
    target = (
        row["target"]
        if row["target_schema"] == schema
        else f"{row['target_schema']}.{row['target']}"
    )
    not_null = {c["column_name"]: c["not_null"] for c in by_table[row["table_name"]]}
    return Key(
        row["table_name"],
        tuple(row["local"]),
        target,
        tuple(row["remote"]),
        all(not_null.get(c, False) for c in row["local"]),
    )


def _table_entry(
    relation: Any,
    columns: list[Any],
    proposal: TenancyProposal,
    tenant_column: str | None,
    profile: SchemaProfile,
) -> dict[str, Any]:
    name = relation["table_name"]
    entry = _described(relation["comment"], profile.tables.get(name, ""), profile.language)
    if name in proposal.roots:
        entry["tenant_column"] = tenant_column
    elif name in proposal.via:
        entry["tenant_via"] = {
            "parent": proposal.via[name].key.target,
            "columns": proposal.via[name].columns,
        }
    elif name in proposal.shared:
        entry["shared"] = True
    else:
        entry["tenant_column"] = None  # undecided: the loader refuses it until declared
    entry["synonyms"] = _synonyms(profile.tables.get(name, ""), profile.language)
    entry["columns"] = {
        c["column_name"]: _column_entry(c, profile.column(name, c["column_name"]), profile.language)
        for c in columns
    }
    return entry


def _joins_text(name: str, keys: list[Key], proposals: JoinProposals) -> str:
    """The table's `joins:`, its declared foreign keys then the joins proposed, each of these
    under a comment with its evidence (YAML cannot carry comments through a dump)."""
    items = [("", k) for k in keys if k.table == name and "." not in k.target]
    items += [
        (p.comment(), p.candidate.key()) for p in proposals.written if p.candidate.table == name
    ]
    if not items:
        return ""
    text = "joins:\n"
    for comment, key in items:
        join = {"to": key.target, "on": dict(zip(key.columns, key.target_columns, strict=True))}
        text += (f"# {comment}\n" if comment else "") + _dump_item(join)
    return _indent(_indent(text))


def _column_entry(column: Any, profiled: ColumnProfile, language: str) -> dict[str, Any]:
    entry = _described(column["comment"], profiled.words, language)
    entry["synonyms"] = _synonyms(profiled.words, language)
    if column["enum_values"]:
        entry["values"] = dict.fromkeys(column["enum_values"], "")  # meanings left to a person
    elif profiled.values:
        entry["values"] = dict.fromkeys(profiled.values, "")  # read from the data (profiling)
    if profiled.kind:
        entry["kind"] = profiled.kind
    return entry


def _described(comment: str | None, words: str, language: str) -> dict[str, Any]:
    """`description` from the database's comment; a name's words (`custJoinDt` → "cust join
    date") where there is none, in the field of the language they are in."""
    entry: dict[str, Any] = {"description": comment or "", "description_en": ""}
    field_name = "description_en" if language == "en" else "description"
    if words and not entry[field_name]:
        entry[field_name] = words
    return entry


def _synonyms(words: str, language: str) -> dict[str, list[str]]:
    """The name's words (when they say more than the name) as a synonym in their language."""
    synonyms: dict[str, list[str]] = {"pt": [], "en": []}
    if words:
        synonyms.setdefault(language, []).append(words)
    return synonyms


def _type_ddl(row: Any) -> str:
    """CREATE TYPE / CREATE DOMAIN for one of the schema's own types."""
    if row["kind"] == "e":
        labels = ", ".join("'" + label.replace("'", "''") + "'" for label in row["labels"])
        return f"CREATE TYPE {row['quoted']} AS ENUM ({labels});"
    if row["kind"] == "d":
        parts = [f"CREATE DOMAIN {row['quoted']} AS {row['base']}"]
        parts += ["NOT NULL"] if row["not_null"] else []
        parts += list(row["checks"] or ())
        return " ".join(parts) + ";"
    return f"CREATE TYPE {row['quoted']} AS ({', '.join(row['attributes'])});"


def _create_table(relation: Any, columns: list[Any], primary_key: list[str] | None) -> str:
    """CREATE TABLE text for one relation, names quoted as PostgreSQL's `quote_ident` does."""
    width = max(len(c["quoted"]) for c in columns)
    lines = []
    for c in columns:
        line = f"    {c['quoted'].ljust(width)}  {c['type']}"
        if c["generated"]:
            line += f" GENERATED ALWAYS AS ({c['generated']}) STORED"
        lines.append(line + (" NOT NULL" if c["not_null"] else ""))
    if primary_key:
        quoted = {c["column_name"]: c["quoted"] for c in columns}
        lines.append(f"    PRIMARY KEY ({', '.join(quoted[k] for k in primary_key)})")
    partition = f" PARTITION BY {relation['partition_key']}" if relation["kind"] == "p" else ""
    return f"CREATE TABLE {relation['quoted']} (\n" + ",\n".join(lines) + f"\n){partition};"


def _unqualified_index(definition: str) -> str:
    """`pg_get_indexdef` output without the schema (the file's `schema:` places the table);
    a partitioned table's `ON ONLY` becomes a plain index on the (folded) table."""
    statement = pglast.parse_sql(definition)[0].stmt
    # pg_get_indexdef writes one CREATE INDEX, which always names its table
    assert isinstance(statement, ast.IndexStmt) and statement.relation is not None
    statement.relation.schemaname = None
    statement.relation.inh = True
    return f"{RawStream()(statement)};"


class _Literal(str):
    """A string YAML writes as a `|` block (the DDL)."""


class _Dumper(yaml.SafeDumper):  # type: ignore[misc]  # PyYAML ships no type hints
    pass


_Dumper.add_representer(
    _Literal,
    lambda dumper, value: dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|"),
)


def _dump(document: dict[str, Any]) -> str:
    text: str = yaml.dump(document, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
    return text


def _dump_item(item: dict[str, Any]) -> str:
    """One list item (`- to: …`), for a list written item by item under comments."""
    text: str = yaml.dump([item], Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
    return text


def _indent(text: str) -> str:
    return "".join(f"  {line}" if line.strip() else line for line in text.splitlines(keepends=True))
