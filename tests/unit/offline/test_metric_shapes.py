"""The shapes of the sample deployments' glossary metrics (`MetricDefinition.shape`): what the
offline model asks of a metric's expression and filter, read once as the catalog loads.

Each field replaced a test of the metric's text somewhere in `offline/`; those tests are kept
here as written (`_TEXT_TESTS`), and every metric of both deployments (and the nodes' tests'
rental metric) must get from its shape the answer its text test gave, for every column and
value of its table, so reading the shape changed no behaviour."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from orquestra.ddl_catalog.metric_shape import MetricShape, one_aggregate, shape_of
from orquestra.ddl_catalog.model import Catalog, MetricDefinition
from orquestra.ddl_catalog.text import words
from tests.unit.offline.offline_sql import CATALOGS

RENTAL = MetricDefinition(expression="AVG(amount)", table="payment")
"""The nodes' tests' rental catalog's one metric (`tests/unit/nodes/conftest.py`)."""


def _metrics() -> Iterator[tuple[str, MetricDefinition]]:
    for name, catalog in CATALOGS.items():
        for term in catalog.glossary:
            if term.metric is not None:
                yield f"{name}: {term.term}", term.metric


METRICS = dict(_metrics())

# term: (aggregate, counts_rows, summed_column, one_aggregate, simple, share_condition,
#        state, left_out); a share is "simple" too (one call, no parentheses inside)
SHAPES: dict[str, tuple[object, ...]] = {
    "clinics: laudos assinados": ("count", True, None, True, True, None, None, None),
    "clinics: SLA de laudo": (
        "avg",
        False,
        None,
        True,
        True,
        "assinado_em <= prazo_em",
        None,
        None,
    ),
    "clinics: laudo atrasado": ("count", True, None, True, True, None, None, None),
    "clinics: tempo de laudo": ("avg", False, None, True, False, None, None, None),
    "clinics: receita": ("sum", False, "valor", True, True, None, ("status", "REALIZADO"), None),
    "clinics: ticket médio": ("avg", False, None, True, True, None, ("status", "REALIZADO"), None),
    "clinics: absenteísmo": ("avg", False, None, True, True, "status = 'FALTOU'", None, None),
    "clinics: taxa de discordância": (
        "avg",
        False,
        None,
        True,
        True,
        "resultado <> 'CONCORDANTE'",
        None,
        None,
    ),
    "clinics: horas trabalhadas": (
        "sum",
        False,
        "horas",
        True,
        True,
        None,
        ("status", "CUMPRIDO"),
        None,
    ),
    "clinics: hora extra": ("sum", False, "horas", True, True, None, None, None),
    "logistics: faturamento": (
        "sum",
        False,
        "valor_nota",
        True,
        True,
        None,
        ("status", "AUTORIZADA"),
        None,
    ),
    "logistics: ticket médio": (
        "avg",
        False,
        None,
        True,
        True,
        None,
        ("status", "AUTORIZADA"),
        None,
    ),
    "logistics: lead time": ("avg", False, None, True, False, None, None, None),
    "logistics: OTIF": (
        "avg",
        False,
        None,
        True,
        True,
        "data_entrega::date <= previsao_entrega",
        None,
        None,
    ),
    "logistics: carga atrasada": ("count", True, None, True, True, None, None, None),
    "logistics: dias de atraso": ("avg", False, None, True, True, None, None, None),
    "logistics: ocorrência": (
        "count",
        True,
        None,
        True,
        True,
        None,
        ("status", "OCORRENCIA"),
        None,
    ),
    "logistics: devolução": (
        "count",
        False,
        None,
        True,
        False,
        None,
        ("status", "DEVOLVIDO"),
        None,
    ),
    "logistics: título vencido": (
        "sum",
        False,
        "valor",
        True,
        True,
        None,
        ("status", "VENCIDO"),
        None,
    ),
    "logistics: inadimplência": ("sum", False, None, False, False, None, None, None),
    "logistics: contas a receber": (
        "sum",
        False,
        "valor",
        True,
        True,
        None,
        None,
        ("status", "PAGO"),
    ),
    "logistics: prazo de pagamento": ("avg", False, None, True, True, None, None, None),
    "logistics: frete por kg": (
        "sum",
        False,
        None,
        False,
        False,
        None,
        None,
        ("status", "CANCELADA"),
    ),
    "logistics: custo de frete": (
        "sum",
        False,
        "valor_frete",
        True,
        True,
        None,
        None,
        ("status", "CANCELADA"),
    ),
    "logistics: volume de pedidos": ("count", True, None, True, True, None, None, None),
    "logistics: valor vendido": (
        "sum",
        False,
        "valor_total",
        True,
        True,
        None,
        None,
        ("status", "CANCELADO"),
    ),
    "logistics: carteira de pedidos": (
        "sum",
        False,
        "valor_total",
        True,
        True,
        None,
        ("status", "ABERTO"),
        None,
    ),
}


