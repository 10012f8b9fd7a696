"""Suites: the shipped evaluation sets chosen by deployment and split (`orquestra eval --suite`).

The sets live in `evals/datasets/<deployment>/*.jsonl`, one split a file. A suite is named

- `all`: every set of every deployment;
- a deployment (`logistics`): every set of it;
- a split (`heldout`): that split's sets in every deployment;
- `deployment:split` (`clinics:dev`): that split's sets of one deployment.

A suite runs project sets first, then held-out, then development sets, each group in the order
its sets were written (`paraphrases_dev2` before `paraphrases_dev10`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from orquestra.evals.dataset import SPLITS, DatasetError, Split, load_dataset

DATASETS_DIR = Path("evals/datasets")
"""Where the shipped sets are, from the repository's root (they are not in the package)."""


@dataclass(frozen=True)
class SuiteSet:
    """One file of a suite: the deployment it runs on and its split."""

    deployment: str
    split: Split
    path: Path

    @property
    def name(self) -> str:
        """`deployment/stem`, also the report's folder under the suite's output."""
        return f"{self.deployment}/{self.path.stem}"


def deployments(root: Path = DATASETS_DIR) -> list[str]:
    """The deployments with sets: the folders of `root` that hold JSON Lines files."""
    if not root.is_dir():
        raise DatasetError(f"{root}: no datasets folder (run from the repository's root)")
    return sorted(p.name for p in root.iterdir() if p.is_dir() and any(p.glob("*.jsonl")))


def resolve_suite(name: str, root: Path = DATASETS_DIR) -> list[SuiteSet]:
    """The sets a suite name selects, in running order; an unknown name is a clear error."""
    known = deployments(root)
    deployment, _, split = name.partition(":")
    if not split and deployment in SPLITS:
        deployment, split = "all", deployment
    if (deployment != "all" and deployment not in known) or (split and split not in SPLITS):
        raise DatasetError(
            "EVAL_SUITE_UNKNOWN",
            f"unknown suite {name!r}: give all, a deployment ({', '.join(known)}), a split"
            f" ({', '.join(SPLITS)}) or deployment:split",
        )
    chosen = known if deployment == "all" else [deployment]
    found = [s for d in chosen for s in _sets(root / d) if not split or s.split == split]
    if not found:
        raise DatasetError("EVAL_SUITE_EMPTY", f"the suite {name!r} selects no set in {root}")
    return sorted(found, key=lambda s: (s.deployment, SPLITS.index(s.split), _written(s.path)))


def _sets(folder: Path) -> list[SuiteSet]:
    sets = []
    for path in folder.glob("*.jsonl"):
        splits = {case.split for case in load_dataset(path)}
        if len(splits) != 1:
            raise DatasetError(f"{path}: one split a file, found {', '.join(sorted(splits))}")
        sets.append(SuiteSet(folder.name, splits.pop(), path))
    return sets


def _written(path: Path) -> tuple[str, int]:
    """Sorting key: the name without its number, then the number (`dev` is round 1).

    >>> names = ["paraphrases_dev10", "paraphrases_dev2", "paraphrases_dev", "heldout"]
    >>> sorted(names, key=lambda name: _written(Path(name)))
    ['heldout', 'paraphrases_dev', 'paraphrases_dev2', 'paraphrases_dev10']
    """
    stem = path.stem.rstrip("0123456789")
    return stem, int(path.stem[len(stem) :] or 1)
