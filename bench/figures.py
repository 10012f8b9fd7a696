"""Small helpers the benchmarks share to report figures."""

from __future__ import annotations

import statistics
import subprocess
import time

import httpx

DATA_QUESTIONS = [
    "status da nota 40908",
    "onde está a carga 7001?",
    "faturamento por mês em 2026",
    "top 5 clientes por valor vencido",
    "cargas atrasadas por transportadora",
    "quantas notas bloqueadas em maio?",
    "ticket médio por canal em 2025",
    "lead time médio por modal",
    "which carrier has the most late shipments?",
    "overdue bills by customer",
    "produtos mais vendidos no último trimestre",
    "frete por kg por transportadora em 2026",
]
"""Data questions the benchmarks share: tracking and analytics, Portuguese and English."""


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


def wait_until_ready(
    url: str, process: subprocess.Popen | None = None, seconds: float = 240
) -> None:
    """Poll a started server's `/readyz` until it answers 200; stop early if its `process`
    exits, and give up after `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise SystemExit(f"{url}: the process exited ({process.returncode}); see its log")
        try:
            if httpx.get(f"{url}/readyz", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise SystemExit(f"{url} was not ready within {seconds:.0f} s")
