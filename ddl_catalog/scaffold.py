"""`orquestra init`: a deployment folder drafted from a live schema, for a person to review.

Writes the layout of design §6 — `profile.yaml` (a draft that validates), the imported
system file with its proposed tenancy, a glossary with no terms but a commented template,
an empty `docs/` and `examples.yaml` — then loads the catalog and runs `catalog check`
against the same database. It never overwrites: a folder that holds anything is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import yaml

from orquestra.core.deployment import PROFILE_FILE, Profile
from orquestra.core.errors import OrquestraError
from orquestra.core.texts import counted
from orquestra.ddl_catalog.check import Drift, check_catalog
from orquestra.ddl_catalog.glossary_drafts import draft_terms, drafts_text
from orquestra.ddl_catalog.importer import SchemaImport, import_schema, review_lines
from orquestra.ddl_catalog.loader import CatalogError, load_catalog

GLOSSARY_DRAFT = """\
# Business terms the database cannot explain: what people say, what it means, and, for a
# metric, how it is computed (the SQL writer then uses this definition). To add one, copy
# the template below, uncommented, under `terms:`, one entry per term.
#
# terms:
#   - term: late return
#     synonyms: [overdue]
#     term_en: late return          # optional: its name in English answers and labels
#     definition: A rental returned after its due date.
#     definition_en: A rental returned after its due date.
#     tables: [rental]
#     metric:                       # optional
#       expression: count(*)
#       table: rental
#       filter: return_date > due_date
#       date_column: rental_date
#       better: lower              # optional: which values are better ("worst" = highest)
"""
PROFILE_LANGUAGES = ("en", "pt")
"""The languages a drafted profile speaks; the one the schema is written in first."""
EXAMPLES_DRAFT = """\
# Question → SQL pairs the SQL writer learns from (few-shot). Each entry:
#   - question: ...
#     lang: en
#     kind: analytics          # or tracking
#     tables: [table, ...]
#     sql: |
#       SELECT ...
examples: []
"""


class ScaffoldError(OrquestraError):
    """`orquestra init` cannot write the folder; `code` is stable."""


@dataclass(frozen=True)
class ScaffoldReport:
    """What was written, what the check found, and what a person must review."""

    folder: Path
    system_file: Path
    imported: SchemaImport
    drifts: list[Drift] = field(default_factory=list)
    load_error: str | None = None
    """Why the catalog does not load yet (an undecided table), if it does not."""
    warnings: tuple[str, ...] = ()

    @property
    def ready(self) -> bool:
        return self.load_error is None and not self.drifts

    def review(self) -> list[str]:
        """Every item a person must look at, one a line."""
        lines = review_lines(self.imported)
        lines.append(f"profile draft: {self.folder / PROFILE_FILE} (business, tenant labels)")
        drafts = len(draft_terms(self.imported.profile))
        if drafts:
            lines.append(
                f"glossary drafts: {counted(drafts, 'term', 'terms')}"
                f" in {self.folder / 'catalog' / 'glossary.yaml'}"
                " marked `draft: true`, used by no stage until you confirm each (delete that"
                " line, correct the term) or delete it"
            )
        if self.load_error:
            lines.append(f"the catalog does not load yet: {self.load_error}")
        lines += [f"catalog check: {drift}" for drift in self.drifts]
        return lines


async def scaffold_deployment(
    conn: asyncpg.Connection,
    folder: Path,
    schema: str,
    *,
    tenant_column: str | None,
    views: bool = False,
) -> ScaffoldReport:
    """Write a deployment for `schema` into the empty (or new) `folder`, then check it;
    `tenant_column=None`: one organisation's data (`tenancy: none`, every table shared)."""
    refuse_non_empty(folder)
    imported = await import_schema(
        conn, schema, system=schema, tenant_column=tenant_column, views=views
    )
    system_file = write_folder(folder, schema, imported, tenant_column)
    try:
        catalog = load_catalog(folder / "catalog")
    except CatalogError as exc:
        return ScaffoldReport(folder, system_file, imported, load_error=str(exc))
    drifts = await check_catalog(conn, catalog)
    return ScaffoldReport(folder, system_file, imported, drifts, warnings=catalog.warnings)


def refuse_non_empty(folder: Path) -> None:
    """init never overwrites: anything already in `folder` stops it."""
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise ScaffoldError(
            "INIT_DIR_NOT_EMPTY",
            f"{folder} is not an empty folder; init never overwrites. Choose a new folder "
            "(or empty this one) and run it again",
        )


def write_folder(
    folder: Path, schema: str, imported: SchemaImport, tenant_column: str | None
) -> Path:
    """The deployment's files (design §6); returns the system file's path."""
    catalog_dir = folder / "catalog"
    (catalog_dir / "systems").mkdir(parents=True)
    (catalog_dir / "docs").mkdir()
    system_file = catalog_dir / "systems" / f"{schema}.yaml"
    system_file.write_text(imported.text, encoding="utf-8")
    glossary = GLOSSARY_DRAFT + drafts_text(imported.profile)
    (catalog_dir / "glossary.yaml").write_text(glossary, encoding="utf-8")
    (catalog_dir / "examples.yaml").write_text(EXAMPLES_DRAFT, encoding="utf-8")
    profile = draft_profile(folder, tenant_column, imported.profile.language)
    (folder / PROFILE_FILE).write_text(profile, encoding="utf-8")
    return system_file


def draft_profile(folder: Path, tenant_column: str | None, language: str = "en") -> str:
    """A `profile.yaml` that validates, with every business word for a person to write;
    `tenant_column=None` drafts one organisation's (`tenancy: none`, no tenant labels)."""
    document: dict[str, Any] = {
        "name": _profile_name(folder.resolve().name),
        "assistant_name": "Orquestra",
        "languages": sorted(PROFILE_LANGUAGES, key=lambda lang: lang != language),
        "default_language": language,
        "business": {
            "en": "TODO: one paragraph on what the business does and who asks the questions.",
            "pt": "TODO: um parágrafo sobre o que o negócio faz e quem faz as perguntas.",
        },
        "timezone": "UTC",
        "currency": "USD",
        "locale": {"en": "en-US", "pt": "pt-BR"},
        "examples": {"en": [], "pt": []},
        "topics": {"en": [], "pt": []},
    }
    if tenant_column is None:
        document = {**document, "tenancy": "none"}
        about = (
            "# One organisation's data (tenancy: none): every signed-in person reads every\n"
            "# table, and tokens carry no tenant.\n"
        )
    else:
        label = re.sub(r"(_id|_code|_cod|_key|id)$", "", tenant_column.lower()).strip("_")
        label = (label or "tenant").replace("_", " ")
        document["tenant"] = {
            lang: {"singular": label, "plural": f"{label}s"} for lang in document["languages"]
        }
        about = (
            f"# The tenant labels come from the tenant column ({tenant_column}): write what\n"
            "# people call a tenant in each language.\n"
        )
    Profile.model_validate(document)  # the draft must load before a person edits it
    header = (
        "# DRAFT written by `orquestra init`: review every field: the business paragraphs,\n"
        "# the time zone, currency and example questions.\n"
        + about
        + f"# The schema's names, comments and values read as {language!r}: it comes first in\n"
        "# languages and is the default one.\n"
    )
    body: str = yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100)
    return header + body


def _profile_name(text: str) -> str:
    """A profile `name` (`^[a-z][a-z0-9_-]{0,62}$`) from the folder's name."""
    name = re.sub(r"[^a-z0-9_-]+", "-", text.lower()).strip("-_")
    if not name or not name[0].isalpha():
        name = f"d-{name}".rstrip("-")
    return name[:63]
