"""Numbers as answers write them (pt-BR and en formats, percentages, scale words, dates) and
whether the evidence holds each one: the ground the groundedness judge stands on.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

import pytest

from orquestra.guards.rails.numbers import Evidence, ungrounded, written_dates, written_numbers


def values(text: str) -> list[list[float]]:
    return [[value for value, _ in w.readings] for w in written_numbers(text)]


# --- written_numbers ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "readings"),
    [
        ("R$ 1.234,56", [[1234.56]]),  # pt-BR
        ("R$ 1,234.56", [[1234.56]]),  # en
        ("R$1.234,56", [[1234.56]]),
        ("1.234.567,89", [[1234567.89]]),
        ("1,234,567.89", [[1234567.89]]),
        ("1.234", [[1234.0, 1.234]]),  # ambiguous: read both ways
        ("1,234", [[1.234, 1234.0]]),
        ("0,5", [[0.5]]),
        ("-5,5", [[-5.5]]),
        ("nota 40908", [[40908.0]]),
        ("1 234 567", [[1.0], [234.0], [567.0]]),  # spaces separate numbers, never group digits
        ("12 notas e 3 clientes", [[12.0], [3.0]]),
        ("1.234.5", []),  # not a number in either format
    ],
)
def test_written_numbers_pt_and_en_formats(text: str, readings: list[list[float]]) -> None:
    assert values(text) == readings


@pytest.mark.parametrize(
    ("text", "value", "tolerance"),
    [
        ("1234", 1234.0, 0.5),
        ("1.234,56", 1234.56, 0.005),
        ("12,5", 12.5, 0.05),
        ("1,2 mi", 1_200_000.0, 50_000.0),  # the scale multiplies the rounding too
    ],
)
def test_the_tolerance_is_the_written_precision(text: str, value: float, tolerance: float) -> None:
    ((read, tol),) = written_numbers(text)[0].readings
    assert (read, tol) == (value, tolerance)


def test_docstring_example() -> None:
    found = written_numbers("Faturamento: R$ 1.234,56 (12,5%)")
    assert [(n.text, n.value, n.percent) for n in found] == [
        ("1.234,56", 1234.56, False),
        ("12,5", 12.5, True),
    ]


@pytest.mark.parametrize("text", ["12,5%", "12.5%", "12,5 %"])
def test_percentages_are_marked(text: str) -> None:
    (found,) = written_numbers(text)
    assert found.percent
    assert found.value == 12.5


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1,2 mi", 1.2e6),
        ("1.2 million", 1.2e6),
        ("3 milhões", 3e6),
        ("1 milhão", 1e6),
        ("R$ 3,4 bi", 3.4e9),
        ("1.5 bilhão", 1.5e9),
        ("2 bilhões", 2e9),
        ("2 mil", 2e3),
        ("4 thousand", 4e3),
        ("7 billion", 7e9),
    ],
)
def test_scale_words_multiply(text: str, value: float) -> None:
    (found,) = written_numbers(text)
    assert found.value == pytest.approx(value)


def test_dates_and_times_are_not_numbers() -> None:
    text = "Em 05/2026, a nota emitida em 30/06/2026 14:30 (2026-06-30T14:30:00) somou 7"
    assert values(text) == [[7.0]]


def test_list_markers_are_not_numbers() -> None:
    text = "1. Cliente A: 10\n2) Cliente B: 20\n  3. Cliente C: 30"
    assert values(text) == [[10.0], [20.0], [30.0]]


def test_a_number_starting_a_sentence_is_not_a_list_marker() -> None:
    assert values("150 notas bloqueadas") == [[150.0]]


# --- written_dates --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "dates"),
    [
        ("em 05/2026", [("05/2026", [5, 2026])]),
        ("em 30/06/2026 14:30", [("30/06/2026", [30, 6, 2026]), ("14:30", [14, 30])]),
        ("2026-06-30", [("2026-06-30", [2026, 6, 30])]),
        ("2026-06", [("2026-06", [2026, 6])]),
        ("2026-06-30T14:30:00", [("2026-06-30T14:30:00", [2026, 6, 30, 14, 30, 0])]),
        ("às 9:05", [("9:05", [9, 5])]),
        ("R$ 1.234,56 e 12,5%", []),
        ("1/3 dos pedidos", []),
    ],
)
def test_written_dates(text: str, dates: list[tuple[str, list[int]]]) -> None:
    assert written_dates(text) == dates


# --- Evidence -------------------------------------------------------------------------


def test_evidence_collects_numbers_from_nested_values() -> None:
    evidence = Evidence(
        [[[1, 2.5, Decimal("3.25")], (4,)], {"a": {"b": -5}}, None, True, "6", "-7.5", "texto"]
    )
    # A string's digit runs count too ("-7.5" also grounds 7 and 5); None and booleans do not.
    assert evidence.numbers == [1.0, 2.5, 3.25, 4.0, 5.0, 6.0, 7.0, 7.5]


def test_evidence_collects_date_parts() -> None:
    evidence = Evidence([date(2026, 5, 14), datetime(2025, 1, 2, 13, 45), "2024-03-09T08:20:00"])
    assert {2026, 5, 14, 2025, 1, 2, 13, 45, 2024, 3, 9, 8, 20} <= evidence.parts


def test_evidence_from_texts_counts_every_digit_run() -> None:
    evidence = Evidence(texts=["top 5 clientes da nota 40908 em 05/2026", "R$ 1.234,56"])
    assert {5, 40908, 2026} <= evidence.parts
    assert evidence.has(1234.56, 0)
    assert evidence.has(40908, 0)


def test_evidence_has_is_a_closed_range() -> None:
    evidence = Evidence([[1.0, 5.0, 100.0]])
    assert evidence.has(5.5, 0.5)
    assert evidence.has(4.5, 0.5)
    assert not evidence.has(5.6, 0.5)
    assert evidence.has(-5, 0)  # signs are ignored
    assert not Evidence().has(0, 0)


# --- ungrounded -----------------------------------------------------------------------


def check(answer: str, rows: list | None = None, texts: tuple[str, ...] = ()) -> list[str]:
    missing, _ = ungrounded(answer, Evidence([rows or []], texts))
    return missing


@pytest.mark.parametrize(
    ("answer", "rows"),
    [
        ("Faturamento: R$ 1.234,56", [[1234.56]]),
        ("Revenue: R$ 1,234.56", [[1234.56]]),
        ("Revenue: R$ 1,234.56", [[Decimal("1234.561")]]),  # rounds to what was written
        ("1.234 notas", [[1234]]),  # ambiguous, read as thousands
        ("prazo de 1.234 dias", [[1.234]]),  # ambiguous, read as decimals
        ("prazo de 1,234 dias", [[1.234]]),
        ("12,5% do total", [[0.125]]),  # a ratio
        ("12,5% do total", [[12.5]]),  # already a percentage
        ("12.5% of the total", [[0.1254]]),
        ("13% do total", [[0.125]]),
        ("R$ 1,2 mi", [[1_234_567.0]]),
        ("R$ 1,2 mi", [[1_150_000.0]]),
        ("US$ 3,4 bi", [[3_380_000_000]]),
        ("prejuízo de R$ -5,50", [[-5.5]]),
        ("em 05/2026", [[date(2026, 5, 14)]]),
        ("em 05/2026", [["2026-05-14"]]),
        ("em 30/06/2026 14:30", [[datetime(2026, 6, 30, 14, 30)]]),
        ("em 30/06/2026 14:30", [["2026-06-30T14:30:00"]]),
        ("em 2026-06-30", [[date(2026, 6, 30)]]),
        ("1. Cliente A: 10\n2. Cliente B: 20", [[10], [20]]),
    ],
)
def test_grounded_answers(answer: str, rows: list) -> None:
    assert check(answer, rows) == []


@pytest.mark.parametrize(
    ("answer", "rows", "missing"),
    [
        ("Revenue: R$ 1,234.56", [[1234.57]], ["1,234.56"]),
        ("1.234 notas", [[1.2]], ["1.234"]),
        ("12,5% do total", [[0.13]], ["12,5"]),
        ("12,5 do total", [[0.125]], ["12,5"]),  # a ratio only matches a written percentage
        ("R$ 1,2 mi", [[1_260_000.0]], ["1,2"]),
        ("R$ 1,2 mi", [[1.2]], ["1,2"]),
        ("em 05/2026", [[date(2026, 4, 14)]], ["05/2026"]),
        ("às 14:45", [[datetime(2026, 6, 30, 14, 31)]], ["14:45"]),
        ("1. Cliente A: 10\n2. Cliente B: 20\n3. Cliente C: 30", [[10], [20]], ["30"]),
        ("total 3", [[True, True, True]], ["3"]),  # booleans are not counts
        ("total 3", [[None]], ["3"]),
    ],
)
def test_ungrounded_answers(answer: str, rows: list, missing: list[str]) -> None:
    assert check(answer, rows) == missing


def test_numbers_in_the_question_count_as_evidence() -> None:
    answer = "Status da nota 40908 em 2026: bloqueada. Top 5 abaixo."
    assert check(answer, [["bloqueada"]]) == ["40908", "2026", "5"]
    assert check(answer, [["bloqueada"]], ("status da nota 40908 em 2026, top 5",)) == []


def test_ungrounded_counts_numbers_and_dates() -> None:
    missing, checked = ungrounded(
        "Em 05/2026: R$ 1.234,56 em 12 notas, às 14:30.", Evidence([[1234.56, 12]])
    )
    assert checked == 4
    assert missing == ["05/2026", "14:30"]


def test_no_numbers_means_nothing_checked() -> None:
    assert ungrounded("Nenhuma nota bloqueada.", Evidence()) == ([], 0)


@pytest.mark.parametrize(
    ("answer", "value"),
    [("about 10k orders", 1e4), ("Revenue was $1.2M", 1.2e6), ("R$ 3,4bi", 3.4e9)],
)
def test_attached_scale_suffixes_are_read(answer: str, value: float) -> None:
    assert [w.value for w in written_numbers(answer)] == [pytest.approx(value)]


def test_an_attached_scale_suffix_does_not_hide_a_made_up_number() -> None:
    assert ungrounded("about 10k orders", Evidence([[1, 5]])) == (["10k"], 1)


def test_a_scale_word_on_the_next_line_does_not_scale_a_number() -> None:
    assert values("Curva ABC\nA: 10\nB: 20\nC: 30") == [[10.0], [20.0], [30.0]]
    assert check("A: 10\nB: 20\nC: 30", [[10], [20], [30]]) == []


@pytest.mark.parametrize(
    ("answer", "rows", "missing"),
    [
        ("Notas emitidas: 999\n100 estão bloqueadas.", [[42, 100]], ["999"]),
        ("Em 2026 150 notas foram bloqueadas.", [[150, date(2026, 5, 1)]], []),
    ],
)
def test_adjacent_numbers_are_read_apart(answer: str, rows: list, missing: list[str]) -> None:
    assert check(answer, rows) == missing


def test_what_the_asker_wrote_is_read_but_never_kept() -> None:
    """The deployment's texts go through a cache every tenant shares; a question never does
    (whether another tenant asked it must not show in a judge's timing)."""
    from orquestra.guards.rails.numbers import _numbers_in

    _numbers_in.cache_clear()
    evidence = Evidence(texts=["Faturamento: soma de 12 meses"], asked=["vendas de 2031?"])
    assert evidence.has(2031, 0) and evidence.has(12, 0)
    assert _numbers_in.cache_info().currsize == 1
