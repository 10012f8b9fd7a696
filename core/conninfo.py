"""A database setting in either form libpq accepts, as the URL asyncpg reads.

libpq (and so `psql`, psycopg and most tools) takes a connection string as a URL
(`postgresql://me:secret@db.lan:5432/shop`) or as `key=value` pairs
(`host=/var/run/postgresql dbname=shop user=me`); asyncpg reads URLs only. `as_url` turns
pairs into the equivalent URL, read by libpq's own parser (psycopg's `conninfo_to_dict`, so
quoting, escapes and keywords are libpq's), once, where the settings are read; every other
part of Orquestra then sees a URL. What cannot be honoured is `DATABASE_URL_INVALID`, with
the forms that are accepted, never a driver's exception.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

from psycopg import ProgrammingError, pq
from psycopg.conninfo import conninfo_to_dict

from orquestra.core.errors import OrquestraError

URL_SCHEMES = ("postgresql://", "postgres://")
DRIVER_KEYWORDS = (
    "host",
    "port",
    "dbname",
    "user",
    "password",
    "passfile",
    "service",
    "sslmode",
    "sslcert",
    "sslkey",
    "sslrootcert",
    "sslcrl",
    "sslpassword",
    "sslnegotiation",
    "ssl_min_protocol_version",
    "ssl_max_protocol_version",
    "target_session_attrs",
    "krbsrvname",
    "gsslib",
    "options",
    "application_name",
)
"""libpq keywords Orquestra's driver (asyncpg) honours: the ones its URL parser reads, and
`options` and `application_name`, which it sends to the server as startup parameters."""
FORMS = (
    "a URL (postgresql://USER:PASSWORD@HOST:PORT/DBNAME; a Unix socket as"
    " postgresql://USER@/DBNAME?host=/run/postgresql) or libpq's key=value pairs"
    " (host=HOST port=PORT dbname=DBNAME user=USER password='...'; a value with spaces or"
    " quotes in single quotes, \\' and \\\\ escaped)"
)


class DatabaseUrlInvalid(OrquestraError):
    """A database setting that is neither form libpq accepts, or asks for what the driver
    cannot do; the message names the setting and the forms accepted."""

    code = "DATABASE_URL_INVALID"


def as_url(value: str, setting: str = "DATABASE_URL") -> str:
    """`value` as a URL: a URL as it is, `key=value` pairs as the same connection's URL.

    >>> as_url("host=/tmp/pg dbname=shop user=me port=5433")
    'postgresql://me@/shop?host=%2Ftmp%2Fpg&port=5433'
    >>> as_url(r"host=db.lan dbname='my shop' user=me password='it\\'s' sslmode=require")
    'postgresql://me:it%27s@db.lan/my%20shop?sslmode=require'
    >>> as_url("postgresql://me@db.lan/shop")
    'postgresql://me@db.lan/shop'
    >>> try:
    ...     as_url("db.lan:5432/shop")
    ... except DatabaseUrlInvalid as refused:
    ...     print(refused.message[:80])
    DATABASE_URL is not a connection string libpq reads (missing "=" after "db.lan:5
    """
    text = value.strip()
    if text.lower().startswith(URL_SCHEMES):
        _check_keywords((key for key, _ in parse_qsl(urlsplit(text).query)), setting)
        return text
    try:
        pairs = conninfo_to_dict(text)
    except ProgrammingError as exc:
        reason = " ".join(str(exc).split())
        raise DatabaseUrlInvalid(
            f"{setting} is not a connection string libpq reads ({reason}). It takes {FORMS}."
        ) from None
    values = {key: str(v) for key, v in pairs.items() if v not in (None, "")}
    _check_keywords(values, setting)
    return url_from_pairs(values)


def url_from_pairs(pairs: dict[str, str]) -> str:
    """The URL of libpq's keyword/value pairs: user, password, one network host and port in
    the authority; a socket folder, several hosts and every other keyword in the query.

    >>> url_from_pairs({"host": "::1", "port": "5432", "dbname": "shop", "user": "me"})
    'postgresql://me@[::1]:5432/shop'
    >>> url_from_pairs({"host": "a,b", "port": "5432,5433", "dbname": "shop"})
    'postgresql:///shop?host=a%2Cb&port=5432%2C5433'
    """
    rest = dict(pairs)
    user, password = rest.pop("user", ""), rest.pop("password", None)
    auth = quote(user, safe="") + (f":{quote(password, safe='')}" if password is not None else "")
    host = rest.get("host", "")
    network = host and not host.startswith("/") and "," not in host + rest.get("port", "")
    authority = ""
    if network:
        del rest["host"]
        authority = f"[{host}]" if ":" in host else quote(host, safe="")
        if "port" in rest:
            authority += f":{rest.pop('port')}"
    netloc = f"{auth}@{authority}" if auth else authority
    path = "/" + quote(rest.pop("dbname", ""), safe="")
    query = urlencode(rest, quote_via=quote, safe="")
    return f"postgresql://{netloc}{path}" + (f"?{query}" if query else "")


def _check_keywords(keywords: Iterable[str], setting: str) -> None:
    """Refuse a libpq keyword the driver would not honour (it would pass it to the server as
    a setting, and the server would refuse to start the session)."""
    known = {option.keyword.decode() for option in pq.Conninfo.get_defaults()}
    for keyword in keywords:
        if keyword in known and keyword not in DRIVER_KEYWORDS:
            raise DatabaseUrlInvalid(
                f"{setting} sets {keyword}, a libpq keyword Orquestra's driver (asyncpg) does"
                f" not apply; leave it out. It reads {', '.join(DRIVER_KEYWORDS)}, in {FORMS}."
            )
