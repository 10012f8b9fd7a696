"""Join candidates from names alone, one rule at a time, on small hand-made schemas (the data
that must then bear each one out is tried in tests/integration/test_join_proposals.py)."""

from __future__ import annotations

from orquestra.ddl_catalog.join_names import Column, name_candidates, unmatched
from orquestra.ddl_catalog.key_names import abbreviates, column_prefix, key_name, name_words
from orquestra.ddl_catalog.tenancy import Key

PK = "primary key"


def pk(name: str, type_: str = "integer") -> Column:
    return Column(name, type_, True, PK, True)


def col(name: str, type_: str = "integer") -> Column:
    return Column(name, type_)


def found(tables: dict[str, tuple[Column, ...]], declared: list[Key] | None = None) -> list[str]:
    """`child.column → parent.column (rule)`, best first per child column."""
    return [
        f"{c.table}.{c.column} → {c.parent}.{c.parent_column} ({c.rule})"
        for c in name_candidates(tables, declared or [])
    ]


def test_same_name_finds_the_table_that_holds_it_as_its_key() -> None:
    tables = {
        "orders": (pk("order_id"), col("placed_at", "date")),
        "order_lines": (pk("line_id"), col("order_id"), col("quantity")),
    }
    assert found(tables) == ["order_lines.order_id → orders.order_id (same name)"]


def test_x_id_names_the_table_singular_or_plural_with_id_or_x_id() -> None:
    tables = {
        "customers": (pk("id"), col("name", "text")),
        "category": (pk("category_id"), col("label", "text")),
        "categories_old": (pk("code", "text"),),
        "sales": (pk("id"), col("customer_id"), col("category_id")),
    }
    assert found(tables) == [
        "sales.customer_id → customers.id (names the table)",
        "sales.category_id → category.category_id (same name)",
    ]
    tables["sales"] = (pk("id"), col("category_id"))
    tables["categories"] = (pk("category_id"),)
    del tables["category"]
    assert found(tables) == ["sales.category_id → categories.category_id (same name)"]


def test_a_tables_prefix_is_set_aside_as_in_tpc_h() -> None:
    tables = {
        "customer": (pk("c_custkey"), col("c_name", "text"), col("c_nationkey")),
        "nation": (pk("n_nationkey"), col("n_name", "text")),
        "orders": (pk("o_orderkey"), col("o_custkey"), col("o_totalprice", "numeric")),
        "lineitem": (
            Column("l_orderkey", "integer", True, "", True),
            Column("l_linenumber", "integer", True, "", True),
            col("l_partkey"),
        ),
        "part": (pk("p_partkey"), col("p_name", "text")),
    }
    assert column_prefix("lineitem", ["l_orderkey", "l_partkey"]) == "l"
    assert sorted(found(tables)) == [
        "customer.c_nationkey → nation.n_nationkey (same name)",
        "lineitem.l_orderkey → orders.o_orderkey (same name)",
        "lineitem.l_partkey → part.p_partkey (same name)",
        "orders.o_custkey → customer.c_custkey (same name)",
    ]


def test_a_whole_word_shared_by_every_column_is_no_prefix() -> None:
    assert column_prefix("customer_customer_demo", ["customer_id", "customer_type_id"]) == ""
    assert name_words("CustomerTypeId") == ("customer", "type", "id")


def test_an_abbreviated_key_finds_the_spelled_out_one() -> None:
    tables = {
        "customer": (pk("customer_id"), col("name", "text")),
        "departments": (pk("id"),),
        "staff": (pk("staff_id"), col("cust_id"), col("dept_id")),
    }
    assert found(tables) == [
        "staff.cust_id → customer.customer_id (abbreviation)",
        "staff.dept_id → departments.id (abbreviation)",
    ]
    assert abbreviates(("cust", "type"), ("customer", "types"))
    assert not abbreviates(("cu",), ("customer",))  # too short to say anything


def test_a_role_prefix_in_front_of_the_entity() -> None:
    tables = {
        "customers": (pk("customer_id"),),
        "categories": (pk("category_id"), col("parent_category_id")),
        "bills": (pk("bill_id"), col("billing_customer_id")),
    }
    assert found(tables) == [
        "categories.parent_category_id → categories.category_id (role prefix)",
        "bills.billing_customer_id → customers.customer_id (role prefix)",
    ]


def test_portuguese_key_words_in_front() -> None:
    tables = {
        "clientes": (pk("cod_cliente", "text"),),
        "pedido": (pk("id"),),
        "itens": (pk("id"), col("cod_cliente", "text"), col("id_pedido")),
    }
    assert found(tables) == [
        "itens.cod_cliente → clientes.cod_cliente (same name)",
        "itens.id_pedido → pedido.id (names the table)",
    ]


def test_role_named_keys_are_not_proposed_and_those_with_a_key_word_are_listed() -> None:
    tables = {
        "employee": (pk("employee_id"), col("reports_to")),
        "shippers": (pk("shipper_id"),),
        "orders": (pk("order_id"), col("ship_via")),
        "customer": (pk("customer_id"), col("support_rep_id"), col("postal_code", "text")),
    }
    assert found(tables) == []
    assert unmatched(tables) == ["customer.support_rep_id"]
    assert key_name(("reports", "to")) is None and key_name(("ship", "via")) is None


def test_the_best_rule_first_and_the_table_named_by_the_key_before_another() -> None:
    tables = {
        "orders": (pk("order_id"),),
        "order_archive": (pk("order_id"),),  # 1:1 with orders, not named by the key
        "order_lines": (pk("line_id"), col("order_id")),
    }
    assert found(tables) == [
        "order_archive.order_id → orders.order_id (same name)",
        "order_lines.order_id → orders.order_id (same name)",
        "order_lines.order_id → order_archive.order_id (same name)",
    ]


def test_only_unique_columns_are_parents_unless_the_table_declares_no_key() -> None:
    tables = {
        "enrolment": (
            Column("student_id", "integer", True, "", True),
            Column("course_id", "integer", True, "", True),
        ),
        "grades": (pk("grade_id"), col("student_id")),
    }
    assert found(tables) == []  # part of a composite key is no parent
    tables["students"] = (col("student_id"), col("name", "text"))  # no key declared
    assert found(tables) == [
        "enrolment.student_id → students.student_id (same name)",
        "grades.student_id → students.student_id (same name)",
    ]


def test_declared_keys_home_keys_and_other_types_are_left_alone() -> None:
    tables = {
        "customers": (pk("customer_id"),),
        "orders": (pk("order_id"), col("customer_id"), col("status_id")),
        "statuses": (pk("status_id", "text"),),
    }
    declared = [Key("orders", ("customer_id",), "customers", ("customer_id",), True)]
    assert found(tables, declared) == []  # declared; and an integer never matches text
    assert found(tables) == ["orders.customer_id → customers.customer_id (same name)"]


def test_a_name_without_a_key_word_only_onto_the_same_name_made_unique() -> None:
    tables = {
        "airlines": (pk("carrier", "text"), col("name", "text")),
        "planes": (Column("tailnum", "text", True, "unique index"), col("year")),
        "flights": (col("carrier", "text"), col("tailnum", "text"), col("year"), col("origin")),
    }
    assert found(tables) == [
        "flights.carrier → airlines.carrier (same name)",
        "flights.tailnum → planes.tailnum (same name)",
    ]  # `year` is unique nowhere, `origin` names no column elsewhere
