"""Deployments shipped with Orquestra: one folder per business (profile, catalog, rails).

`logistics` is the demo and the default; `clinics` is the second sample. A deployment of
one's own is any folder with the same layout (see `ddl_catalog.deployment`).
"""

from pathlib import Path

DEPLOYMENTS_DIR = Path(__file__).parent
"""The folder holding the packaged deployments, one sub-folder each."""
DEFAULT_DEPLOYMENT = "logistics"
"""The deployment used when none is chosen (`ORQUESTRA_DEPLOYMENT` unset)."""
