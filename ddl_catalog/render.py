"""The schema text the SQL writer sees: DDL, descriptions, enumerations, joins, terms.

Only the selected tables are rendered (see `selection.py`), with the glossary terms involved;
`render_schema(catalog, catalog.tables)` renders everything (to measure what selection saves).
"""

from __future__ import annotations

from collections.abc import Iterable

from orquestra.ddl_catalog.model import Catalog, GlossaryTerm, Table


def render_schema(
    catalog: Catalog,
    tables: Iterable[str],
    terms: Iterable[GlossaryTerm] = (),
    today: str | None = None,
) -> str:
    """Prompt text for `tables` (in catalog order) and `terms` (`{today}` filled when given)."""
    wanted = set(tables)
    blocks = []
    for system in catalog.systems:
        chosen = [catalog.table(name) for name in system.tables if name in wanted]
        if not chosen:
            continue
        blocks.append(f"-- System {system.name}: {system.purpose}")
        blocks.extend(render_table(table) for table in chosen)
    terms = list(terms)
    if terms:
        blocks.append("-- Business terms (use these definitions):")
        blocks.extend(render_term(term) for term in terms)
    text = "\n\n".join(blocks)
    return text.replace("{today}", f"DATE '{today}'") if today else text


def render_table(table: Table) -> str:
    lines = [f"-- {table.meta.description}".rstrip()]
    if table.shared:
        lines.append("-- Shared by all tenants.")
    elif table.tenant_via:
        via = table.tenant_via
        keys = ", ".join(
            f"{child} = {via.parent}.{parent}" for child, parent in via.columns.items()
        )
        lines.append(f"-- Each row belongs to its {via.parent} row ({keys}).")
    lines.append(f"CREATE TABLE {table.name} (")
    for index, column in enumerate(table.columns):
        comma = "," if index < len(table.columns) - 1 or table.primary_key else ""
        note = column.meta.description
        if column.meta.values:
            note += " Values: " + "; ".join(
                f"{k} = {v}"
                + (
                    f" ({', '.join(column.meta.value_synonyms[k])})"
                    if column.meta.value_synonyms.get(k)
                    else ""
                )
                for k, v in column.meta.values.items()
            )
        if column.meta.unit:
            note += f" Unit: {column.meta.unit}."
        null = " NOT NULL" if column.not_null else ""
        lines.append(f"    {column.name} {column.type_sql}{null}{comma}  -- {note.strip()}")
    if table.primary_key:
        lines.append(f"    PRIMARY KEY ({', '.join(table.primary_key)})")
    lines.append(");")
    for join in table.meta.joins:
        keys = " AND ".join(f"{table.name}.{a} = {join.to}.{b}" for a, b in join.on.items())
        lines.append(f"-- join {join.to}: {keys}")
    return "\n".join(lines)


def render_term(term: GlossaryTerm) -> str:
    text = f"-- {term.term}: {term.definition}"
    metric = term.metric
    if metric is not None:
        where = f" WHERE {metric.filter}" if metric.filter else ""
        when = f", placed in time by {metric.date_column}" if metric.date_column else ""
        better = f"; {metric.better} is better" if metric.better else ""
        now = "; a balance: 'today'/'now' is its value now" if metric.snapshot else ""
        source = f"SELECT {metric.expression} FROM {metric.table}{where}"
        text += f"\n--   metric: {source}{when}{better}{now}"
    return text
