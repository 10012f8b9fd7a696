"""The graph's resources in tests: opened once per deployment's settings, handed to the graph's
builder the way the server does (`build_graph(resources)`)."""

from __future__ import annotations

from orquestra.core.settings import Settings
from orquestra.graph.resources import Resources


class OpenResources:
    """The graph's resources for one deployment's settings at a time, opened when a test
    first asks and kept for the next test of the same settings (opening costs seconds)."""

    def __init__(self) -> None:
        self.current: Resources | None = None

    async def of(self, settings: Settings) -> Resources:
        if self.current is not None and self.current.settings is not settings:
            await self.current.close()  # another deployment's: one set of pools at a time
            self.current = None
        if self.current is None:
            self.current = await Resources.open(settings)
        return self.current
