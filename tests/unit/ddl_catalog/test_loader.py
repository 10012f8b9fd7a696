"""The catalog loader: the demo catalog's content, and strict, located errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from orquestra.ddl_catalog import CatalogError, load_catalog
from orquestra.ddl_catalog.render import render_term
from orquestra.guards.table_policy import GuardPolicy, TablePolicy
from tests.catalog_copies import catalog_copy, edit

DESIGN_TABLES = {
    "cadastro": ["fornecedores", "clientes", "produtos", "transportadoras"],
    "vendas": ["pedidos", "itens_pedido"],
    "fiscal": ["notas_fiscais"],
    "transporte": ["cargas", "carga_notas"],
    "rastreamento": ["eventos_rastreamento"],
    "financeiro": ["titulos"],
}


def test_demo_catalog_has_the_six_systems_and_eleven_tables() -> None:
    catalog = load_catalog()
    assert {s.name: list(s.tables) for s in catalog.systems} == DESIGN_TABLES
    assert catalog.warnings == ()  # every column documented
    notas = catalog.table("notas_fiscais")
    assert notas.primary_key == ("cod_fornecedor", "serie", "num_nota")
    assert notas.column_names[:3] == ("cod_fornecedor", "serie", "num_nota")
    assert notas.column("valor_nota").type_sql == "numeric(14, 2)"
    assert not notas.column("motivo_bloqueio").not_null
    assert set(notas.column("status").meta.values) == {
        "EMITIDA",
        "AUTORIZADA",
        "BLOQUEADA",
        "CANCELADA",
    }
    assert "invoice" in notas.meta.synonyms.en and "NF-e" in notas.meta.synonyms.pt


def test_tenancy_drives_the_guard_policy() -> None:
    policy = GuardPolicy.from_catalog(load_catalog()).tables
    assert policy["transportadoras"] == TablePolicy("transportadoras", "public", None)
    assert all(
        entry == TablePolicy(name, "public", "cod_fornecedor")
        for name, entry in policy.items()
        if name != "transportadoras"
    )
    assert set(policy) == {t for tables in DESIGN_TABLES.values() for t in tables}


def test_locations_point_at_the_lines_in_the_file() -> None:
    catalog = load_catalog()
    column = catalog.table("notas_fiscais").column("valor_nota")
    line = column.where.file.read_text(encoding="utf-8").splitlines()[column.where.line - 1]
    assert line.strip().startswith("valor_nota")
    table = catalog.table("cargas")
    assert "CREATE TABLE cargas" in table.where.file.read_text().splitlines()[table.where.line - 1]


def test_glossary_has_business_terms_with_metric_definitions() -> None:
    catalog = load_catalog()
    terms = {t.term.lower(): t for t in catalog.glossary}
    assert len(terms) >= 15
    faturamento = terms["faturamento"]
    assert faturamento.metric is not None
    assert faturamento.metric.table == "notas_fiscais"
    assert "AUTORIZADA" in (faturamento.metric.filter or "")
    assert faturamento.metric.date_column == "data_emissao"
    for required in ("nota bloqueada", "ticket médio", "lead time", "otif", "cfop", "modal"):
        assert required in terms, required


@pytest.mark.parametrize(
    ("old", "new", "code", "same_line"),
    [
        ("      motivo_bloqueio:\n", "      motivo_do_bloqueio:\n", "CATALOG_UNKNOWN_COLUMN", True),
        ("    tenant_column: cod_fornecedor\n", "", "CATALOG_INVALID", False),
        ("- to: pedidos\n", "- to: pedidos_antigos\n", "CATALOG_JOIN_TABLE", False),
        (
            "  );\n  CREATE INDEX",
            "  );\n  DROP TABLE pedidos;\n  CREATE INDEX",
            "CATALOG_DDL_STATEMENT",
            False,
        ),
        (
            "CREATE TABLE notas_fiscais (",
            "CREATE TABLE public.notas_fiscais (",
            "CATALOG_DDL_QUALIFIED",
            True,
        ),
        (
            "      valor_nota       numeric(14,2)  NOT NULL,",
            "      valor_nota  numeric(14,2 NOT NULL,",
            "CATALOG_DDL_SYNTAX",
            False,
        ),
        ("system: fiscal", "system: fiscal\n  bad: [indent", "CATALOG_YAML", False),
        ("purpose_en:", "porpose_en:", "CATALOG_INVALID", True),
    ],
)
def test_broken_fiscal_file_is_rejected_with_code_and_line(
    tmp_path: Path, old: str, new: str, code: str, same_line: bool
) -> None:
    folder = catalog_copy(tmp_path)
    path = folder / "systems" / "fiscal.yaml"
    line = edit(path, old, new)
    with pytest.raises(CatalogError) as caught:
        load_catalog(folder)
    assert caught.value.code == code
    assert "fiscal.yaml:" in caught.value.message
    if same_line:
        assert f"fiscal.yaml:{line}:" in caught.value.message


def test_glossary_naming_an_unknown_table_is_rejected(tmp_path: Path) -> None:
    folder = catalog_copy(tmp_path)
    edit(
        folder / "glossary.yaml",
        "tables: [notas_fiscais, pedidos, titulos]",
        "tables: [notas, pedidos, titulos]",
    )
    with pytest.raises(CatalogError) as caught:
        load_catalog(folder)
    assert caught.value.code == "CATALOG_GLOSSARY_TABLE"


def test_a_metric_says_which_values_are_better(tmp_path: Path) -> None:
    """`better` is read, shown to the SQL writer with the metric, and only higher or lower."""
    terms = {t.term: t for t in load_catalog().glossary}
    otif, lead_time = terms["OTIF"].metric, terms["lead time"].metric
    assert otif is not None and lead_time is not None
    assert (otif.better, lead_time.better) == ("higher", "lower")
    assert render_term(terms["OTIF"]).endswith("; higher is better")
    folder = catalog_copy(tmp_path)
    otif_metric = "      date_column: data_saida\n      better: higher\n"
    edit(folder / "glossary.yaml", otif_metric, otif_metric.replace("higher", "bigger"))
    with pytest.raises(CatalogError) as caught:
        load_catalog(folder)
    assert "glossary.yaml" in caught.value.message and "better" in caught.value.message


def test_the_tenant_directory_is_the_tenants_own_table(tmp_path: Path) -> None:
    assert load_catalog().tenant_directory().name == "fornecedores"
    folder = catalog_copy(tmp_path)
    cadastro = folder / "systems" / "cadastro.yaml"
    edit(cadastro, "tenant_name_column: razao_social", "tenant_name_column: razao")
    with pytest.raises(CatalogError) as caught:
        load_catalog(folder)
    assert caught.value.code == "CATALOG_TENANT_NAME_COLUMN"


def test_only_the_tenants_table_names_tenants(tmp_path: Path) -> None:
    folder = catalog_copy(tmp_path)
    edit(folder / "systems" / "cadastro.yaml", "    tenant_name_column: razao_social\n", "")
    # Customers carry the tenant column but are keyed by their own code: not the directory.
    text = (folder / "systems" / "cadastro.yaml").read_text(encoding="utf-8")
    marker = "  clientes:\n"
    at = text.index(marker)
    following = text.index("    tenant_column: cod_fornecedor\n", at)
    end = following + len("    tenant_column: cod_fornecedor\n")
    text = text[:end] + "    tenant_name_column: nome\n" + text[end:]
    (folder / "systems" / "cadastro.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(CatalogError, match="tenants' own table"):
        load_catalog(folder)


def test_tenant_columns_share_one_kind_of_identifier(tmp_path: Path) -> None:
    folder = catalog_copy(tmp_path)
    text = (folder / "systems" / "vendas.yaml").read_text(encoding="utf-8")
    assert text.count("cod_fornecedor  integer") >= 1
    (folder / "systems" / "vendas.yaml").write_text(
        text.replace("cod_fornecedor  integer", "cod_fornecedor  text", 1), encoding="utf-8"
    )
    with pytest.raises(CatalogError) as caught:
        load_catalog(folder)
    assert caught.value.code == "CATALOG_TENANT_TYPES"
