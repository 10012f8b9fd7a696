"""Small helpers the benchmarks share to report figures."""

from __future__ import annotations

import statistics


def quantile(values: list[float], q: float) -> float:
    """The `q` quantile (nearest rank) of `values`."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(values: list[float], q: float) -> str:
    """`median X ms   pNN Y ms` for a list of milliseconds."""
    return (
        f"median {statistics.median(values):7.3f} ms   "
        f"p{round(q * 100)} {quantile(values, q):7.3f} ms"
    )
