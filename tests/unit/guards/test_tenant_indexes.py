"""Indexes of a tenant table that do not start with its tenant column, and the fix for each."""

from __future__ import annotations

import pglast
import pytest
from pglast import ast

from orquestra.guards.tenant_indexes import IndexGap, index_gap


def row(ddl: str, *, primary: bool = False, partitioned: bool = False) -> dict[str, object]:
    name = ddl.split(" INDEX ")[1].split()[0]
    return {"index_name": name, "ddl": ddl, "is_primary": primary, "partitioned": partitioned}


def statement(ddl: str) -> ast.IndexStmt:
    parsed = pglast.parse_sql(ddl)[0].stmt
    assert isinstance(parsed, ast.IndexStmt)
    return parsed


def gap(ddl: str, *leading: str, column: str = "store_id", **flags: bool) -> IndexGap | None:
    return index_gap("public.t", column, row(ddl, **flags), [statement(d) for d in leading])


PKEY = "CREATE UNIQUE INDEX t_pkey ON public.t USING btree (item_id)"


def test_a_primary_key_gets_an_additional_index_and_stays() -> None:
    found = gap(PKEY, primary=True)
    assert found is not None and found.kind == "primary key"
    assert found.fix == "CREATE INDEX CONCURRENTLY ON public.t (store_id, item_id)"
    assert "t_pkey (item_id) does not start with the tenant column store_id" in found.describe()
    assert "the primary key stays" in found.describe()


@pytest.mark.parametrize(
    ("ddl", "fix"),
    [
        (  # a unique index's tenant column moves first; the fix need not be unique
            "CREATE UNIQUE INDEX t_code ON public.t USING btree (code, store_id)",
            "CREATE INDEX CONCURRENTLY ON public.t (store_id, code)",
        ),
        (  # expressions, ordering, operator classes, INCLUDE and the predicate are kept
            "CREATE INDEX t_name ON public.t USING btree (lower(name) DESC, code text_pattern_ops)"
            " INCLUDE (amount) WHERE (amount > (10)::numeric)",
            "CREATE INDEX CONCURRENTLY ON public.t (store_id, (lower(name)) DESC,"
            " code text_pattern_ops) INCLUDE (amount) WHERE amount > CAST(10 AS numeric)",
        ),
        (  # hash takes one column: a btree instead, with its default operator class
            "CREATE INDEX t_hash ON public.t USING hash (code text_ops)",
            "CREATE INDEX CONCURRENTLY ON public.t (store_id, code)",
        ),
        (
            "CREATE INDEX t_text ON public.t USING gin (document)",
            "CREATE INDEX CONCURRENTLY ON public.t USING gin (store_id, document)",
        ),
    ],
)
def test_the_fix_starts_with_the_tenant_column_and_keeps_the_index(ddl: str, fix: str) -> None:
    found = gap(ddl)
    assert found is not None and found.fix == fix


def test_a_gin_index_names_the_extension_it_needs() -> None:
    found = gap("CREATE INDEX t_text ON public.t USING gin (document)")
    assert found is not None and "btree_gin extension" in found.describe()
    assert "then drop t_text if nothing else of yours uses it" in found.describe()


def test_a_partitioned_table_cannot_build_it_concurrently() -> None:
    found = gap("CREATE INDEX t_day ON ONLY public.t USING btree (day)", partitioned=True)
    assert found is not None and found.fix == "CREATE INDEX ON public.t (store_id, day)"
    assert "blocks writes" in found.describe()


def test_an_index_that_starts_with_the_tenant_column_is_no_gap() -> None:
    assert gap("CREATE INDEX t_store_day ON public.t USING btree (store_id, day)") is None
    assert gap("CREATE UNIQUE INDEX t_pkey ON public.t (store_id, item_id)", primary=True) is None


def test_an_index_the_fix_already_exists_for_is_no_gap() -> None:
    added = "CREATE INDEX t_store_item ON public.t USING btree (store_id, item_id, day)"
    assert gap(PKEY, added, primary=True) is None
    other_order = "CREATE INDEX t_store_day ON public.t USING btree (store_id, day, item_id)"
    assert gap(PKEY, other_order, primary=True) is not None


def test_a_partial_index_is_fixed_only_under_its_own_predicate_or_none() -> None:
    partial = "CREATE INDEX t_open ON public.t USING btree (code) WHERE (NOT closed)"
    same = "CREATE INDEX t_s_open ON public.t USING btree (store_id, code) WHERE (NOT closed)"
    whole = "CREATE INDEX t_s_code ON public.t USING btree (store_id, code)"
    other = "CREATE INDEX t_s_new ON public.t USING btree (store_id, code) WHERE (day > 0)"
    assert gap(partial, same) is None and gap(partial, whole) is None
    assert gap(partial, other) is not None
    assert gap("CREATE INDEX t_code ON public.t USING btree (code)", same) is not None


def test_a_quoted_tenant_column_stays_quoted() -> None:
    found = gap(PKEY, column="Store Id", primary=True)
    assert found is not None
    assert found.fix == 'CREATE INDEX CONCURRENTLY ON public.t ("Store Id", item_id)'
