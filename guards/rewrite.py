"""Layer 2: rewrite the tree so every tenant table is read through a tenant filter.

Passes, each `pass(statement, **needed) -> statement`, run in order by `guards.sql_guard`:

- `filter_tenant_tables`: `FROM notas_fiscais n` becomes
  `FROM (SELECT * FROM public.notas_fiscais WHERE notas_fiscais.cod_fornecedor = $1) AS n`
  in every scope (CTEs, subqueries, joins, set operations, LATERAL), so outer joins keep
  their meaning; shared tables are schema-qualified; CTE references are left alone.
- `cap_rows`: `LIMIT n` on the outermost query, keeping a smaller constant limit.

`verify_filters` is the final check on the re-parsed output: every tenant table appears
only as the single FROM item of a filter subquery, and `$1` nowhere else.
"""

from __future__ import annotations

from pglast import ast
from pglast.enums.nodes import LimitOption
from pglast.enums.parsenodes import A_Expr_Kind, SetOperation

from guards.errors import GuardRejection
from guards.policy import GuardPolicy, TablePolicy
from guards.tree import iter_nodes, iter_relations, map_relations

TENANT_PARAM = 1


def filter_tenant_tables(statement: ast.SelectStmt, policy: GuardPolicy) -> ast.SelectStmt:
    """Wrap every tenant table reference in a tenant-filtered derived table.

    >>> deparse(filter_tenant_tables(parse_one("SELECT * FROM pedidos p"), policy))
    'SELECT * FROM (SELECT * FROM public.pedidos WHERE pedidos.cod_fornecedor = $1) AS p'
    """

    def hook(ref: ast.RangeVar, scope: frozenset[str]) -> ast.Node:
        if ref.schemaname is None and ref.relname in scope:
            return ref
        table = policy.lookup(ref.schemaname, ref.relname)
        if table is None:  # layer 1 rejects these first; fail closed regardless
            raise GuardRejection("GUARD_TABLE_NOT_ALLOWED", f"table {ref.relname} is not allowed")
        if table.tenant_column is None:
            return ast.RangeVar(
                schemaname=table.schema,
                relname=table.name,
                inh=ref.inh,
                relpersistence="p",
                alias=ref.alias,
            )
        return ast.RangeSubselect(
            lateral=False,
            subquery=_tenant_filter(table, inh=ref.inh),
            alias=ref.alias or ast.Alias(aliasname=ref.relname),
        )

    return map_relations(statement, hook)  # type: ignore[return-value]


def cap_rows(statement: ast.SelectStmt, max_rows: int) -> ast.SelectStmt:
    """Limit the outermost query to `max_rows` rows (0 = no cap), keeping a smaller limit.

    >>> deparse(cap_rows(parse_one("SELECT 1 LIMIT 5"), 100))
    'SELECT 1 LIMIT 5'
    """
    if max_rows <= 0:
        return statement
    current = statement.limitCount
    keeps = (
        isinstance(current, ast.A_Const)
        and isinstance(current.val, ast.Integer)
        and 0 <= current.val.ival <= max_rows
        and statement.limitOption != LimitOption.LIMIT_OPTION_WITH_TIES
    )
    if not keeps:
        statement.limitCount = ast.A_Const(isnull=False, val=ast.Integer(ival=max_rows))
        statement.limitOption = LimitOption.LIMIT_OPTION_COUNT
    return statement


def verify_filters(statement: ast.SelectStmt, policy: GuardPolicy) -> bool:
    """Fail unless every tenant table is read only through a `= $1` filter subquery.

    Returns whether the statement uses the tenant parameter at all.
    """
    guarded: set[int] = set()
    params: list[ast.ParamRef] = []
    for node in iter_nodes(statement):
        if isinstance(node, ast.SelectStmt):
            guarded.update(_filter_parts(node, policy))
        elif isinstance(node, ast.ParamRef):
            params.append(node)
    if any(id(param) not in guarded for param in params):
        raise GuardRejection("GUARD_INTERNAL", "a parameter escaped the tenant filter")
    for ref, scope in iter_relations(statement):
        if ref.schemaname is None:
            if ref.relname not in scope:
                raise GuardRejection("GUARD_INTERNAL", f"{ref.relname} was left unqualified")
            continue
        table = policy.lookup(ref.schemaname, ref.relname)
        if table is None or (table.tenant_column and id(ref) not in guarded):
            raise GuardRejection("GUARD_INTERNAL", f"{ref.relname} escaped the tenant filter")
    return bool(params)


def _tenant_filter(table: TablePolicy, *, inh: bool) -> ast.SelectStmt:
    column = ast.ColumnRef(
        fields=(ast.String(sval=table.name), ast.String(sval=table.tenant_column))
    )
    return ast.SelectStmt(
        targetList=(ast.ResTarget(val=ast.ColumnRef(fields=(ast.A_Star(),))),),
        fromClause=(
            ast.RangeVar(schemaname=table.schema, relname=table.name, inh=inh, relpersistence="p"),
        ),
        whereClause=ast.A_Expr(
            kind=A_Expr_Kind.AEXPR_OP,
            name=(ast.String(sval="="),),
            lexpr=column,
            rexpr=ast.ParamRef(number=TENANT_PARAM),
        ),
        limitOption=LimitOption.LIMIT_OPTION_DEFAULT,
        op=SetOperation.SETOP_NONE,
    )


def _filter_parts(node: ast.SelectStmt, policy: GuardPolicy) -> tuple[int, ...]:
    """ids of the table and parameter of `node` if it is exactly a tenant filter subquery."""
    if node.op or node.withClause or node.groupClause or node.havingClause or node.limitCount:
        return ()
    if node.distinctClause or node.sortClause or node.windowClause or node.limitOffset:
        return ()
    if len(node.fromClause or ()) != 1 or len(node.targetList or ()) != 1:
        return ()
    ref, where = node.fromClause[0], node.whereClause
    if not isinstance(ref, ast.RangeVar) or ref.schemaname is None:
        return ()
    table = policy.lookup(ref.schemaname, ref.relname)
    if table is None or table.tenant_column is None or not isinstance(where, ast.A_Expr):
        return ()
    column = where.lexpr
    matches = (
        where.kind == A_Expr_Kind.AEXPR_OP
        and [n.sval for n in where.name] == ["="]
        and isinstance(column, ast.ColumnRef)
        and [getattr(f, "sval", None) for f in column.fields] == [table.name, table.tenant_column]
        and isinstance(where.rexpr, ast.ParamRef)
        and where.rexpr.number == TENANT_PARAM
    )
    return (id(ref), id(where.rexpr)) if matches else ()
