"""The demo logistics platform's data: seeded, scalable, full of real data's traps."""

from ddl_catalog.demo.generator import DemoData, generate

__all__ = ["DemoData", "generate"]
