"""The relaxed comparison's periods (`evals.compare.relaxed_match`): a period given by its
first day is its year's or month's number, and nothing else is."""

from __future__ import annotations

from datetime import UTC, date, datetime

from orquestra.evals.compare import exact_match, relaxed_match


def test_a_year_by_its_first_day_is_that_years_number() -> None:
    answer = [[datetime(1996, 1, 1), 31], [datetime(1997, 1, 1), 81]]
    assert relaxed_match(answer, [[1996, 31], [1997, 81]])
    assert not exact_match(answer, [[1996, 31], [1997, 81]])  # exact stays exact
    aware = [[datetime(1996, 1, 1, tzinfo=UTC), 31]]
    assert relaxed_match(aware, [[1996, 31]])


def test_a_month_by_its_first_day_is_that_months_number() -> None:
    assert relaxed_match([[date(1997, 12, 1), 48]], [[12, 48]])
    assert not relaxed_match([[date(1997, 12, 1), 48]], [[11, 48]])


def test_other_dates_and_numbers_are_not_periods() -> None:
    assert not relaxed_match([[date(1997, 3, 5), 48]], [[1997, 48]])  # not a period's start
    assert not relaxed_match([[2, 48]], [[1997, 48]])
    assert not relaxed_match([[date(1997, 1, 1), 1]], [[1997.5, 1]])
    assert not relaxed_match([[date(1996, 1, 1)], [date(1997, 1, 1)]], [[1996], [1996]])
