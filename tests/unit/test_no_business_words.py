"""The code knows no business: the sample deployments' words never appear in the framework.

Every business word (what a tenant is called, what the data is about, the example questions)
comes from the deployment folder — its profile, catalog and glossary. This test reads every
text file under the framework's packages and names each line where one of the samples' words
appears, so a word that slips back in is caught with its file and line. The demo deployment
(`deployments/`), their data generators (`ddl_catalog/demo/`) and the tests are outside its
scope.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FRAMEWORK = (
    "core",
    "ddl_catalog",
    "guards",
    "offline",
    "sandbox",
    "graph",
    "nodes",
    "agent",
    "server",
)
SAMPLE_GENERATORS = "ddl_catalog/demo/"
"""The sample deployments' data generators: business by nature, like `deployments/`."""
TEXT_SUFFIXES = {".py", ".md", ".yaml", ".yml", ".js", ".mjs", ".html", ".css", ".json", ".txt"}
# A letter on either side means another word ("denotar", "descarga"); an underscore or a digit
# does not, so identifiers such as `num_nota` or `cod_carga` are caught too.
_EDGE_BEFORE = r"(?<![a-zà-ÿ])"
_EDGE_AFTER = r"(?![a-zà-ÿ])"
BUSINESS_WORDS = re.compile(
    "|".join(
        [
            _EDGE_BEFORE + r"notas?" + _EDGE_AFTER,
            r"fornecedor",
            r"faturamento",
            _EDGE_BEFORE + r"cargas?" + _EDGE_AFTER,
            r"log[ií]stic",
            r"invoice",
            r"supplier",
            r"shipment",
            # the second sample deployment (clinics): the code knows that business no better
            _EDGE_BEFORE + r"laudos?" + _EDGE_AFTER,
            _EDGE_BEFORE + r"exames?" + _EDGE_AFTER,
            _EDGE_BEFORE + r"plant(?:ao|ão|oes|ões)" + _EDGE_AFTER,
            _EDGE_BEFORE + r"pacientes?" + _EDGE_AFTER,
            _EDGE_BEFORE + r"cl[ií]nic(?:as?|s)" + _EDGE_AFTER,
            r"radiolog",
        ]
    ),
    re.IGNORECASE,
)


def business_words(text: str, where: str = "<text>") -> list[str]:
    """`where:line: word — the line` for every demo business word in `text`."""
    hits = []
    for number, line in enumerate(text.splitlines(), start=1):
        for match in BUSINESS_WORDS.finditer(line):
            hits.append(f"{where}:{number}: {match.group(0)!r} — {line.strip()[:120]}")
    return hits


def framework_files() -> list[Path]:
    """Every text file of the framework's packages (compiled caches left out)."""
    files = []
    for package in FRAMEWORK:
        for path in sorted((REPO / package).rglob("*")):
            generator = str(path.relative_to(REPO)).startswith(SAMPLE_GENERATORS)
            if (
                path.is_file()
                and path.suffix in TEXT_SUFFIXES
                and "__pycache__" not in path.parts
                and not generator
            ):
                files.append(path)
    return files


def test_the_framework_names_no_business_of_its_own() -> None:
    hits = []
    for path in framework_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        hits += business_words(text, str(path.relative_to(REPO)))
    assert not hits, "sample deployments' business words in framework code:\n" + "\n".join(hits)


def test_the_check_knows_the_second_deployments_words() -> None:
    text = 'x = "status do laudo"\ny = "exames por clínica"\nz = "exameter"\n'
    assert [hit.split(" — ")[0] for hit in business_words(text, "graph/x.py")] == [
        "graph/x.py:1: 'laudo'",
        "graph/x.py:2: 'exames'",
        "graph/x.py:2: 'clínica'",
    ]


def test_the_check_finds_a_business_word_with_its_line() -> None:
    text = 'ok = 1\nGREETING = "Consulto suas Notas e cargas"\nkey = "cod_fornecedor"\n'
    hits = business_words(text, "nodes/example.py")
    assert [hit.split(" — ")[0] for hit in hits] == [
        "nodes/example.py:2: 'Notas'",
        "nodes/example.py:2: 'cargas'",
        "nodes/example.py:3: 'fornecedor'",
    ]


def test_the_check_leaves_other_words_alone() -> None:
    text = "denotar, descarregar, anotação, notable, carregamento, tenant, store, loja"
    assert business_words(text) == []


def test_the_check_sees_the_framework_files() -> None:
    # An empty walk would make the first test pass without reading anything.
    names = {path.name for path in framework_files()}
    assert {"prompts.py", "router.md", "wiring.py"} <= names


def _defaults(value: object) -> list[str]:
    """Every text inside a default value (nested settings, lists, mappings)."""
    from pydantic import BaseModel

    if isinstance(value, BaseModel):
        return [t for name in type(value).model_fields for t in _defaults(getattr(value, name))]
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in (*_defaults(k), *_defaults(v))]
    if isinstance(value, list | tuple | set | frozenset):
        return [t for item in value for t in _defaults(item)]
    return [str(value)] if isinstance(value, str | Path) else []


def test_no_default_or_fallback_is_taken_from_a_sample_deployment() -> None:
    """Defaults are where a sample's words slip in unseen (`init` once fell back to the demo's
    tenant column): no command-line option and no setting defaults to a sample deployment's
    table or column name, or to one of its business words."""
    import argparse

    from orquestra.core.settings import Settings
    from orquestra.ddl_catalog import load_catalog
    from orquestra.deployments import DEPLOYMENTS_DIR
    from orquestra.server.cli import build_parser

    names = set()
    for folder in sorted(DEPLOYMENTS_DIR.iterdir()):
        if (folder / "catalog").is_dir():
            catalog = load_catalog(folder / "catalog")
            names |= set(catalog.tables)
            names |= {c.name for t in catalog.tables.values() for c in t.columns if "_" in c.name}
    assert "cod_fornecedor" in names  # the walk reads the samples' catalogs

    texts: list[str] = []
    parsers = [build_parser()]
    while parsers:
        parser = parsers.pop()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                parsers += list(action.choices.values())
            elif action.default is not argparse.SUPPRESS:
                texts += _defaults(action.default)
    for name, field in Settings.model_fields.items():
        if name not in {"deployment", "catalog_dir", "guardrails_file", "database_name"}:
            texts += _defaults(field.default)
    hits = [t for t in texts if t in names or business_words(t)]
    assert not hits, f"defaults taken from a sample deployment: {hits}"
    assert Settings.model_fields["tenant_column"].default is None
