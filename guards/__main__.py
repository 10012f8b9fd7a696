"""`orquestra guard rewrite --policy FILE --tenant T [--max-rows N]`: SQL on stdin → JSON
(also `python -m orquestra.guards rewrite …`).

Prints `{"sql": "...", "params": [...]}` and exits 0, or `{"rejected": "CODE", "message":
"..."}` and exits 3. Without `--policy` the policy comes from the DDL catalog. `--max-rows 0`
means no row cap.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from orquestra.guards import GuardPolicy, GuardRejection, guard_sql

EXIT_REJECTED = 3


def add_rewrite(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    """The `rewrite` command's arguments (shared by `orquestra guard` and this module)."""
    rewrite = commands.add_parser("rewrite", help="guard the SQL read from stdin")
    rewrite.add_argument("--policy", type=Path, default=None, help="policy YAML file")
    rewrite.add_argument("--tenant", required=True)
    rewrite.add_argument("--max-rows", type=int, default=None, help="row cap; 0 = none")
    return rewrite


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m orquestra.guards")
    add_rewrite(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return rewrite(args.policy, args.tenant, args.max_rows)


def rewrite(path: Path | None, tenant: str, max_rows: int | None) -> int:
    """Guard the SQL on stdin as `tenant`; print the JSON; exit 0, or 3 when refused."""
    try:
        policy, cap = _policy_and_cap(path, max_rows)
        result = guard_sql(sys.stdin.read(), policy, tenant, cap)
    except GuardRejection as exc:
        print(json.dumps(exc.as_dict(), ensure_ascii=False))
        return EXIT_REJECTED
    print(json.dumps(result.as_dict(), ensure_ascii=False))
    return 0


def _policy_and_cap(path: Path | None, max_rows: int | None) -> tuple[GuardPolicy, int]:
    if path is not None and max_rows is not None:
        return GuardPolicy.from_file(path), max_rows
    from orquestra.core.settings import Settings
    from orquestra.ddl_catalog import CatalogError, load_catalog

    settings = Settings()
    cap = settings.limits.row_cap if max_rows is None else max_rows
    if path is not None:
        return GuardPolicy.from_file(path), cap
    try:
        return GuardPolicy.from_catalog(load_catalog(settings.catalog_dir)), cap
    except CatalogError as exc:
        raise GuardRejection("GUARD_POLICY_INVALID", exc.message) from None


if __name__ == "__main__":
    sys.exit(main())
