"""`DATABASE_URL` in libpq's key=value form: turned into the URL of the same connection, as
libpq itself reads it back (quoting, escapes, sockets, several hosts), and every form that
cannot be honoured refused by name."""

from __future__ import annotations

import pytest
from psycopg.conninfo import conninfo_to_dict

from orquestra.core.conninfo import DatabaseUrlInvalid, as_url
from orquestra.core.database import agent_url, describe, state_url, with_database, with_user
from orquestra.core.settings import Settings

PAIRS = {
    "socket": "host=/tmp/pg dbname=shop user=me",
    "socket and port": "host=/var/run/postgresql port=5433 dbname=shop user=me",
    "network": "host=db.example.com port=5432 dbname=shop user=me password=secret",
    "quoted value": "host=db.example.com dbname='my shop' user='me too'",
    "escaped quote": r"host=db.example.com dbname=shop user=me password='it\'s'",
    "escaped backslash": r"host=db.example.com dbname=shop user=me password='a\\b'",
    "URL characters": "host=db.example.com dbname=shop user=me password='p@ss:w/rd?#&=%'",
    "spaces around =": "host = db.example.com   dbname =shop user= me",
    "IPv6": "host=::1 port=5432 dbname=shop user=me",
    "several hosts": "host=a.example.com,b.example.com port=5432,5433 dbname=shop",
    "no host": "dbname=shop user=me",
    "driver settings": "host=/tmp/pg dbname=shop sslmode=disable application_name='my app'",
    "server options": "host=/tmp/pg dbname=shop options='-c search_path=sales,public'",
}


@pytest.mark.parametrize("pairs", PAIRS.values(), ids=PAIRS.keys())
def test_pairs_become_the_url_libpq_reads_as_the_same_connection(pairs: str) -> None:
    url = as_url(pairs)
    assert url.startswith("postgresql://")
    assert conninfo_to_dict(url) == conninfo_to_dict(pairs)
    assert as_url(url) == url  # a URL stays as it is


def test_a_url_is_kept_as_written() -> None:
    for url in ("postgresql://me:pw@db:5432/shop", "postgres://me@/shop?host=/tmp/pg"):
        assert as_url(url) == url


def test_a_socket_stays_a_socket_through_the_derived_urls() -> None:
    url = as_url("host=/tmp/pg dbname=shop user=me password='a b'")
    assert describe(url) == "/tmp/pg/shop"
    assert conninfo_to_dict(with_database(url, "other")) == {
        "host": "/tmp/pg",
        "dbname": "other",
        "user": "me",
        "password": "a b",
    }
    assert conninfo_to_dict(with_user(url, "orquestra_agent")) == {
        "host": "/tmp/pg",
        "dbname": "shop",
        "user": "orquestra_agent",
    }


NOT_ACCEPTED = {
    "host and path": ("db.example.com:5432/shop", 'missing "="'),
    "another scheme": ("mysql://db.example.com/shop", 'missing "="'),
    "unknown keyword": ("host=/tmp/pg dbnmae=shop", 'invalid connection option "dbnmae"'),
    "unterminated quote": ("host=/tmp/pg dbname='shop", "unterminated quoted string"),
    "keyword asyncpg ignores": ("host=/tmp/pg dbname=shop connect_timeout=5", "connect_timeout"),
    "same in a URL": ("postgresql://me@db/shop?hostaddr=10.0.0.1", "hostaddr"),
}


@pytest.mark.parametrize(("value", "reason"), NOT_ACCEPTED.values(), ids=NOT_ACCEPTED.keys())
def test_a_form_that_cannot_be_used_is_a_named_error(value: str, reason: str) -> None:
    with pytest.raises(DatabaseUrlInvalid) as refused:
        as_url(value)
    assert refused.value.code == "DATABASE_URL_INVALID"
    assert reason in refused.value.message
    assert "postgresql://" in refused.value.message and "key=value" in refused.value.message


def test_settings_read_every_database_setting_in_either_form(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DATABASE_URL", "host=/tmp/pg dbname=shop user=owner")
    monkeypatch.setenv("ORQUESTRA_STATE_URL", "host=/tmp/pg dbname=state user=owner")
    monkeypatch.setenv("ORQUESTRA_AGENT_DATABASE_URL", "host=/tmp/pg dbname=shop user=agent")
    settings = Settings()
    assert settings.database_url == "postgresql://owner@/shop?host=%2Ftmp%2Fpg"
    assert state_url(settings) == "postgresql://owner@/state?host=%2Ftmp%2Fpg"
    assert agent_url(settings) == "postgresql://agent@/shop?host=%2Ftmp%2Fpg"
    monkeypatch.delenv("ORQUESTRA_STATE_URL")
    monkeypatch.delenv("ORQUESTRA_AGENT_DATABASE_URL")
    derived = Settings()
    assert conninfo_to_dict(state_url(derived))["dbname"] == "orquestra_state"
    assert conninfo_to_dict(agent_url(derived))["user"] == derived.agent_role


def test_a_setting_that_cannot_be_read_names_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ORQUESTRA_STATE_URL", "db.example.com/state")
    with pytest.raises(DatabaseUrlInvalid, match=r"^DATABASE_URL_INVALID: ORQUESTRA_STATE_URL "):
        Settings()
