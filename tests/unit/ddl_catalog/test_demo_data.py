"""The demo data generator: deterministic, scalable, shaped like the catalog."""

from __future__ import annotations

from datetime import date

import pytest

from orquestra.ddl_catalog import load_catalog
from orquestra.ddl_catalog.demo import DemoData, generate

REFERENCE = date(2026, 6, 30)


@pytest.fixture(scope="module")
def small() -> DemoData:
    return generate(7, 0.2, REFERENCE)


def test_same_seed_gives_identical_data(small: DemoData) -> None:
    again = generate(7, 0.2, REFERENCE)
    assert again.checksums() == small.checksums()


def test_another_seed_gives_other_data(small: DemoData) -> None:
    other = generate(8, 0.2, REFERENCE)
    changed = {
        name for name, digest in other.checksums().items() if digest != small.checksums()[name]
    }
    assert changed >= {"pedidos", "notas_fiscais", "eventos_rastreamento", "titulos"}


def test_rows_match_the_catalog_columns(small: DemoData) -> None:
    catalog = load_catalog()
    assert set(small.tables) == set(catalog.tables)
    for name, rows in small.tables.items():
        width = len(catalog.table(name).columns)
        assert rows, name
        assert all(len(row) == width for row in rows), name


def test_scale_grows_the_data() -> None:
    counts = generate(7, 1.0, REFERENCE).row_counts()
    bigger = generate(7, 2.0, REFERENCE).row_counts()
    assert sum(counts.values()) >= 100_000
    assert bigger["pedidos"] > 1.8 * counts["pedidos"]
    assert bigger["eventos_rastreamento"] > 1.8 * counts["eventos_rastreamento"]


def test_reference_date_bounds_the_history(small: DemoData) -> None:
    moments = [row[3] for row in small.tables["pedidos"]]
    assert min(moments).date() >= date(2024, 7, 1)
    assert max(moments).date() <= REFERENCE
    shifted = generate(7, 0.2, date(2025, 12, 31))
    assert max(row[3] for row in shifted.tables["pedidos"]).date() <= date(2025, 12, 31)
    events = shifted.tables["eventos_rastreamento"]
    assert max(row[-1] for row in events).date() <= date(2025, 12, 31)
