"""The deployment files page: each YAML file's model as JSON Schema, with an example.

The examples are either the shipped files themselves or small ones written here; every one is
validated against its model while the page is written, so a page with an example the code
refuses is never produced.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from .common import json_schema, page

INTRO = """
A deployment is a folder of data: no code. Its files, and the models that read them:

```text
<deployment>/
  profile.yaml               the business, its tenants, languages, time zone, currency
  guardrails.yaml            optional: input rails, output rails, judges
  catalog/
    systems/<system>.yaml    real DDL plus what the database cannot say (one file a system)
    glossary.yaml            business terms and how metrics are computed
    examples.yaml            reviewed question → SQL examples
    docs/*.md                documents the librarian answers from
```

A guard policy file is the tenancy part of a catalog on its own, for
`orquestra guard rewrite --policy FILE`. Each section below gives the file's JSON Schema
(generated from its model; unknown keys are refused) and an example that the model accepts.
"""

SYSTEM_EXAMPLE = """
system: sales
title: Sales
purpose: Orders placed by each store's customers.
purpose_en: Orders placed by each store's customers.
schema: public
ddl: |
  CREATE TABLE stores (
      store_id    integer  NOT NULL,
      name        text     NOT NULL,
      PRIMARY KEY (store_id)
  );
  CREATE TABLE orders (
      order_id    bigint         NOT NULL,
      store_id    integer        NOT NULL,
      status      text           NOT NULL,
      amount      numeric(12,2)  NOT NULL,
      ordered_at  timestamptz    NOT NULL,
      PRIMARY KEY (order_id)
  );
  CREATE TABLE order_items (
      order_id    bigint   NOT NULL,
      line        integer  NOT NULL,
      quantity    integer  NOT NULL,
      PRIMARY KEY (order_id, line)
  );
tables:
  stores:
    description: The stores (the tenants).
    tenant_column: store_id
    tenant_name_column: name
  orders:
    description: One row per order.
    tenant_column: store_id
    synonyms: {en: [purchases, sales]}
    columns:
      status:
        description: Where the order stands.
        values: {OPEN: not shipped yet, SHIPPED: on its way, CANCELLED: cancelled}
        value_synonyms: {CANCELLED: [canceled]}
      amount: {description: Order total, unit: USD, kind: amount}
    joins:
      - {to: stores, "on": {store_id: store_id}}
  order_items:
    description: The lines of an order; they belong to the order's store.
    tenant_via: {parent: orders, columns: {order_id: order_id}}
"""
GLOSSARY_EXAMPLE = """
terms:
  - term: revenue
    synonyms: [sales, turnover]
    definition: Sum of the amount of orders that were not cancelled, by order date.
    tables: [orders]
    metric:
      expression: SUM(amount)
      table: orders
      filter: status <> 'CANCELLED'
      date_column: ordered_at
      unit: USD
      better: higher
"""
EXAMPLES_EXAMPLE = """
examples:
  - question: how many orders are still open?
    lang: en
    kind: analytics
    tables: [orders]
    sql: SELECT count(*) AS open_orders FROM orders WHERE status = 'OPEN'
"""
POLICY_EXAMPLE = """
tables:
  orders: {tenant_column: store_id}
  order_items:
    tenant_via: {parent: orders, columns: {order_id: order_id}}
  currencies: {shared: true, schema: public}
