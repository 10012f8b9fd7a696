"""Seventh round of the offline model: a time taken asked in the asker's own words ("quantos
dias em média…", "how long…", "quanto tempo cada … leva pra …") reads the glossary's
average time taken whose words it shares — its name, synonyms and the dates its definition
subtracts — on both sample deployments, with the period, grouping and filters read as
usual; a count or sum word never turns the time into a count."""

from __future__ import annotations

import pytest

from tests.unit.graph.offline.offline_sql import route_of, sql_for

LEAD = "avg(EXTRACT(EPOCH FROM c.data_entrega - c.data_saida) / 86400) AS lead_time"
TERMS = "avg(t.vencimento - t.emissao) AS prazo_de_pagamento"
REPORT = "avg(EXTRACT(EPOCH FROM l.assinado_em - l.criado_em) / 3600) AS tempo_de_laudo"


@pytest.mark.parametrize(
    ("deployment", "question", "wanted"),
    [
        (
            "logistics",
            "de janeiro a junho, quantos dias em média as cargas levaram da saída até a entrega?",
            [LEAD, "c.data_saida >= DATE '2026-01-01'", "c.data_saida < DATE '2026-07-01'"],
        ),
        (
            "logistics",
            "how long does a shipment take from dispatch to delivery on average?",
            [LEAD, "c.data_entrega IS NOT NULL"],
        ),
        (
            "logistics",
            "quanto tempo as cargas levam, em média, por transportadora?",
            [LEAD, "GROUP BY 1, t.cod_transportadora"],
        ),
        ("logistics", "On average, how many days do customers get to pay us?", [TERMS]),
        ("logistics", "em quantos dias em média os clientes pagam?", [TERMS]),
        (
            "logistics",
            "how many days do we give customers to pay, on average, by segment?",
            [TERMS, "c.segmento AS segmento"],
        ),
        (
            "logistics",
            "average number of days late per carrier",
            ["avg(CAST(c.data_entrega AS date) - c.previsao_entrega) AS dias_de_atraso"],
        ),
        (
            "clinics",
            "Quanto tempo cada médico leva, em média, pra liberar um laudo em 2026?",
            [REPORT, "p.nome AS nome", "l.criado_em >= DATE '2026-01-01'"],
        ),
        ("clinics", "how long do doctors take to sign a report, on average?", [REPORT]),
        (
            "clinics",
            "quantas horas em média leva a liberação de um laudo por modalidade?",
            [REPORT, "te.modalidade AS modalidade"],
        ),
        (
            "clinics",
            "how many hours on average between exam and report signature in 2025?",
            [REPORT, "l.criado_em >= DATE '2025-01-01'"],
        ),
    ],
)
def test_a_time_taken_is_the_glossarys(deployment: str, question: str, wanted: list[str]) -> None:
    assert route_of(deployment, question) == "ANALYTICS"
    sql = sql_for(deployment, question)
    assert all(w in sql for w in wanted), sql
    assert "count(" not in sql, sql


@pytest.mark.parametrize(
    ("question", "unwanted"),
    [
        ("quanto tempo em média a liberação de um laudo leva?", "l.status ="),  # not "liberado"
        ("quantas cargas foram entregues em junho?", "avg("),  # no time asked
    ],
)
def test_only_a_time_asked_is_read_so(question: str, unwanted: str) -> None:
    deployment = "clinics" if "laudo" in question else "logistics"
    assert unwanted not in sql_for(deployment, question)
