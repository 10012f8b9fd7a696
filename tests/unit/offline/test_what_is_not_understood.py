"""What the offline SQL writer says instead of answering: a grouping only other rows have, an
unknown kind of the rows, and an unmapped question (what was understood, what can be asked
instead, each suggestion answered); filler words, though, are ignored and the rest answered."""

from __future__ import annotations

import pytest

from orquestra.offline import _write_sql
from orquestra.offline.lexicon import lexicon_for
from orquestra.offline.parser import parse
from orquestra.offline.sql import Unmappable, build_sql
from orquestra.offline.understanding import about, explain, suggestions
from tests.unit.offline.offline_sql import CATALOGS, TODAY, sql_for


@pytest.mark.parametrize(
    ("question", "lang", "said"),
    [
        ("pedidos cancelados por motivo", "pt", 'pedidos não têm "motivo"'),
        ("cancelled orders by reason", "en", 'orders have no "reason"'),
    ],
)
def test_a_grouping_only_other_rows_have_is_said_not_answered(
    question: str, lang: str, said: str
) -> None:
    # The reason is an invoice's (invoices refer to orders): orders are not grouped by it.
    catalog = CATALOGS["logistics"]
    written = _write_sql(question, catalog, lexicon_for(catalog), TODAY, {}, lang)
    assert written["sql"] == "" and said in written["missing_info"], written


def _said(deployment: str, question: str, lang: str) -> dict:
    catalog = CATALOGS[deployment]
    return _write_sql(question, catalog, lexicon_for(catalog), TODAY, {}, lang)


@pytest.mark.parametrize(
    ("deployment", "question", "lang", "word"),
    [
        ("logistics", "quantos pedidos urgentes em maio?", "pt", "urgentes"),
        ("logistics", "how many fragile orders in May?", "en", "fragile"),
        ("clinics", "quantos exames pediátricos em maio?", "pt", "pediatricos"),
        ("clinics", "how many outpatient exams last month?", "en", "outpatient"),
    ],
)
def test_an_unknown_kind_of_the_rows_is_said_not_dropped(
    deployment: str, question: str, lang: str, word: str
) -> None:
    # Answering for all the rows would answer another question.
    written = _said(deployment, question, lang)
    assert written["sql"] == "" and f'"{word}"' in written["missing_info"], written


@pytest.mark.parametrize(
    ("deployment", "question", "lang"),
    [
        ("logistics", "qual o faturamento de maio, por favor, obrigado", "pt"),
        ("logistics", "faturamento de maio exatamente, valeu", "pt"),
        ("logistics", "quantos pedidos recebidos em maio?", "pt"),
        ("logistics", "why is invoice 41208 on hold?", "en"),
        ("clinics", "quantos pacientes novos cadastramos em 2026?", "pt"),
        ("clinics", "revenue in May, thanks a lot", "en"),
    ],
)
def test_filler_words_are_ignored_and_the_rest_answered(
    deployment: str, question: str, lang: str
) -> None:
    assert _said(deployment, question, lang)["sql"], question


@pytest.mark.parametrize(
    ("deployment", "question", "lang", "understood", "unknown"),
    [
        ("logistics", "qual a cor das cargas?", "pt", "cargas", "cor"),
        ("logistics", "what colour are my shipments?", "en", "shipments", "colour"),
        ("logistics", "faturamento por signo do cliente", "pt", "notas", "signo"),
        ("clinics", "qual o signo dos pacientes?", "pt", "pacientes", "signo"),
        ("clinics", "revenue by zodiac sign", "en", "exams", "zodiac"),
    ],
)
def test_an_unmapped_question_says_what_was_understood_and_what_can_be_asked(
    deployment: str, question: str, lang: str, understood: str, unknown: str
) -> None:
    """No SQL (a clear non-answer beats a wrong number), what was understood, and two or
    three questions about the same tables that the offline model does answer."""
    catalog = CATALOGS[deployment]
    intent = parse(question, catalog, lexicon_for(catalog), TODAY)
    with pytest.raises(Unmappable):
        build_sql(intent, catalog, TODAY.isoformat())
    said = explain(intent, catalog, lang, TODAY)
    assert understood in said and f'"{unknown}"' in said
    asks = suggestions(about(intent), catalog, lang, TODAY)
    assert 2 <= len(asks) <= 3 and all(ask in said for ask in asks)
    for ask in asks:
        assert sql_for(deployment, ask)  # each suggestion is answered
