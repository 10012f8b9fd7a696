"""What the offline model reads in the glossary's metrics themselves: which ones are balances
(the SQL writer is told), which states a definition by other columns replaces, and which end
of a ranking is better (a metric's own `better`, else what its definition says)."""

from __future__ import annotations

import pytest

from orquestra.ddl_catalog.model import GlossaryTerm
from orquestra.ddl_catalog.render import render_term
from orquestra.offline.conditions import states_defined_apart
from orquestra.offline.ranking import better
from tests.unit.offline.offline_sql import CATALOGS


def test_the_sql_writer_is_told_which_metrics_are_balances() -> None:
    terms = {t.term: t for t in CATALOGS["logistics"].glossary}
    assert "a balance" in render_term(terms["contas a receber"])
    assert "a balance" not in render_term(terms["faturamento"])


def test_only_a_definition_by_other_columns_replaces_a_state() -> None:
    defined = states_defined_apart(CATALOGS["logistics"])
    late = [term.term for term, _phrases in defined[("cargas", "status", "ATRASADA")]]
    assert "carga atrasada" in late  # by the dates, not by the status
    assert ("titulos", "status", "ABERTO") not in defined  # "status <> 'PAGO'": the state's own
    assert ("notas_fiscais", "status", "BLOQUEADA") not in defined


def _term(deployment: str, name: str) -> GlossaryTerm:
    return next(t for t in CATALOGS[deployment].glossary if t.term == name)


def test_a_sum_of_hours_is_not_better_lower_an_average_time_is() -> None:
    # "horas trabalhadas" adds hours up (more is not worse); a lead time averages them
    assert better(_term("clinics", "horas trabalhadas")) in (None, "higher")
    assert better(_term("logistics", "lead time")) == "lower"


@pytest.mark.parametrize("said", ["higher", "lower"])
def test_the_metrics_own_better_comes_first(said: str) -> None:
    term = _term("logistics", "lead time")
    assert term.metric is not None
    metric = term.metric.model_copy(update={"better": said})
    plain = term.model_copy(update={"metric": metric, "definition": "", "definition_en": ""})
    assert better(plain) == said
