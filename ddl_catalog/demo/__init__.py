"""Packaged sample data, one seeded generator per sample deployment.

A deployment's profile names its generator (`sample_data: logistics`); `db init` and `demo`
call `generate_sample(name, seed, scale, reference_date)`. Generators are imported only when
asked for, so one deployment's generator never loads another's code.
"""

from __future__ import annotations

import importlib
from datetime import date
from types import ModuleType
from typing import Protocol

from orquestra.core.errors import OrquestraError
from orquestra.ddl_catalog.demo.generator import DemoData, generate

SAMPLE_GENERATORS = {
    "logistics": "orquestra.ddl_catalog.demo.generator",
    "clinics": "orquestra.ddl_catalog.demo.clinics",
}
"""Sample-data name → module whose `generate(seed, scale, reference_date)` builds it."""


class SampleDataError(OrquestraError):
    """No sample data can be generated; `code` is stable, `message` says why."""


class Generator(Protocol):
    def __call__(self, seed: int, scale: float, reference_date: date) -> DemoData: ...


def sample_generator(name: str) -> Generator:
    """The generator registered as `name`; a `SampleDataError` if unknown or not installed."""
    generator: Generator = _generator_module(name).generate
    return generator


def sample_version(name: str) -> int:
    """The version of the rows `name`'s generator makes (its `DATA_VERSION`, 1 if unset)."""
    return int(getattr(_generator_module(name), "DATA_VERSION", 1))


def _generator_module(name: str) -> ModuleType:
    module_name = SAMPLE_GENERATORS.get(name)
    if module_name is None:
        known = ", ".join(sorted(SAMPLE_GENERATORS))
        raise SampleDataError("SAMPLE_DATA_UNKNOWN", f"no sample data named {name!r} ({known})")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise  # a dependency of the generator is missing: a real error, shown as such
        raise SampleDataError(
            "SAMPLE_DATA_UNAVAILABLE", f"the {name!r} sample data is not in this installation"
        ) from None
    return module


def generate_sample(name: str, seed: int, scale: float, reference_date: date) -> DemoData:
    """Rows of every table of the sample deployment `name`, seeded and scaled."""
    return sample_generator(name)(seed, scale, reference_date)


__all__ = [
    "SAMPLE_GENERATORS",
    "DemoData",
    "SampleDataError",
    "generate",
    "generate_sample",
    "sample_generator",
    "sample_version",
]
