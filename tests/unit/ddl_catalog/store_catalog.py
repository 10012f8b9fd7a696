"""A small store's catalog as `orquestra init` writes one for an English schema without
foreign keys: no synonyms or descriptions, proposed joins, profiled values and column kinds.
Its tables form a chain (customers ← orders ← order_lines → products → categories), so a
question naming two ends needs the tables between them; a tenant-only join (every table's
`shop_id` to `shops`) must never serve as a bridge."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import yaml

from orquestra.ddl_catalog import Catalog, load_catalog
from orquestra.ddl_catalog.selection import SourceIndex, table_document
from orquestra.graph.embeddings import E5Embeddings

DDL = """
CREATE TABLE shops (shop_id integer NOT NULL, shop_name text NOT NULL, PRIMARY KEY (shop_id));
CREATE TABLE customers (
    customer_id integer NOT NULL, shop_id integer NOT NULL, company_name text NOT NULL,
    state text, PRIMARY KEY (customer_id));
CREATE TABLE orders (
    order_id integer NOT NULL, shop_id integer NOT NULL, customer_id integer NOT NULL,
    order_date date NOT NULL, status text NOT NULL, PRIMARY KEY (order_id));
CREATE TABLE order_lines (
    order_id integer NOT NULL, line_no integer NOT NULL, shop_id integer NOT NULL,
    product_id integer NOT NULL, quantity integer NOT NULL, unit_price numeric(10,2) NOT NULL,
    PRIMARY KEY (order_id, line_no));
CREATE TABLE products (
    product_id integer NOT NULL, shop_id integer NOT NULL, category_id integer NOT NULL,
    product_name text NOT NULL, PRIMARY KEY (product_id));
CREATE TABLE categories (
    category_id integer NOT NULL, category_name text NOT NULL, PRIMARY KEY (category_id));
"""


def _table(columns: dict[str, dict], joins: list[tuple[str, dict[str, str]]]) -> dict:
    entry: dict = {"tenant_column": "shop_id", "columns": columns}
    entry["joins"] = [{"to": "shops", "on": {"shop_id": "shop_id"}}]
    entry["joins"] += [{"to": to, "on": on} for to, on in joins]
    return entry


TABLES = {
    "shops": {"tenant_column": "shop_id", "tenant_name_column": "shop_name"},
    "customers": _table({"state": {"values": {"SP": "", "RJ": "", "MG": ""}}}, []),
    "orders": _table(
        {
            "order_date": {"kind": "date"},
            "status": {"values": {"OPEN": "", "SHIPPED": "", "CANCELLED": ""}},
        },
        [("customers", {"customer_id": "customer_id"})],
    ),
    "order_lines": _table(
        {"quantity": {"kind": "quantity"}, "unit_price": {"kind": "amount"}},
        [("orders", {"order_id": "order_id"}), ("products", {"product_id": "product_id"})],
    ),
    "products": _table({}, [("categories", {"category_id": "category_id"})]),
    "categories": {
        "shared": True,
        "columns": {"category_name": {"values": {"SHOES": "", "BAGS": "", "HATS": ""}}},
    },
}


def write_store(folder: Path, *, joins: bool = True) -> Catalog:
    """The store's catalog in `folder`; `joins=False`: as a schema without foreign keys whose
    joins nobody proposed yet (the tenant's own join kept)."""
    (folder / "systems").mkdir(parents=True)
    tables = TABLES if joins else {name: _tenant_joins_only(t) for name, t in TABLES.items()}
    document = {"system": "store", "schema": "public", "ddl": DDL, "tables": tables}
    (folder / "systems" / "store.yaml").write_text(yaml.safe_dump(document))
    return load_catalog(folder)


def _tenant_joins_only(table: dict) -> dict:
    kept = [j for j in table.get("joins", []) if j["to"] == "shops"]
    return {**table, "joins": kept} if "joins" in table else table


def index_of(catalog: Catalog, model: E5Embeddings) -> SourceIndex:
    """The index as `graph.sources.source_index` builds it, with the real embeddings."""
    tables = list(catalog.tables.values())
    vectors = np.asarray(model.embed_documents([table_document(t) for t in tables]))
    meanings = SourceIndex.meanings_of(catalog)
    meaning_vectors = np.asarray(model.embed_queries(meanings))
    by_table = {t.name: v for t, v in zip(tables, vectors, strict=True)}
    return SourceIndex(catalog, by_table, meaning_vectors)
