"""The tenant guard: three independent layers that make cross-tenant reads and writes impossible.

1. `validate`: parse with PostgreSQL's own parser (pglast) and allowlist, failing closed.
2. `rewrite`: every tenant table reference becomes a filtered derived table, tenant bound as $1.
3. `rls_setup` + `tenant_query`: least-privilege role, forced row-level security, read-only
   transaction, `SET LOCAL app.tenant_id`, statement timeout.
"""

from orquestra.guards.errors import GuardRejection
from orquestra.guards.sql_guard import GuardedSQL, guard_sql
from orquestra.guards.table_policy import GuardPolicy, TablePolicy

__all__ = ["GuardPolicy", "GuardRejection", "GuardedSQL", "TablePolicy", "guard_sql"]