def test_every_metric_of_the_sample_deployments_is_listed() -> None:
    assert set(SHAPES) == set(METRICS)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_each_metric_has_its_shape(name: str) -> None:
    shape = METRICS[name].shape
    said = (
        shape.aggregate,
        shape.counts_rows,
        shape.summed_column,
        shape.one_aggregate,
        shape.simple,
        shape.share_condition,
        shape.state,
        shape.left_out,
    )
    assert said == SHAPES[name]


def _shape(deployment: str, term: str) -> MetricShape:
    metric = next(t.metric for t in CATALOGS[deployment].glossary if t.term == term)
    assert metric is not None
    return metric.shape


def test_a_rate_says_what_it_compares_and_a_late_count_its_open_rows() -> None:
    otif = _shape("logistics", "OTIF")
    assert otif.share_compared == ("data_entrega", "<=", "previsao_entrega")
    assert otif.has_case and not otif.has_filter_clause
    assert otif.compared == {("data_entrega", "<=", "previsao_entrega")}
    late = _shape("logistics", "carga atrasada")
    assert late.filter_compared == {("data_entrega", ">", "previsao_entrega")}
    assert late.open_alternative == (
        "data_entrega IS NULL AND status <> 'CANCELADA' AND previsao_entrega < {today}"
    )
    assert [a.parts for a in late.alternatives] == [
        {"data_entrega>previsao_entrega"},
        {"data_entregaisnull", "status<>'cancelada'", "previsao_entrega<{today}"},
    ]
    assert late.as_of_today and late.state is None and late.left_out is None
    assert _shape("clinics", "laudo atrasado").open_alternative is None  # no OR: one way


def test_a_filter_says_which_states_it_keeps_and_which_columns_it_fixes() -> None:
    signed = _shape("clinics", "laudos assinados")
    assert signed.kept_values == {"ASSINADO", "RETIFICADO"}
    assert signed.fixed_columns == {"status"}
    overtime = _shape("clinics", "hora extra")
    assert overtime.kept_values == {"EXTRA", "CUMPRIDO"}
    assert overtime.fixed_columns == {"tipo", "status"}
    assert overtime.filter_names >= {"tipo", "status"}
    receivable = _shape("logistics", "contas a receber")
    assert receivable.kept_values == set() and receivable.fixed_columns == set()
    assert receivable.leaves_out("status", ["PAGO"])
    assert not receivable.leaves_out("status", ["PAGO", "VENCIDO"])
    no_shows = _shape("clinics", "absenteísmo")
    assert no_shows.expression_values == {"FALTOU"}
    assert no_shows.values == {"FALTOU", "REALIZADO"}


def test_a_shape_is_read_once_per_metric() -> None:
    metric = METRICS["logistics: faturamento"]
    assert metric.shape is metric.shape
    assert metric.shape is shape_of(metric.expression, metric.filter)
    before = shape_of.cache_info()
    for metric in METRICS.values():
        assert metric.shape is not None
    after = shape_of.cache_info()
    assert after.misses == before.misses  # each read as its catalog loaded, not now


# The text tests each shape field replaced, as the modules of `offline/` wrote them.

