"""Layer 2: rewrite the tree so every tenant table is read through a tenant filter.

Passes, each `pass(statement, **needed) -> statement`, run in order by `guards.sql_guard`:

- `filter_tenant_tables`: `FROM orders o` becomes
  `FROM (SELECT * FROM public.orders WHERE orders.tenant_id = $1) AS o`
  in every scope (CTEs, subqueries, joins, set operations, LATERAL), so outer joins keep
  their meaning; shared tables are schema-qualified; CTE references are left alone.
  A table scoped through its parent (`tenant_via`) is restricted by a semi-join on the
  parent's own restriction, up the chain: `FROM order_lines l` becomes
  `FROM (SELECT * FROM public.order_lines WHERE (order_lines.order_id) IN
  (SELECT orders.id FROM public.orders WHERE orders.tenant_id = $1)) AS l`. A NULL key
  matches no parent, so such rows belong to nobody.
- `cap_rows`: `LIMIT n` on the outermost query, keeping a smaller constant limit.

`verify_filters` is the final check on the re-parsed output: every tenant table appears
only as the single FROM item of a filter subquery, and `$1` nowhere else.

The examples build a small policy inline; `parse_one` is `guards.validate.parse_one` and
`deparse` is pglast's `RawStream()` (tests/unit/guards/test_guard_doctests.py runs them).
"""

from __future__ import annotations

from pglast import ast
from pglast.enums.nodes import LimitOption
from pglast.enums.parsenodes import A_Expr_Kind, SetOperation
from pglast.enums.primnodes import CoercionForm, SubLinkType

from orquestra.guards.errors import GuardRejection
from orquestra.guards.table_policy import GuardPolicy, TablePolicy
from orquestra.guards.tree import iter_nodes, iter_relations, map_relations

TENANT_PARAM = 1


def filter_tenant_tables(statement: ast.SelectStmt, policy: GuardPolicy) -> ast.SelectStmt:
    """Wrap every tenant table reference in a tenant-filtered derived table.

    >>> policy = GuardPolicy({"orders": TablePolicy("orders", "public", "tenant_id")})
    >>> deparse(filter_tenant_tables(parse_one("SELECT * FROM orders o"), policy))
    'SELECT * FROM (SELECT * FROM public.orders WHERE orders.tenant_id = $1) AS o'
    """

    def hook(ref: ast.RangeVar, scope: frozenset[str]) -> ast.Node:
        if ref.schemaname is None and ref.relname in scope:
            return ref
        table = policy.lookup(ref.schemaname, ref.relname)
        if table is None:  # layer 1 rejects these first; fail closed regardless
            raise GuardRejection("GUARD_TABLE_NOT_ALLOWED", f"table {ref.relname} is not allowed")
        if not table.scoped:
            return ast.RangeVar(
                schemaname=table.schema,
                relname=table.name,
                inh=ref.inh,
                relpersistence="p",
                alias=ref.alias,
            )
        return ast.RangeSubselect(
            lateral=False,
            subquery=_tenant_filter(policy.chain(table.name), inh=ref.inh),
            alias=ref.alias or ast.Alias(aliasname=ref.relname),
        )

    map_relations(statement, hook)  # in place: only a bare table reference is replaced
    return statement


def cap_rows(statement: ast.SelectStmt, max_rows: int) -> ast.SelectStmt:
    """Limit the outermost query to `max_rows` rows (0 = no cap), keeping a smaller limit.

    >>> deparse(cap_rows(parse_one("SELECT 1 LIMIT 5"), 100))
    'SELECT 1 LIMIT 5'
    >>> deparse(cap_rows(parse_one("SELECT 1 LIMIT 500"), 100))
    'SELECT 1 LIMIT 100'
    """
    if max_rows <= 0:
        return statement
    current = statement.limitCount
    keeps = (
        isinstance(current, ast.A_Const)
        and isinstance(current.val, ast.Integer)
        and current.val.ival is not None
        and 0 <= current.val.ival <= max_rows
        and statement.limitOption != LimitOption.LIMIT_OPTION_WITH_TIES
    )
    if not keeps:
        statement.limitCount = ast.A_Const(isnull=False, val=ast.Integer(ival=max_rows))
        statement.limitOption = LimitOption.LIMIT_OPTION_COUNT
    return statement


