"""A catalog's DDL block is cut into its statements, each with its own text and line."""

from __future__ import annotations

from pathlib import Path

from orquestra.ddl_catalog.ddl_parse import parse_ddl

DDL = """CREATE TABLE a (id integer PRIMARY KEY);
CREATE INDEX a_id_idx ON a (id);
CREATE TABLE b (id integer PRIMARY KEY, a_id integer NOT NULL)"""


def test_every_statement_keeps_its_text_the_last_one_without_its_semicolon_too() -> None:
    statements = parse_ddl(Path("x.yaml"), DDL, first_line=10)
    texts = [text for _, text, _ in statements]
    assert texts == [
        "CREATE TABLE a (id integer PRIMARY KEY)",
        "CREATE INDEX a_id_idx ON a (id)",
        "CREATE TABLE b (id integer PRIMARY KEY, a_id integer NOT NULL)",
    ]
    assert [line for _, _, line in statements] == [10, 11, 12]