SUMMED = re.compile(r"^\s*sum\s*\(", re.IGNORECASE)  # buyers, conditions, ranking
SUMMED_COLUMN = re.compile(r"\s*sum\(\s*(\w+)\s*\)\s*", re.IGNORECASE)  # lexicon
AVERAGE = re.compile(r"^\s*avg\s*\(", re.IGNORECASE)  # durations, ranking
SIMPLE = re.compile(r"\s*\w+\([^()]*\)\s*")  # shares, sql
ROW_COUNT = re.compile(r"count\((\*|1)\)$|avg\(casewhen")  # deadlines
SHARE = re.compile(  # measures
    r"\s*avg\(\s*case\s+when\s+(.+?)\s+then\s+1(?:\.0*)?\s+else\s+0(?:\.0*)?\s+end\s*\)\s*",
    re.IGNORECASE,
)
SIMPLE_STATE = re.compile(r"^\s*(\w+)\s*=\s*'([^']+)'\s*$")  # dating, sql


def _flat(condition: str) -> str:  # deadlines, conditions, parser
    return re.sub(r"::\w+|\s+", "", condition.lower())


def _fixes(condition: str, column: str) -> bool:  # lifecycle
    return bool(re.search(rf"\b{column}\s*(=|in\b)", condition, re.IGNORECASE))


def _leaves_out(condition: str | None, column: str, values: list[str]) -> bool:  # lifecycle
    said = re.fullmatch(rf"\s*{column}\s*(?:<>|!=)\s*'([^']*)'\s*", condition or "")
    return said is not None and [said.group(1)] == values


def _keeps(condition: str, value: str) -> bool:  # lifecycle
    equal = re.search(rf"(?<![<>!])=\s*'{re.escape(value)}'", condition)
    among = re.search(rf"(?<!not )\bin\s*\([^)]*'{re.escape(value)}'", condition, re.IGNORECASE)
    return bool(equal or among)


def _compares(condition: str, left: str, operator: str, right: str) -> bool:  # conditions
    flat = re.sub(r"::\w+|\s+", "", condition.lower())
    mirrored = {">": "<", "<": ">"}[operator]
    return f"{left}{operator}{right}" in flat or f"{right}{mirrored}{left}" in flat


def _top_level(condition: str, word: str) -> list[str]:  # deadlines
    parts, depth, start = [], 0, 0
    for found in re.finditer(rf"[()]|\s{word}\s", condition, re.IGNORECASE):
        said = found.group(0)
        depth += {"(": 1, ")": -1}.get(said, 0)
        if said.strip().upper() == word and depth == 0:
            parts.append(condition[start : found.start()])
            start = found.end()
    return [p.strip() for p in [*parts, condition[start:]]]


def _closes_last(part: str) -> bool:  # deadlines
    depth = 0
    for index, character in enumerate(part):
        depth += {"(": 1, ")": -1}.get(character, 0)
        if depth == 0 and index < len(part) - 1:
            return False
    return True


def _unwrapped(part: str) -> str:  # deadlines
    while part.startswith("(") and part.endswith(")") and _closes_last(part):
        part = part[1:-1].strip()
    return part


def _alternatives(condition: str) -> list[str]:  # deadlines
    return [_unwrapped(part) for part in _top_level(condition, "OR")]


def _open_alternative(condition: str | None) -> str | None:  # deadlines
    alternatives = _alternatives(condition or "")
    still_open = [a for a in alternatives if re.search(r"\bis null\b", a, re.IGNORECASE)]
    return still_open[0] if len(alternatives) > 1 and len(still_open) == 1 else None


def _expression_tests(metric: MetricDefinition) -> None:
    """The tests of a metric's expression alone, each against the field replacing it."""
    expression, shape = metric.expression, metric.shape
    assert bool(SUMMED.match(expression)) == (shape.aggregate == "sum")
    assert expression.strip().upper().startswith("SUM(") == (shape.aggregate == "sum")
    assert expression.strip().upper().startswith("AVG(") == (shape.aggregate == "avg")
    assert bool(AVERAGE.match(expression)) == (shape.aggregate == "avg")
    assert (not expression.upper().startswith("COUNT")) == (shape.aggregate != "count")
    flat_count = expression.replace(" ", "").upper()
    assert (flat_count == "COUNT(*)") == shape.counts_rows  # clauses
    assert (flat_count in ("COUNT(*)", "COUNT(1)")) == shape.counts_rows  # intent
    assert bool(ROW_COUNT.match(_flat(expression))) == (
        shape.counts_rows or shape.share_condition is not None
    )
    summed = SUMMED_COLUMN.fullmatch(expression)
    assert (summed.group(1) if summed else None) == shape.summed_column
    assert one_aggregate(expression) == shape.one_aggregate
    assert bool(SIMPLE.fullmatch(expression)) == shape.simple
    assert bool(re.search(r"\bcase\b", expression, re.IGNORECASE)) == shape.has_case
    assert bool(re.search(r"\b(case|filter)\b", expression, re.IGNORECASE)) == (
        shape.has_case or shape.has_filter_clause
    )
    share = SHARE.fullmatch(expression)
    assert (share.group(1) if share else None) == shape.share_condition