def verify_filters(statement: ast.SelectStmt, policy: GuardPolicy) -> bool:
    """Fail unless every tenant table is read only through its tenant filter subquery
    (`= $1`, or the semi-join chain up to a `= $1` for a table scoped through parents).

    Returns whether the statement uses the tenant parameter at all.

    >>> policy = GuardPolicy({"orders": TablePolicy("orders", "public", "tenant_id")})
    >>> sql = "SELECT * FROM (SELECT * FROM public.orders WHERE orders.tenant_id = $1) AS o"
    >>> verify_filters(parse_one(sql), policy)
    True
    >>> try:
    ...     verify_filters(parse_one("SELECT * FROM public.orders"), policy)
    ... except GuardRejection as refused:
    ...     print(refused)
    GUARD_INTERNAL: orders escaped the tenant filter
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
        if table is None or (table.scoped and id(ref) not in guarded):
            raise GuardRejection("GUARD_INTERNAL", f"{ref.relname} escaped the tenant filter")
    return bool(params)


def _tenant_filter(chain: tuple[TablePolicy, ...], *, inh: bool | None) -> ast.SelectStmt:
    """`SELECT * FROM t WHERE <t's restriction>` for the first table of `chain`."""
    table = chain[0]
    return _select(
        (ast.ResTarget(val=ast.ColumnRef(fields=(ast.A_Star(),))),),
        ast.RangeVar(schemaname=table.schema, relname=table.name, inh=inh, relpersistence="p"),
        _restriction(chain),
    )


def _restriction(chain: tuple[TablePolicy, ...]) -> ast.Node:
    """`t.tenant = $1` for a tenant-column table; for a `tenant_via` table, its key columns
    `IN` the matching columns of the parent's rows that pass the parent's restriction."""
    table = chain[0]
    if table.via is None:
        assert table.tenant_column is not None  # a chain starts at a scoped table
        return ast.A_Expr(
            kind=A_Expr_Kind.AEXPR_OP,
            name=(ast.String(sval="="),),
            lexpr=_column(table.name, table.tenant_column),
            rexpr=ast.ParamRef(number=TENANT_PARAM),
        )
    parent = chain[1]
    keys = [_column(table.name, child) for child, _ in table.via.columns]
    parent_keys = tuple(
        ast.ResTarget(val=_column(parent.name, column)) for _, column in table.via.columns
    )
    return ast.SubLink(
        subLinkType=SubLinkType.ANY_SUBLINK,
        subLinkId=0,
        testexpr=keys[0]
        if len(keys) == 1
        else ast.RowExpr(args=tuple(keys), row_format=CoercionForm.COERCE_IMPLICIT_CAST),
        subselect=_select(
            parent_keys,
            ast.RangeVar(
                schemaname=parent.schema, relname=parent.name, inh=True, relpersistence="p"
            ),
            _restriction(chain[1:]),
        ),
    )


def _select(
    targets: tuple[ast.ResTarget, ...], source: ast.RangeVar, where: ast.Node
) -> ast.SelectStmt:
    return ast.SelectStmt(
        targetList=targets,
        fromClause=(source,),
        whereClause=where,
        limitOption=LimitOption.LIMIT_OPTION_DEFAULT,
        op=SetOperation.SETOP_NONE,
    )


def _column(table: str, column: str) -> ast.ColumnRef:
    return ast.ColumnRef(fields=(ast.String(sval=table), ast.String(sval=column)))


def _filter_parts(node: ast.SelectStmt, policy: GuardPolicy) -> tuple[int, ...]:
    """ids of the tables and parameter of `node` if it is exactly a tenant filter subquery."""
    target = _plain_select(node, policy)
    targets = node.targetList or ()
    if target is None or not isinstance(targets[0].val, ast.ColumnRef):
        return ()
    fields = targets[0].val.fields or ()
    if not isinstance(fields[0], ast.A_Star) or len(targets) != 1:
        return ()
    return _restriction_parts(node, target, policy)


def _plain_select(node: ast.SelectStmt, policy: GuardPolicy) -> TablePolicy | None:
    """The scoped table `node` reads when it is a bare `SELECT … FROM schema.t WHERE …`."""
    if node.op or node.withClause or node.groupClause or node.havingClause or node.limitCount:
        return None
    if node.distinctClause or node.sortClause or node.windowClause or node.limitOffset:
        return None
    sources = node.fromClause or ()
    if len(sources) != 1 or not node.targetList:
        return None
    ref = sources[0]
    if not isinstance(ref, ast.RangeVar) or ref.schemaname is None or ref.alias is not None:
        return None
    table = policy.lookup(ref.schemaname, ref.relname)
    return table if table is not None and table.scoped else None


def _restriction_parts(
    node: ast.SelectStmt, table: TablePolicy, policy: GuardPolicy
) -> tuple[int, ...]:
    """ids of every table and the parameter in `node`'s restriction of `table`, if the
    WHERE is exactly that restriction (recursively up the parent chain), else ()."""
    assert node.fromClause  # a plain select (see _plain_select) reads one table
    where, ref = node.whereClause, node.fromClause[0]
    if table.via is None:
        if (
            isinstance(where, ast.A_Expr)
            and where.kind == A_Expr_Kind.AEXPR_OP
            and [n.sval for n in where.name or ()] == ["="]
            and _is_column(where.lexpr, table.name, table.tenant_column)
            and isinstance(where.rexpr, ast.ParamRef)
            and where.rexpr.number == TENANT_PARAM
        ):
            return (id(ref), id(where.rexpr))
        return ()
    if not isinstance(where, ast.SubLink) or where.subLinkType != SubLinkType.ANY_SUBLINK:
        return ()
    if where.operName:
        return ()
    inner = where.subselect
    if not isinstance(inner, ast.SelectStmt):
        return ()
    parent = _plain_select(inner, policy)
    if parent is None or parent.name != table.via.parent:
        return ()
    testexpr = where.testexpr
    keys = (testexpr.args or ()) if isinstance(testexpr, ast.RowExpr) else (testexpr,)
    targets = inner.targetList or ()
    pairs = table.via.columns
    if len(keys) != len(pairs) or len(targets) != len(pairs):
        return ()
    for key, target, (child, column) in zip(keys, targets, pairs, strict=True):
        if not _is_column(key, table.name, child) or target.name is not None:
            return ()
        if not _is_column(target.val, parent.name, column):
            return ()
    above = _restriction_parts(inner, parent, policy)
    return (id(ref), *above) if above else ()


def _is_column(node: object, table: str, column: str | None) -> bool:
    if not isinstance(node, ast.ColumnRef):
        return False
    return [getattr(f, "sval", None) for f in node.fields or ()] == [table, column]
