"""Schema-scale benchmark: source selection over a generated catalog of 30 systems, 300 tables.

Usage: python bench/schema_scale.py [--questions 120]
Writes a catalog (one YAML file per system, loaded by the real loader) with tables whose
relevant tables are known for each question, then reports source-selection recall@k, the
SQL writer's prompt size with selection versus the whole catalog, and how long selecting
takes (the question's own vector aside, its unknown words' vectors included). Vectors are
cached on disk under ORQUESTRA_DATA_DIR/cache, so a second run is fast.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path

import yaml

from orquestra.core.settings import Settings
from orquestra.ddl_catalog import load_catalog
from orquestra.ddl_catalog.render import render_schema
from orquestra.graph.embeddings import E5Embeddings
from orquestra.graph.sources import choose_sources, source_index
from orquestra.graph.vector_cache import VectorCache

DOMAINS = [
    ("compras", "purchasing"),
    ("estoque", "inventory"),
    ("rh", "human resources"),
    ("contabilidade", "accounting"),
    ("manutencao", "maintenance"),
    ("qualidade", "quality"),
    ("producao", "production"),
    ("ecommerce", "online store"),
    ("marketing", "marketing"),
    ("frota", "fleet"),
    ("armazenagem", "warehousing"),
    ("importacao", "imports"),
    ("exportacao", "exports"),
    ("tributos", "taxes"),
    ("juridico", "legal"),
    ("ti", "information technology"),
    ("atendimento", "customer service"),
    ("garantia", "warranty"),
    ("seguros", "insurance"),
    ("patrimonio", "fixed assets"),
    ("tesouraria", "treasury"),
    ("orcamento", "budget"),
    ("projetos", "projects"),
    ("pesquisa", "research"),
    ("laboratorio", "laboratory"),
    ("energia", "energy"),
    ("ambiental", "environmental"),
    ("seguranca", "safety"),
    ("treinamento", "training"),
    ("licitacoes", "tenders"),
]
ENTITIES = [
    ("pedido", "order"),
    ("contrato", "contract"),
    ("fatura", "bill"),
    ("ocorrencia", "incident"),
    ("inspecao", "inspection"),
    ("solicitacao", "request"),
    ("aprovacao", "approval"),
    ("lancamento", "entry"),
    ("auditoria", "audit"),
    ("indicador", "indicator"),
]


def generate(folder: Path) -> dict[str, tuple[str, str, str]]:
    """Write the catalog; return table → (domain pt, entity pt, entity en + domain en)."""
    (folder / "systems").mkdir(parents=True)
    tables = {}
    for domain, domain_en in DOMAINS:
        ddl, meta = [], {}
        for entity, entity_en in ENTITIES:
            name = f"{domain}_{entity}"
            ddl.append(
                f"CREATE TABLE {name} (\n    id bigint NOT NULL,\n    cod_fornecedor integer"
                f" NOT NULL,\n    criado_em date NOT NULL,\n    valor numeric(14,2),\n"
                f"    situacao text NOT NULL,\n    PRIMARY KEY (id)\n);"
            )
            meta[name] = {
                "description": f"Registros de {entity} da área de {domain}.",
                "tenant_column": "cod_fornecedor",
                "synonyms": {"pt": [f"{entity} de {domain}"], "en": [f"{domain_en} {entity_en}"]},
                "columns": {
                    "valor": {"description": "Valor.", "synonyms": {"pt": ["valor"]}},
                    "situacao": {
                        "description": "Situação.",
                        "values": {"ABERTO": "Aberto.", "FECHADO": "Fechado."},
                    },
                },
            }
            tables[name] = (domain, entity, f"{domain_en} {entity_en}")
        document = {
            "system": domain,
            "title": domain,
            "purpose": f"Sistema de {domain}.",
            "schema": "public",
            "ddl": "\n".join(ddl) + "\n",
            "tables": meta,
        }
        (folder / "systems" / f"{domain}.yaml").write_text(
            yaml.safe_dump(document, allow_unicode=True)
        )
    return tables


KINDS = (
    "portuguese, the table's words",
    "english, the table's words",
    "paraphrase, no synonym phrase",
)


def questions(tables: dict, count: int, rng: random.Random) -> list[tuple[str, str, str]]:
    chosen = rng.sample(sorted(tables), count)
    out = []
    for index, name in enumerate(chosen):
        domain, entity, english = tables[name]
        kind = KINDS[index % 3]
        if kind.startswith("portuguese"):
            out.append((f"qual o valor total de {entity}s de {domain} em 2025?", name, kind))
        elif kind.startswith("english"):
            out.append((f"how many {english}s were opened this year?", name, kind))
        else:
            out.append(
                (
                    f"na área de {domain}, quantos registros do tipo {entity} estão abertos?",
                    name,
                    kind,
                )
            )
    return out


async def main(count: int) -> None:
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        tables = generate(folder)
        catalog = load_catalog(folder)
        print(f"catalog: {len(catalog.systems)} systems, {len(catalog.tables)} tables")
        cache = await VectorCache.open(E5Embeddings(), None, Settings().data_dir / "cache")
        index = await source_index(catalog, cache)
        asked = questions(tables, count, random.Random(7))
        hits = {kind: {1: 0, 3: 0, 5: 0, "selected": 0, "n": 0} for kind in KINDS}
        selected_tokens, seconds = [], []
        for question, relevant, kind in asked:
            await cache.query(question, asker="bench")  # the question's own vector: cached
            start = time.perf_counter()  # the rest: its unknown words' vectors and the choice
            selection = await choose_sources(index, cache, question, asker="bench")
            seconds.append(time.perf_counter() - start)
            ranked = sorted(selection.scores, key=selection.scores.__getitem__, reverse=True)
            for k in (1, 3, 5):
                hits[kind][k] += relevant in ranked[:k]
            hits[kind]["selected"] += relevant in selection.tables
            hits[kind]["n"] += 1
            schema = render_schema(catalog, selection.tables, selection.terms)
            selected_tokens.append(len(schema) // 4)
        whole = len(render_schema(catalog, catalog.tables, catalog.glossary)) // 4
    print(f"questions: {len(asked)}")
    for kind, found in hits.items():
        n = found["n"]
        print(
            f"  {kind:<32} n={n:<3} recall@1 {found[1] / n:.3f}  @3 {found[3] / n:.3f}  "
            f"@5 {found[5] / n:.3f}  selection {found['selected'] / n:.3f}"
        )
    print(
        f"prompt schema, ~tokens: selection median {statistics.median(selected_tokens):.0f}, "
        f"whole catalog {whole} (ratio {statistics.median(selected_tokens) / whole:.4f})"
    )
    print(
        f"selection time per question: median {statistics.median(seconds) * 1000:.2f} ms, "
        f"max {max(seconds) * 1000:.2f} ms"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=120)
    asyncio.run(main(parser.parse_args().questions))
