"""A small catalog of another business (a film rental chain whose tenant is the store).

The stages are tested on it so that nothing they say or compute can lean on the demo's words.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from orquestra.ddl_catalog import Catalog, load_catalog

SYSTEM = """\
system: rental
title: Rentals
purpose: Stores, their customers, rentals and payments.
ddl: |
  CREATE TABLE store (
      store_id     integer NOT NULL,
      store_name   text    NOT NULL,
      PRIMARY KEY (store_id)
  );
  CREATE TABLE customer (
      customer_id  integer NOT NULL,
      store_id     integer NOT NULL,
      name         text    NOT NULL,
      PRIMARY KEY (customer_id)
  );
  CREATE TABLE payment (
      payment_id   integer       NOT NULL,
      store_id     integer       NOT NULL,
      customer_id  integer       NOT NULL,
      amount       numeric(8,2)  NOT NULL,
      weight       numeric(8,3),
      paid_at      timestamptz   NOT NULL,
      PRIMARY KEY (payment_id)
  );
tables:
  store:
    description: The chain's stores; each one is a tenant.
    tenant_column: store_id
    tenant_name_column: store_name
    synonyms:
      pt: [loja, lojas]
      en: [store, stores, shop]
  customer:
    description: Customers of a store.
    tenant_column: store_id
    synonyms:
      pt: [cliente, clientes, freguês]
      en: [customer, customers, patron]
  payment:
    description: Payments for rentals.
    tenant_column: store_id
    synonyms:
      pt: [pagamento, pagamentos]
      en: [payment, payments]
    columns:
      amount:
        description: Amount paid.
        unit: USD
      weight:
        description: Weight of what was rented.
        unit: kg
"""
GLOSSARY = """\
terms:
  - term: average ticket
    definition: Average amount per payment.
    tables: [payment]
    metric:
      expression: AVG(amount)
      table: payment
      unit: USD
"""


def rental_catalog(folder: Path) -> Catalog:
    """Write the rental catalog under `folder` and load it."""
    (folder / "systems").mkdir(parents=True, exist_ok=True)
    (folder / "systems" / "rental.yaml").write_text(SYSTEM, encoding="utf-8")
    (folder / "glossary.yaml").write_text(GLOSSARY, encoding="utf-8")
    return load_catalog(folder)


@pytest.fixture(scope="session")
def rental(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    """The rental chain's catalog."""
    return rental_catalog(tmp_path_factory.mktemp("rental"))