types: [public.order_status]
"""


@dataclass(frozen=True)
class DeploymentFile:
    """One kind of file: where it lives, its model, and an example of it."""

    title: str
    anchor: str
    where: str
    about: str
    model: Callable[[], type[BaseModel]]
    example: Callable[[], str]


def _repo_file(*parts: str) -> Callable[[], str]:
    def read() -> str:
        from orquestra import __file__ as package_file

        repo = Path(package_file).resolve().parents[1]
        return repo.joinpath(*parts).read_text(encoding="utf-8")

    return read


def _text(example: str) -> Callable[[], str]:
    return lambda: textwrap.dedent(example).strip() + "\n"


def _profile() -> type[BaseModel]:
    from orquestra.core.deployment import Profile

    model: type[BaseModel] = Profile
    return model


def _system() -> type[BaseModel]:
    from orquestra.ddl_catalog.model import SystemFile

    model: type[BaseModel] = SystemFile
    return model


def _glossary() -> type[BaseModel]:
    from orquestra.ddl_catalog.model import GlossaryFile

    model: type[BaseModel] = GlossaryFile
    return model


def _examples() -> type[BaseModel]:
    from orquestra.ddl_catalog.knowledge import Example

    class ExamplesFile(BaseModel):
        """The reviewed question → SQL examples the SQL writer is shown."""

        examples: list[Example]

    return ExamplesFile


def _guardrails() -> type[BaseModel]:
    from orquestra.guards.rails.config import GuardrailsFile

    model: type[BaseModel] = GuardrailsFile
    return model


def _policy() -> type[BaseModel]:
    from orquestra.guards.table_policy import _PolicyFile

    model: type[BaseModel] = _PolicyFile
    return model


FILES = [
    DeploymentFile(
        "Profile",
        "profile",
        "`<deployment>/profile.yaml`",
        "The business the deployment serves, in its people's words. The example is the"
        " clinics sample deployment's profile.",
        _profile,
        _repo_file("deployments", "clinics", "profile.yaml"),
    ),
    DeploymentFile(
        "Catalog system file",
        "catalog-system-file",
        "`<deployment>/catalog/systems/<system>.yaml`",
        "Real DDL (`ddl`) plus what the database cannot say, keyed by table and column. Each"
        " table declares exactly one of `tenant_column`, `tenant_via` or `shared: true`.",
        _system,
        _text(SYSTEM_EXAMPLE),
    ),
    DeploymentFile(
        "Glossary",
        "glossary",
        "`<deployment>/catalog/glossary.yaml`",
        "Business terms the database cannot explain, and how a metric is computed.",
        _glossary,
        _text(GLOSSARY_EXAMPLE),
    ),
    DeploymentFile(
        "Examples",
        "examples",
        "`<deployment>/catalog/examples.yaml`",
        "Reviewed question → SQL pairs (`orquestra review approve` adds to them).",
        _examples,
        _text(EXAMPLES_EXAMPLE),
    ),
    DeploymentFile(
        "Guardrails",
        "guardrails",
        "`<deployment>/guardrails.yaml` (optional; else the packaged defaults)",
        "Which input rails, output rails and judges run. Each entry's settings resolve from"
        " the environment (`ORQUESTRA_RAIL_<ID>_<KEY>`, e.g. `ORQUESTRA_RAIL_OOS_THRESHOLD`),"
        " then this file, then the rail's default. The example is the packaged default file.",
        _guardrails,
        _repo_file("guards", "rails", "guardrails.yaml"),
    ),
    DeploymentFile(
        "Guard policy",
        "guard-policy",
        "any file, given to `orquestra guard rewrite --policy FILE`",
        "The tenancy of each table the guard may read; a table not listed is rejected"
        " (`GUARD_TABLE_NOT_ALLOWED`). Without `--policy`, the policy comes from the catalog.",
        _policy,
        _text(POLICY_EXAMPLE),
    ),
]
"""Every file a deployment (or the guard alone) reads, in the order a newcomer meets them."""


def _schema(model: type[BaseModel]) -> dict[str, Any]:
    schema = json_schema(model)
    schema["title"] = schema.get("title", model.__name__).lstrip("_")
    return schema


def section(item: DeploymentFile) -> str:
    """One file's section: where it lives, what it is, its schema, its example (validated)."""
    model = item.model()
    example = item.example()
    model.model_validate(yaml.safe_load(example))  # an example the code refuses stops here
    schema = json.dumps(_schema(model), indent=2, ensure_ascii=False, sort_keys=True)
    return "\n\n".join(
        [
            f"## {item.title}",
            f"Where: {item.where}. {item.about}",
            f"### Example\n\n```yaml\n{example.rstrip()}\n```",
            f"### JSON Schema\n\n```json\n{schema}\n```",
        ]
    )


def render() -> str:
    return page("Deployment files", INTRO, [section(item) for item in FILES])
