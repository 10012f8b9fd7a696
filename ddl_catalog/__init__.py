"""The DDL catalog: one file per source system (DDL + metadata), the glossary, the loader.

The catalog is the single source for the DDL `orquestra db init` applies, for the guard's
table allowlist and tenant columns, and for the schema text the SQL writer sees.
"""

from orquestra.ddl_catalog.loader import DEMO_CATALOG_DIR, CatalogError, load_catalog
from orquestra.ddl_catalog.model import (
    Catalog,
    Column,
    GlossaryTerm,
    System,
    Table,
    per_catalog,
)

__all__ = [
    "DEMO_CATALOG_DIR",
    "Catalog",
    "CatalogError",
    "Column",
    "GlossaryTerm",
    "System",
    "Table",
    "load_catalog",
    "per_catalog",
]
