"""The README stays short and points into the documentation site, and the site's dependency
list names every dependency `pyproject.toml` installs (the strict MkDocs build in `make test`
checks the site's own links and pages)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text(encoding="utf-8")
DEPENDENCIES_PAGE = REPO / "docs" / "architecture.md"
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def relative_links(markdown: str) -> list[str]:
    """The targets of a page's Markdown links that are files of the repository.

    >>> relative_links("[a](docs/a.md), [b](https://x.org/), [c](docs/c.md#part)")
    ['docs/a.md', 'docs/c.md']
    """
    return [t for t in LINK.findall(markdown) if "://" not in t and not t.startswith("mailto:")]


def package_name(requirement: str) -> str:
    """A requirement's distribution name, normalised as the dependency table writes it.

    >>> package_name("pyjwt[crypto]>=2.8"), package_name("langgraph-cli[inmem]>=0.4")
    ('pyjwt', 'langgraph-cli')
    """
    return re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0].lower()


def test_the_readme_is_short_and_starts_with_the_two_commands() -> None:
    lines = README.splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines; the guides live in docs/"
    commands = README.index("make demo"), README.index("make test")
    assert README.index("## The two commands") < min(commands)
    assert "3.11, 3.12 and 3.13" in README


def test_every_link_of_the_readme_leads_to_a_file() -> None:
    links = relative_links(README)
    assert any(link.startswith("docs/") for link in links)
    missing = [link for link in links if not (REPO / link).is_file()]
    assert not missing, f"README.md links to files that do not exist: {missing}"


def test_the_link_check_finds_a_missing_file() -> None:
    """The control: a link to a page that does not exist is caught."""
    links = relative_links("[gone](docs/no-such-page.md)")
    assert [link for link in links if not (REPO / link).is_file()] == ["docs/no-such-page.md"]


def test_every_dependency_is_listed_with_its_reason() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    project = config["project"]
    wanted = [*project["dependencies"], *project["optional-dependencies"]["tracing"]]
    wanted += [r for r in project["optional-dependencies"]["dev"] if not r.startswith("orquestra")]
    table = DEPENDENCIES_PAGE.read_text(encoding="utf-8").lower()
    table = table[table.index("## dependencies and why each is there") :]
    listed = {
        re.sub(r"\s*\(.*?\)|\[.*?\]", "", name).strip()
        for row in table.splitlines()
        if row.startswith("| ") and not row.startswith("| package")
        for name in row.split("|")[1].split(",")
    }
    missing = sorted(name for name in map(package_name, wanted) if name not in listed)
    assert not missing, f"docs/architecture.md does not say why these are there: {missing}"
