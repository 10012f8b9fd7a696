"""A system file's own types: enums, domains and composites parsed into `Catalog.types`."""

from __future__ import annotations

from pathlib import Path

import pytest

from orquestra.ddl_catalog import CatalogError, load_catalog

SYSTEM = """\
system: rental
schema: public
ddl: |
  CREATE TYPE mpaa_rating AS ENUM ('G', 'PG', 'PG-13');
  CREATE DOMAIN year AS integer CHECK (VALUE >= 1901);
  CREATE TYPE span AS (starts date, ends date);
  CREATE TABLE film (
      film_id integer PRIMARY KEY,
      store_id integer NOT NULL,
      rating mpaa_rating,
      release_year year
  );
tables:
  film:
    tenant_column: store_id
    columns:
      rating:
        values: {G: General, PG: Parental guidance, R: Restricted}
"""


def write(folder: Path, text: str, glossary: str | None = None) -> Path:
    (folder / "systems").mkdir(parents=True, exist_ok=True)
    (folder / "systems" / "rental.yaml").write_text(text, encoding="utf-8")
    if glossary is not None:
        (folder / "glossary.yaml").write_text(glossary, encoding="utf-8")
    return folder


def test_types_are_parsed_in_file_order(tmp_path: Path) -> None:
    catalog = load_catalog(write(tmp_path, SYSTEM))
    assert list(catalog.types) == ["mpaa_rating", "year", "span"]
    rating = catalog.types["mpaa_rating"]
    assert (rating.kind, rating.values, rating.schema) == ("enum", ("G", "PG", "PG-13"), "public")
    assert (catalog.types["year"].kind, catalog.types["year"].base) == ("domain", "integer")
    assert catalog.types["span"].kind == "composite"
    assert rating.where is not None and rating.where.line == 4
    assert catalog.types["year"].ddl.startswith("CREATE DOMAIN year AS integer")
    assert catalog.systems[0].tables == ("film",)


def test_enum_values_that_differ_from_the_labels_warn(tmp_path: Path) -> None:
    catalog = load_catalog(write(tmp_path, SYSTEM))
    [warning] = [w for w in catalog.warnings if "enum type mpaa_rating" in w]
    assert "lack ['PG-13']" in warning and "['R']" in warning
    fixed = SYSTEM.replace("R: Restricted", "PG-13: Over 13")
    assert not any("enum type" in w for w in load_catalog(write(tmp_path, fixed)).warnings)


def test_a_qualified_type_is_refused(tmp_path: Path) -> None:
    text = SYSTEM.replace("CREATE TYPE mpaa_rating", "CREATE TYPE other.mpaa_rating")
    with pytest.raises(CatalogError) as error:
        load_catalog(write(tmp_path, text))
    assert error.value.code == "CATALOG_DDL_QUALIFIED"


def test_a_glossary_of_comments_only_has_no_terms(tmp_path: Path) -> None:
    catalog = load_catalog(write(tmp_path, SYSTEM, "# no terms yet\n# terms:\n#   - term: x\n"))
    assert catalog.glossary == ()
