"""Layers 1 and 2 alone, from golden files, plus the final verification and fail-closed paths."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from pglast.stream import RawStream

from orquestra.ddl_catalog import load_catalog
from orquestra.guards import GuardPolicy, GuardRejection, guard_sql
from orquestra.guards.rewrite import cap_rows, filter_tenant_tables, verify_filters
from orquestra.guards.validate import parse_one, validate

HERE = Path(__file__).parent
VALIDATE_CASES = yaml.safe_load((HERE / "validate_cases.yaml").read_text(encoding="utf-8"))
REWRITE_CASES = yaml.safe_load((HERE / "rewrite_cases.yaml").read_text(encoding="utf-8"))
DECLARED_TYPES = frozenset(
    {"public.mpaa_rating", "mpaa_rating", "public.year", "year", "films.rating"}
    | {"public.regclass", "regclass"}
)
"""Types a real schema declares, as `GuardPolicy.types` holds them (the demo declares none):
enum and domain in `public`, an enum in another schema, and one named like a built-in."""


@pytest.fixture(scope="module")
def policy() -> GuardPolicy:
    return replace(GuardPolicy.from_catalog(load_catalog()), types=DECLARED_TYPES)


@pytest.mark.parametrize("case", VALIDATE_CASES, ids=lambda c: c["sql"][:60] or "empty")
def test_layer1_alone(case: dict, policy: GuardPolicy) -> None:
    if case["expect"] == "allowed":
        validate(parse_one(case["sql"]), policy)
        return
    with pytest.raises(GuardRejection) as caught:
        validate(parse_one(case["sql"]), policy)
    assert caught.value.code == case["expect"]
    assert caught.value.message and "Traceback" not in caught.value.message


@pytest.mark.parametrize(
    "case",
    [c for c in VALIDATE_CASES if c["expect"] == "allowed"],
    ids=lambda c: c["sql"][:60],
)
def test_allowed_queries_pass_the_whole_guard(case: dict, policy: GuardPolicy) -> None:
    """Deparsed, re-parsed and re-validated after the rewrite, an allowed query stays allowed."""
    guarded = guard_sql(case["sql"], policy, "101", max_rows=100)
    assert guarded.sql.endswith("LIMIT 100")


@pytest.mark.parametrize("case", REWRITE_CASES, ids=lambda c: c["name"])
def test_layer2_alone(case: dict, policy: GuardPolicy) -> None:
    """The rewrite passes on a parsed tree, without layer 1 in front of them."""
    statement = cap_rows(filter_tenant_tables(parse_one(case["sql"]), policy), 100)
    assert RawStream()(statement) == case["expected"]


def test_rewrite_alone_still_refuses_unknown_tables(policy: GuardPolicy) -> None:
    with pytest.raises(GuardRejection) as caught:
        filter_tenant_tables(parse_one("SELECT * FROM segredos"), policy)
    assert caught.value.code == "GUARD_TABLE_NOT_ALLOWED"


@pytest.mark.parametrize(
    "tampered",
    [
        "SELECT * FROM public.pedidos",
        "SELECT * FROM (SELECT * FROM public.pedidos WHERE pedidos.cod_fornecedor = $1 OR true) p",
        "SELECT * FROM (SELECT * FROM public.pedidos WHERE pedidos.cod_cliente = $1) AS p",
        "SELECT $1, * FROM public.transportadoras",
        "SELECT * FROM pedidos",
    ],
)
def test_final_verification_catches_an_unfiltered_output(
    tampered: str, policy: GuardPolicy
) -> None:
    with pytest.raises(GuardRejection) as caught:
        verify_filters(parse_one(tampered), policy)
    assert caught.value.code == "GUARD_INTERNAL"


def test_output_is_regenerated_and_tenant_is_only_a_parameter(policy: GuardPolicy) -> None:
    guarded = guard_sql(
        "SELECT 1 AS x -- 101\n FROM notas_fiscais /* tenant */", policy, "101", max_rows=10
    )
    assert "101" not in guarded.sql and "--" not in guarded.sql and "/*" not in guarded.sql
    assert guarded.params == ["101"]
    assert set(guarded.timings_ms) == {"parse", "validate", "rewrite", "verify"}


def test_shared_only_query_has_no_parameter(policy: GuardPolicy) -> None:
    guarded = guard_sql("SELECT nome FROM transportadoras", policy, "101", max_rows=0)
    assert guarded.params == []
    assert "LIMIT" not in guarded.sql


def test_internal_failure_fails_closed(
    policy: GuardPolicy, monkeypatch: pytest.MonkeyPatch
) -> None:
    import orquestra.guards.sql_guard as sql_guard

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(sql_guard, "verify_filters", broken)
    with pytest.raises(GuardRejection) as caught:
        guard_sql("SELECT * FROM pedidos", policy, "101")
    assert caught.value.code == "GUARD_INTERNAL"


def test_policy_file_format(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(
        "tables:\n  orders: {tenant_column: tenant_id}\n  countries: {shared: true}\n"
        "  lines: {tenant_column: tenant_id, schema: sales}\n"
    )
    policy = GuardPolicy.from_file(path)
    guarded = guard_sql(
        "SELECT * FROM orders o JOIN countries c USING (code) JOIN sales.lines l USING (id)",
        policy,
        "acme",
        max_rows=0,
    )
    assert "public.orders WHERE orders.tenant_id = $1" in guarded.sql
    assert "sales.lines WHERE lines.tenant_id = $1" in guarded.sql
    with pytest.raises(GuardRejection) as caught:
        guard_sql("SELECT * FROM public.lines", policy, "acme")
    assert caught.value.code == "GUARD_TABLE_NOT_ALLOWED"
    path.write_text("tables:\n  orders: {tenant_column: a, shared: true}\n")
    with pytest.raises(GuardRejection) as caught:
        GuardPolicy.from_file(path)
    assert caught.value.code == "GUARD_POLICY_INVALID"


def test_policy_file_types(tmp_path: Path) -> None:
    """`types:` lists the schema's own types; a bare name means `public`, as in PostgreSQL."""
    path = tmp_path / "policy.yaml"
    path.write_text(
        "tables:\n  film: {shared: true}\n"
        "types: [public.mpaa_rating, year, films.rating, public.regclass]\n"
    )
    policy = GuardPolicy.from_file(path)
    assert policy.types == {
        "public.mpaa_rating",
        "mpaa_rating",
        "public.year",
        "year",
        "films.rating",
        "public.regclass",
        "regclass",
    }
    guard_sql("SELECT 'PG'::mpaa_rating, 2006::year, 'R'::films.rating FROM film", policy, "a")
    for cast in ("'R'::rating", "'film'::regclass", "'PG'::other.mpaa_rating"):
        with pytest.raises(GuardRejection) as caught:
            guard_sql(f"SELECT {cast} FROM film", policy, "a")
        assert caught.value.code == "GUARD_TYPE_NOT_ALLOWED"
