"""The glossary `init` drafts: sums of amounts and counts of entities, loaded as drafts that
no stage uses until their owner confirms them."""

from __future__ import annotations

from pathlib import Path

import yaml

from orquestra.ddl_catalog import load_catalog
from orquestra.ddl_catalog.glossary_drafts import MAX_DRAFTS, draft_terms, drafts_text
from orquestra.ddl_catalog.profiling import ColumnProfile, SchemaProfile

SYSTEM = """\
system: shop
schema: public
ddl: |
  CREATE TABLE sale (sale_id integer PRIMARY KEY, sold_on date NOT NULL,
                     total numeric(12,2), "unitPrice" numeric(12,2), status text);
  CREATE TABLE line (line_id integer PRIMARY KEY, sale_id integer, "unitPrice" numeric);
tables:
  sale: {shared: true}
  line: {shared: true}
"""


def profile(language: str = "en") -> SchemaProfile:
    kinds = {
        ("sale", "sale_id"): "identifier",
        ("sale", "sold_on"): "date",
        ("sale", "total"): "amount",
        ("sale", "unitPrice"): "amount",
        ("sale", "status"): None,
        ("line", "line_id"): "identifier",
        ("line", "sale_id"): "identifier",
        ("line", "unitPrice"): "amount",
    }
    return SchemaProfile(
        language=language,
        columns={key: ColumnProfile(kind) for key, kind in kinds.items()},  # type: ignore[arg-type]
        entities=("sale", "line"),
    )


def test_sums_of_amounts_then_counts_of_entities() -> None:
    terms = draft_terms(profile())
    assert [t["term"] for t in terms] == [
        "sale total",  # "total total" says the column's name twice: its table's name instead
        "total sale unit price",  # two tables' unitPrice: each says whose
        "total line unit price",
        "sale count",
        "line count",
    ]
    assert all(t["draft"] is True for t in terms)
    assert terms[1]["metric"] == {
        "expression": 'sum("unitPrice")',
        "table": "sale",
        "date_column": "sold_on",
    }
    assert "date_column" not in terms[2]["metric"]  # the line table has no date
    assert terms[3]["metric"]["expression"] == "count(*)"
    assert "confirm" in terms[0]["definition"] and "definition_en" not in terms[0]


def test_a_portuguese_schema_gets_portuguese_drafts_with_english_definitions() -> None:
    terms = draft_terms(profile("pt"))
    assert terms[3]["term"] == "quantidade de sale"
    assert terms[1]["definition"].startswith("Soma de sale.unitPrice, situada no tempo")
    assert terms[1]["definition_en"].startswith("Sum of sale.unitPrice, placed in time")


def test_drafts_are_capped() -> None:
    many = SchemaProfile(entities=tuple(f"t{i}" for i in range(MAX_DRAFTS + 5)))
    assert len(draft_terms(many)) == MAX_DRAFTS
    assert drafts_text(SchemaProfile()) == ""


def test_the_loader_keeps_drafts_apart_and_checks_them(tmp_path: Path) -> None:
    (tmp_path / "systems").mkdir()
    (tmp_path / "systems" / "shop.yaml").write_text(SYSTEM, encoding="utf-8")
    text = drafts_text(profile())
    confirmed = {"term": "open sales", "definition": "Sales not closed.", "tables": ["sale"]}
    (tmp_path / "glossary.yaml").write_text(
        text + yaml.safe_dump([confirmed], sort_keys=False), encoding="utf-8"
    )
    assert text.startswith("# The terms below are DRAFTS")
    catalog = load_catalog(tmp_path)
    assert [t.term for t in catalog.glossary] == ["open sales"]  # what the stages use
    assert [t.term for t in catalog.drafts][:2] == ["sale total", "total sale unit price"]
    assert all(t.draft for t in catalog.drafts) and len(catalog.draft_locations) == 5
    assert catalog.glossary_locations[0].line > catalog.draft_locations[-1].line
