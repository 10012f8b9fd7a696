"""What the offline model makes of a question, on either sample deployment, for the tests of
its readings: parsed and built against the deployment's catalog on the demo's today, and
accepted by the guard (so a test never asserts on SQL that could not run); and that SQL with
its table aliases resolved to their tables (`without_aliases`), so that a reading's fixtures
name the tables and columns it reads, not the aliases the SQL writer happens to pick."""

from __future__ import annotations

from datetime import date

import sqlglot
from sqlglot import exp

from orquestra.core.deployment import load_deployment
from orquestra.ddl_catalog import load_catalog
from orquestra.guards import GuardPolicy, guard_sql
from orquestra.offline.conversation import route
from orquestra.offline.intent import Intent
from orquestra.offline.lexicon import lexicon_for
from orquestra.offline.parser import parse
from orquestra.offline.sql import build_sql

TODAY = date(2026, 6, 30)
DEPLOYMENTS = ("logistics", "clinics")
CATALOGS = {name: load_catalog(load_deployment(name).catalog_dir) for name in DEPLOYMENTS}


def intent_of(deployment: str, question: str) -> Intent:
    """What the parser reads in `question` on `deployment`, on the demo's today."""
    catalog = CATALOGS[deployment]
    return parse(question, catalog, lexicon_for(catalog), TODAY)


def sql_for(deployment: str, question: str) -> str:
    """The SQL for `question` on `deployment`, on one line, once the guard has accepted it."""
    catalog = CATALOGS[deployment]
    sql = " ".join(build_sql(intent_of(deployment, question), catalog, TODAY.isoformat()).split())
    guard_sql(sql, GuardPolicy.from_catalog(catalog), "101")
    return sql


def route_of(deployment: str, question: str) -> str:
    """The route the offline router gives `question` on `deployment`."""
    catalog = CATALOGS[deployment]
    return str(route(question, catalog, lexicon_for(catalog), TODAY)["route"])


def without_aliases(sql: str) -> str:
    """`sql` with each table alias resolved to its table, read with sqlglot (PostgreSQL):
    `p.data_pedido` is written `pedidos.data_pedido` and `FROM pedidos AS p` is `FROM
    pedidos`; the rest of the text is left as it was. A column's alias is looked up in its
    own SELECT, then in the SELECTs around it (a correlated subquery); an alias of a table
    that one SELECT reads twice, or of a subquery, is kept.

    >>> without_aliases("SELECT c.nome FROM pedidos AS p JOIN clientes AS c USING (cod_cliente)")
    'SELECT clientes.nome FROM pedidos JOIN clientes USING (cod_cliente)'
    >>> without_aliases("SELECT count(*) FROM cargas AS c WHERE c.data_entrega IS NULL")
    'SELECT count(*) FROM cargas WHERE cargas.data_entrega IS NULL'
    """
    tree = sqlglot.parse_one(sql, read="postgres")
    edits: list[tuple[int, int, str]] = []
    aliases: dict[int, dict[str, str]] = {}  # per SELECT (by id): alias -> table
    for select in tree.find_all(exp.Select):
        tables = _tables_read(select)
        names = [table.name for table in tables]
        own: dict[str, str] = {}
        for table in tables:
            alias = table.args.get("alias")
            if not table.alias or names.count(table.name) > 1 or alias is None:
                continue
            own[table.alias] = table.name
            start, end = table.this.meta["end"] + 1, alias.this.meta["end"] + 1
            said = sql[start:end].split()
            if said[-1] != table.alias or [w.upper() for w in said[:-1]] not in ([], ["AS"]):
                raise ValueError(f"cannot read the alias of {table.name} in {sql}")
            edits.append((start, end, ""))
        aliases[id(select)] = own
    for column in tree.find_all(exp.Column):
        qualifier = column.args.get("table")
        if not isinstance(qualifier, exp.Identifier):
            continue
        for scope in _selects_around(column):
            table = aliases.get(id(scope), {}).get(qualifier.name)
            if table is not None:
                edits.append((qualifier.meta["start"], qualifier.meta["end"] + 1, table))
                break
    for start, end, text in sorted(edits, reverse=True):
        sql = sql[:start] + text + sql[end:]
    return sql


def _tables_read(select: exp.Select) -> list[exp.Table]:
    """The tables a SELECT reads itself: in its FROM and its JOINs (not in a subquery)."""
    sources = [select.args.get("from_"), *(select.args.get("joins") or [])]
    return [s.this for s in sources if s is not None and isinstance(s.this, exp.Table)]


def _selects_around(node: exp.Expression) -> list[exp.Select]:
    found = []
    parent = node.parent
    while parent is not None:
        if isinstance(parent, exp.Select):
            found.append(parent)
        parent = parent.parent
    return found
