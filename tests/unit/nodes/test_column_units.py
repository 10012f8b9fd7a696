"""Units of result columns come from the catalog's metadata, carried through the query."""

from __future__ import annotations

from orquestra.ddl_catalog import Catalog
from orquestra.ddl_catalog.model import is_money
from orquestra.nodes.units import catalog_units, column_units, is_code_name


def test_catalog_units_are_the_declared_ones(rental: Catalog) -> None:
    assert catalog_units(rental) == {"amount": "USD", "weight": "kg", "average_ticket": "USD"}


def test_a_name_never_makes_money(rental: Catalog) -> None:
    sql = "SELECT customer_id, count(*) AS total_value, sum(amount) AS x FROM payment GROUP BY 1"
    assert column_units(sql, ["customer_id", "total_value", "x"], rental) == {"x": "USD"}


def test_units_follow_aliases_through_ctes_and_subqueries(rental: Catalog) -> None:
    sql = (
        "WITH m AS (SELECT date_trunc('month', paid_at) AS month, SUM(amount) AS sales,"
        " COUNT(*) AS n, SUM(weight) AS w FROM payment GROUP BY 1)"
        " SELECT s.month, s.sales, s.sales / NULLIF(s.n, 0) AS per_payment,"
        " 100.0 * s.sales / SUM(s.sales) OVER () AS share, ROUND(s.w::numeric, 1) AS w,"
        " CASE WHEN s.n > 1 THEN s.sales ELSE 0 END AS big FROM (SELECT * FROM m) AS s"
    )
    columns = ["month", "sales", "per_payment", "share", "w", "big", "n"]
    assert column_units(sql, columns, rental) == {
        "sales": "USD",
        "per_payment": "USD",
        "w": "kg",
        "big": "USD",
    }


def test_an_alias_shadows_a_catalog_column(rental: Catalog) -> None:
    sql = "SELECT count(*) AS amount FROM payment"
    assert column_units(sql, ["amount"], rental) == {}


def test_plain_columns_and_metric_names_without_sql(rental: Catalog) -> None:
    assert column_units(None, ["amount", "average_ticket", "name"], rental) == {
        "amount": "USD",
        "average_ticket": "USD",
    }
    assert column_units("not sql at all (", ["weight"], rental) == {"weight": "kg"}


def test_money_is_a_currency_code() -> None:
    assert is_money("USD") and is_money("BRL")
    assert not is_money("kg") and not is_money("dias") and not is_money(None)


def test_identifier_names_are_codes_not_measures() -> None:
    assert all(is_code_name(n) for n in ("customer_id", "cod_cliente", "num_pedido", "id"))
    assert not any(is_code_name(n) for n in ("amount", "weight", "valor_total"))
    # a prefix counts only with its underscore: an age or idle minutes are measures
    assert not any(is_code_name(n) for n in ("idade", "idle_minutes", "identity_score"))
    assert is_code_name("id_cliente")


def test_the_catalogs_keys_are_identifiers_whatever_their_names() -> None:
    from orquestra.core.deployment import load_deployment
    from orquestra.ddl_catalog import load_catalog
    from orquestra.nodes.units import identifier_columns

    clinics = load_catalog(load_deployment("clinics").catalog_dir)
    found = identifier_columns(["competencia", "horas", "item", "quantidade", "cod_x"], clinics)
    assert found == {"competencia", "item", "cod_x"}  # key columns and a code by name
