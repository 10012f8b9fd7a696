"""The shell and Python examples of the documentation run, as a reader would run them.

Every fenced `bash`, `sh`, `shell`, `python` or `py` block of `docs/**/*.md` runs against the
demo (the session's embedded PostgreSQL with the demo data, the offline model, no key, no
network), from a scratch folder that sees the repository's files, and must exit 0. A block that
cannot run here says so, with the reason, in an HTML comment on the line right before its fence
(blank lines between are allowed):

    <!-- not run: needs an API key -->
    ```bash
    .venv/bin/orquestra models check
    ```

Each block runs alone (a new shell or interpreter): one that needs what an earlier block set up
does that itself, or is marked. The pages are read when the tests are collected, so a new guide
is covered without a change here.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
RUNNABLE = {"bash": "shell", "sh": "shell", "shell": "shell", "python": "python", "py": "python"}
"""Fence languages that are run, and how."""
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<lang>[\w+-]*)[^\n]*$")
NOT_RUN = re.compile(r"^<!--\s*not run:\s*(?P<reason>.*?)\s*-->$")
MARKER = re.compile(r"^<!--\s*not[ -]?run\b", re.IGNORECASE)
TIMEOUT_S = 120
"""Per block; a block that needs longer (`make demo`, `make test`) is marked as not run."""
OWN_VARIABLES = ("ORQUESTRA_", "OPENAI_", "LANGSMITH_", "LANGCHAIN_", "LANGFUSE_", "OTEL_")


@dataclass(frozen=True)
class Block:
    """One fenced block: where it is, its language, its text, the comment before it."""

    page: str
    line: int
    language: str
    text: str
    before: str

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def skip_reason(self) -> str | None:
        """The reason of a well-formed `<!-- not run: … -->` before the fence, if any."""
        found = NOT_RUN.match(self.before)
        return found.group("reason") if found else None


def blocks(folder: Path = DOCS) -> list[Block]:
    """Every fenced block of the Markdown pages under `folder`, in page and line order."""
    found = []
    for path in sorted(folder.rglob("*.md")):
        lines = path.read_text(encoding="utf-8").splitlines()
        before, index = "", 0
        while index < len(lines):
            opening = FENCE.match(lines[index])
            if not opening:
                if lines[index].strip():
                    before = lines[index].strip()
                index += 1
                continue
            indent, fence = len(opening["indent"]), opening["fence"]
            body, start = [], index + 1
            index += 1
            while index < len(lines) and not lines[index].strip().startswith(fence):
                body.append(
                    lines[index][indent:] if lines[index][:indent].isspace() else lines[index]
                )
                index += 1
            page = path.relative_to(folder.parent).as_posix()
            found.append(
                Block(page, start, opening["lang"].lower(), "\n".join(body) + "\n", before)
            )
            before, index = "", index + 1
    return found


RUN = [b for b in blocks() if b.language in RUNNABLE and b.skip_reason is None]
MARKED = [b for b in blocks() if MARKER.match(b.before)]


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder that sees the repository's top-level files and folders (so `.venv/bin/…`,
    `deployments/…` and `evals/…` resolve) but keeps what a block writes at its top level
    (`orquestra init shop`) out of the repository."""
    folder = tmp_path_factory.mktemp("doc-examples")
    for entry in REPO.iterdir():
        if entry.name not in (".git", ".orquestra", "site"):
            (folder / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    return folder


def environment(data_dir: Path) -> dict[str, str]:
    """The demo's environment: the session's embedded database, no key, no config file."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(OWN_VARIABLES)}
    env.pop("DATABASE_URL", None)
    bin_dir = str(Path(sys.executable).parent)
    return {
        **env,
        "PATH": f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        "ORQUESTRA_DATA_DIR": str(data_dir),
        "ORQUESTRA_CONFIG": str(REPO / "tests" / "no-such-config.yaml"),
        "ORQUESTRA_METRICS_ENABLED": "false",
    }


def command(block: Block) -> list[str]:
    if RUNNABLE[block.language] == "python":
        return [sys.executable, "-c", block.text]
    return ["bash", "-e", "-o", "pipefail", "-c", block.text]


@pytest.mark.parametrize("block", RUN, ids=[b.id for b in RUN])
def test_the_example_runs(block: Block, demo_db: object, data_dir: Path, scratch: Path) -> None:
    try:
        done = subprocess.run(
            command(block),
            cwd=scratch,
            env=environment(data_dir),
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(
            f"{block.id} ran past {TIMEOUT_S} s: make it cheaper, or mark it with"
            " <!-- not run: REASON --> before its fence"
        )
    assert done.returncode == 0, (
        f"{block.id} exited {done.returncode}. Fix the example, or, if it cannot run against"
        " the demo here, put `<!-- not run: REASON -->` on the line before its fence.\n"
        f"--- block\n{block.text}--- stdout\n{done.stdout[-3000:]}--- stderr\n{done.stderr[-3000:]}"
    )


def test_every_not_run_marker_is_well_formed_and_gives_a_reason() -> None:
    wrong = [b.id for b in MARKED if not (b.skip_reason or "").strip()]
    assert not wrong, f"write `<!-- not run: REASON -->` (a reason, after a colon) at {wrong}"


def test_the_pages_have_examples_that_run() -> None:
    """A control: the pages are found and read, and not every example is marked away."""
    found = blocks()
    assert found, "no fenced block found under docs/"
    shell = [b for b in found if b.language in RUNNABLE]
    if shell:
        assert RUN, "every shell and Python example is marked as not run"


def test_the_reader_finds_fences_and_markers(tmp_path: Path) -> None:
    """The extraction on a page written here: the marker, a blank line, indented fences."""
    (tmp_path / "page.md").write_text(
        "Intro.\n\n<!-- not run: needs an API key -->\n\n```bash\norquestra models check\n```\n\n"
        "- a list item:\n\n    ```python\n    print(1)\n    ```\n\n~~~yaml\nkey: 1\n~~~\n",
        encoding="utf-8",
    )
    found = blocks(tmp_path)
    assert [(b.language, b.skip_reason) for b in found] == [
        ("bash", "needs an API key"),
        ("python", None),
        ("yaml", None),
    ]
    assert found[1].text == "print(1)\n"
