"""Layer 3 at query time: run one statement as the tenant, read-only, bounded in time and rows.

Every query runs in its own read-only transaction that first sets `app.tenant_id` (what the
row-level security policies read) and `statement_timeout` with `SET LOCAL`, so nothing
outlives the transaction. The statement goes through the extended protocol (prepared), so
stacked statements cannot run, and a client-side timeout backs the server's. Errors come back
as `QueryError` with a code; the PostgreSQL message is kept for the fixer.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import asyncpg
from asyncpg.types import Type

from orquestra.core.errors import OrquestraError
from orquestra.core.limits import ExecutionLimits

TENANT_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
TIMEZONE_PATTERN = re.compile(r"^[A-Za-z0-9_/+-]{1,64}$")
INTEGER_TYPES = {"int2", "int4", "int8"}
SQLSTATE_CODES = {
    "57014": "QUERY_TIMEOUT",
    "42501": "PERMISSION_DENIED",
    "25006": "READ_ONLY_VIOLATION",
    "0A000": "NOT_SUPPORTED",
}


class QueryError(OrquestraError):
    """A query failed: `code` for people and metrics, `detail` (PostgreSQL's words) for fixing."""

    def __init__(self, code: str, message: str, *, detail: str = "", sqlstate: str = "") -> None:
        super().__init__(code, message)
        self.detail = detail
        self.sqlstate = sqlstate


@dataclass(frozen=True)
class QueryResult:
    """Rows of one query, at most `row_cap` of them."""

    columns: list[str]
    rows: list[tuple[Any, ...]]
    truncated: bool
    """True when the query had more rows than the cap."""
    ms: float

    @property
    def row_count(self) -> int:
        return len(self.rows)


async def run_as_tenant(
    conn: asyncpg.Connection, sql: str, params: list[str], *, tenant: str, limits: ExecutionLimits
) -> QueryResult:
    """Run `sql` for `tenant` in a read-only transaction; at most `limits.row_cap` rows."""
    if not TENANT_PATTERN.match(tenant):
        raise QueryError("TENANT_INVALID", "the tenant identifier is not valid")
    if not TIMEZONE_PATTERN.match(limits.timezone):
        raise QueryError("QUERY_ERROR", f"time zone {limits.timezone!r} is not valid")
    started = time.perf_counter()
    timeout = limits.client_timeout_s
    try:
        async with conn.transaction(readonly=True):
            await conn.execute(
                f"SET LOCAL app.tenant_id = '{tenant}'; "
                f"SET LOCAL statement_timeout = {int(limits.statement_timeout_ms)}; "
                f"SET LOCAL TimeZone = '{limits.timezone}'"
            )
            statement = await conn.prepare(sql, timeout=timeout)
            args = _bind(params, statement.get_parameters())
            if limits.row_cap > 0 and statement.get_attributes():
                cursor = await statement.cursor(*args, timeout=timeout)
                rows = await cursor.fetch(limits.row_cap + 1, timeout=timeout)
            else:
                rows = await statement.fetch(*args, timeout=timeout)
    except TimeoutError:
        raise QueryError("QUERY_TIMEOUT", "the query took too long and was cancelled") from None
    except (
        asyncpg.PostgresConnectionError,
        asyncpg.exceptions.AdminShutdownError,
        asyncpg.exceptions.CannotConnectNowError,
    ) as exc:
        # Transient: the connection went away. The caller may retry on a fresh connection.
        raise ConnectionError(f"database connection lost: {exc}") from exc
    except asyncpg.PostgresError as exc:
        raise _query_error(exc) from None
    except asyncpg.InterfaceError as exc:  # e.g. COPY through the extended protocol
        if conn.is_closed():  # not the statement: the connection died under it
            raise ConnectionError(f"database connection lost: {exc}") from exc
        raise QueryError("QUERY_ERROR", "the statement cannot run here", detail=str(exc)) from None
    columns = [attribute.name for attribute in statement.get_attributes()]
    truncated = 0 < limits.row_cap < len(rows)
    kept = [tuple(record) for record in (rows[: limits.row_cap] if truncated else rows)]
    return QueryResult(columns, kept, truncated, (time.perf_counter() - started) * 1000)


def _bind(params: list[str], types: tuple[Type, ...]) -> list[object]:
    """Convert the tenant (text) to the parameter type PostgreSQL inferred for $1."""
    if len(params) != len(types):
        raise QueryError(
            "QUERY_ERROR", f"the query expects {len(types)} parameters, got {len(params)}"
        )
    out: list[object] = []
    for value, kind in zip(params, types, strict=True):
        if kind.name in INTEGER_TYPES:
            out.append(int(value))
        elif kind.name == "numeric":
            out.append(Decimal(value))
        else:
            out.append(value)
    return out


def _query_error(exc: asyncpg.PostgresError) -> QueryError:
    sqlstate = getattr(exc, "sqlstate", "") or ""
    code = SQLSTATE_CODES.get(sqlstate, "QUERY_ERROR")
    messages = {
        "QUERY_TIMEOUT": "the query took too long and was cancelled",
        "PERMISSION_DENIED": "the query needs a privilege the agent does not have",
        "READ_ONLY_VIOLATION": "the query tried to change data; the agent only reads",
    }
    detail = str(exc)
    if getattr(exc, "hint", None):
        detail += f" (hint: {exc.hint})"
    return QueryError(
        code,
        messages.get(code, f"the database rejected the query: {exc}"),
        detail=detail,
        sqlstate=sqlstate,
    )
