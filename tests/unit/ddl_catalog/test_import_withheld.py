"""What `catalog import` leaves out of the catalog as personal data, and how it is listed."""

from __future__ import annotations

from orquestra.ddl_catalog.import_review import table_comments
from orquestra.ddl_catalog.import_withheld import withhold_personal_data
from orquestra.ddl_catalog.tenancy import TenancyProposal

RELATIONS = [
    {"table_name": "account", "kind": "r", "comment": "Accounts; owner maria@example.com"},
    {"table_name": "plan", "kind": "r", "comment": "Plans sold since 2024-01-15"},
]
COLUMNS = [
    {
        "table_name": "account",
        "column_name": "contact",
        "comment": "Escalations: ana@example.com or (11) 98765-4321",
        "generated": None,
    },
    {
        "table_name": "account",
        "column_name": "hotline",
        "comment": "CFOP 5102",
        "generated": "CASE WHEN vip THEN '+55 11 3456-7890' END",
    },
]
TYPES = [
    {"name": "code", "kind": "d", "checks": ["CHECK (VALUE <> '529.982.247-25')", "CHECK (true)"]},
    {"name": "mood", "kind": "e", "checks": None},
]
INDEXES = [
    {
        "table_name": "account",
        "index_name": "account_vip_idx",
        "ddl": "CREATE INDEX account_vip_idx ON public.account (status)"
        " WHERE (contact <> 'vip@example.org'::text)",
    },
    {
        "table_name": "account",
        "index_name": "account_open_idx",
        "ddl": "CREATE INDEX account_open_idx ON public.account (status) WHERE (NOT closed)",
    },
]


def test_personal_texts_are_left_out_and_the_rest_kept() -> None:
    screened = withhold_personal_data(RELATIONS, COLUMNS, TYPES, INDEXES)
    assert [r["comment"] for r in screened.relations] == [None, "Plans sold since 2024-01-15"]
    assert [c["comment"] for c in screened.columns] == [None, "CFOP 5102"]
    assert [c["generated"] for c in screened.columns] == [None, None]
    assert [t["checks"] for t in screened.types] == [["CHECK (true)"], []]
    assert [i["index_name"] for i in screened.indexes] == ["account_open_idx"]
    assert RELATIONS[0]["comment"] == "Accounts; owner maria@example.com"  # rows not changed


def test_each_text_left_out_is_listed_with_its_values_masked() -> None:
    screened = withhold_personal_data(RELATIONS, COLUMNS, TYPES, INDEXES)
    assert [w.describe() for w in screened.withheld] == [
        "account: table comment — e-mail address: 'Accounts; owner <e-mail address>'",
        "account: column contact comment — e-mail address, phone number:"
        " 'Escalations: <e-mail address> or <phone number>'",
        "account: column hotline generated expression — phone number:"
        " \"CASE WHEN vip THEN '<phone number>' END\"",
        "domain code CHECK — document number (CPF): \"CHECK (VALUE <> '<document number (CPF)>')\"",
        'account: index account_vip_idx predicate — e-mail address: "CREATE INDEX'
        " account_vip_idx ON public.account (status) WHERE (contact <> '<e-mail address>'::text)\"",
    ]


def test_an_index_whose_columns_hold_the_value_is_named_by_its_definition() -> None:
    index = {
        "table_name": "account",
        "index_name": "account_expr_idx",
        "ddl": "CREATE INDEX account_expr_idx ON public.account ((contact = 'a@example.com'))",
    }
    (withheld,) = withhold_personal_data([], [], [], [index]).withheld
    assert withheld.part == "index account_expr_idx definition"


def test_the_file_comment_names_the_place_never_the_text() -> None:
    screened = withhold_personal_data(RELATIONS, COLUMNS, TYPES, INDEXES)
    account = [w for w in screened.withheld if w.table == "account"]
    proposal = TenancyProposal(roots=("account",))
    comments = table_comments(RELATIONS[0], proposal, [], account)
    assert "# REVIEW personal data not copied (e-mail address, phone number): column contact" in (
        comments
    )
    assert "@" not in comments and "98765" not in comments and "<e-mail address>" not in comments