def _columns_tests(metric: MetricDefinition, catalog: Catalog) -> None:
    """The tests of a metric's text by a column or a value of its table."""
    shape, table = metric.shape, catalog.table(metric.table)
    expression, condition = metric.expression, metric.filter
    said = re.sub(r"::\w+|\s+", "", f"{expression} {condition or ''}".lower())  # parser
    uncast = re.sub(r"::\w+", "", f"{expression} {condition}")  # deadlines
    names = [c.name for c in table.columns]
    for column in names:
        assert bool(re.search(rf"\b{column}\b", condition or "")) == (column in shape.filter_names)
        assert (column in words(condition or "")) == (column in shape.filter_names)  # sql
        assert bool(re.search(rf"\b{re.escape(column)}\b", expression)) == (
            column in shape.expression_names
        )
        assert _fixes(condition or "", column) == (column in shape.fixed_columns)
        share = _flat(shape.share_condition or "")
        compared = re.fullmatch(rf"(\w+)<={column}", share)  # deadlines: a rate by a deadline
        assert (compared.group(1) if compared else None) == (
            shape.share_compared[0]
            if shape.share_compared and shape.share_compared[1:] == ("<=", column)
            else None
        )
        for other in names:
            for operator in ("<", ">", "<=", ">="):
                assert (f"{column}{operator}{other}" in said) == (
                    (column, operator, other) in shape.compared
                )
            for operator in ("<", ">"):
                mirrored = {">": "<", "<": ">"}[operator]
                assert _compares(condition or "", column, operator, other) == (
                    (column, operator, other) in shape.filter_compared
                    or (other, mirrored, column) in shape.filter_compared
                )
            pattern = re.compile(
                rf"\b{column}\s*(<=|>=|<|>)\s*{other}\b|\b{other}\s*(<=|>=|<|>)\s*{column}\b"
            )
            assert bool(pattern.search(uncast)) == any(
                (a, operator, b) in shape.compared
                for operator in ("<=", ">=", "<", ">")
                for a, b in ((column, other), (other, column))
            )
    for column in table.columns:
        for value in column.meta.values:
            assert (f"'{value}'" in f"{condition} {expression}") == (value in shape.values)
            assert (f"'{value}'" in expression) == (value in shape.expression_values)
            if condition:
                assert _keeps(condition, value) == (value in shape.kept_values)
            for values in ([value], [value, value], []):
                assert _leaves_out(condition, column.name, values) == shape.leaves_out(
                    column.name, values
                )


def _filter_tests(metric: MetricDefinition) -> None:
    """The tests of a metric's filter alone."""
    condition, shape = metric.filter, metric.shape
    state = SIMPLE_STATE.match(condition or "")
    assert (state.groups() if state else None) == shape.state
    assert ("{today}" in (condition or "")) == shape.as_of_today
    assert _open_alternative(condition) == shape.open_alternative
    alternatives = _alternatives(condition or "")
    assert [a.condition for a in shape.alternatives] == alternatives
    assert [a.parts for a in shape.alternatives] == [
        {_flat(p) for p in _top_level(a, "AND")} for a in alternatives
    ]


@pytest.mark.parametrize("name", sorted(METRICS))
def test_each_shape_answers_as_the_text_tests_it_replaced(name: str) -> None:
    metric = METRICS[name]
    _expression_tests(metric)
    _filter_tests(metric)
    _columns_tests(metric, CATALOGS[name.split(":")[0]])


def test_the_rental_metric_answers_as_the_text_tests_it_replaced() -> None:
    _expression_tests(RENTAL)
    _filter_tests(RENTAL)
    assert RENTAL.shape.aggregate == "avg" and RENTAL.shape.simple
