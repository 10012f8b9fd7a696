"""A question asked in another language than the catalog's, and what the offline model says
when it does not understand: a made-up shop whose catalog is English only (no synonyms, no
glossary), as `orquestra init` leaves an imported schema, asked in Portuguese.

- The router sends a data question to the SQL writer, not to chat, though it names nothing
  the catalog knows ("quantos pedidos em 2025?").
- The SQL writer reads the words source selection read by meaning (`ModelHints.read_as`:
  "pedidos" → "orders") as the catalog's own, only in a language the catalog does not speak,
  and never a word of the languages themselves.
- Without them it says what it did not understand, with suggestions it answers; never an
  empty list.
- An English question gets English names for the columns it computes ("count"), a Portuguese
  one Portuguese names ("quantidade").
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from orquestra.ddl_catalog import load_catalog
from orquestra.ddl_catalog.model import Catalog
from orquestra.graph.hints import ModelHints
from orquestra.graph.meaning import catalog_languages
from orquestra.offline import OfflineChatModel, _write_sql
from orquestra.offline.conversation import route
from orquestra.offline.lexicon import lexicon_for

TODAY = date(2026, 6, 30)
SHOP = Path(__file__).resolve().parents[2] / "fixtures" / "catalogs" / "shop_en"


@pytest.fixture(scope="module")
def shop() -> Catalog:
    return load_catalog(SHOP)


def writer(role: str) -> OfflineChatModel:
    return OfflineChatModel(role=role, catalog_dir=str(SHOP))


def test_the_shop_catalog_speaks_english_only(shop: Catalog) -> None:
    assert catalog_languages(shop) == {"en"}


@pytest.mark.parametrize(
    "question",
    ["Quantos pedidos foram feitos em 2025?", "Quais os 3 clientes com mais pedidos?"],
)
def test_a_data_question_in_another_language_goes_to_the_sql_writer(
    shop: Catalog, question: str
) -> None:
    assert route(question, shop, lexicon_for(shop), TODAY)["route"] == "ANALYTICS"


@pytest.mark.parametrize("question", ["valeu, até mais!", "oi, tudo bem?"])
def test_small_talk_in_another_language_still_goes_to_chat(shop: Catalog, question: str) -> None:
    assert route(question, shop, lexicon_for(shop), TODAY)["route"] == "CHAT"


def test_words_read_by_meaning_are_read_as_the_catalogs_own() -> None:
    hints = ModelHints(
        question="Quantos pedidos por país em 2025?",
        lang="pt",
        today=TODAY,
        read_as=(("pedidos", "orders"), ("país", "country")),
    )
    sql = writer("sql_writer").reply(hints)["sql"]  # type: ignore[index]
    assert "FROM orders" in sql and "country" in sql and "2025-01-01" in sql
    assert "AS quantidade" in sql  # a Portuguese question names its count in Portuguese


def test_words_of_the_languages_are_never_read_by_meaning() -> None:
    """ "ones" resembles "units", "valeu" resembles "valor": they stay the languages' own."""
    hints = ModelHints(
        question="quantos pedidos em 2025? valeu",
        lang="pt",
        today=TODAY,
        read_as=(("pedidos", "orders"), ("valeu", "amount")),
    )
    sql = writer("sql_writer").reply(hints)["sql"]  # type: ignore[index]
    assert sql.startswith("SELECT count(*)") and "amount" not in sql


def test_words_read_by_meaning_are_ignored_in_a_language_the_catalog_speaks() -> None:
    hints = ModelHints(
        question="how many widgets in 2025?",
        lang="en",
        today=TODAY,
        read_as=(("widgets", "orders"),),
    )
    answer = writer("sql_writer").reply(hints)
    assert answer["sql"] == "" and '"widgets"' in answer["missing_info"]  # type: ignore[index]


def test_without_them_it_says_which_words_it_did_not_understand(shop: Catalog) -> None:
    said = _write_sql("Quantos pedidos em 2025?", shop, lexicon_for(shop), TODAY, (), "pt")
    assert said["sql"] == "" and '"pedidos"' in said["missing_info"]


@pytest.mark.parametrize(
    ("question", "lang", "name"),
    [
        ("how many orders in 2025?", "en", "AS count"),
        ("how many orders in 2025?", "pt", "AS quantidade"),
    ],
)
def test_computed_columns_are_named_in_the_questions_language(
    shop: Catalog, question: str, lang: str, name: str
) -> None:
    assert name in _write_sql(question, shop, lexicon_for(shop), TODAY, (), lang)["sql"]


@pytest.mark.parametrize(
    ("question", "lang"),
    [("what colour are the orders?", "en"), ("what colour are the customers?", "en")],
)
def test_suggestions_are_questions_it_answers_never_none(
    shop: Catalog, question: str, lang: str
) -> None:
    """The shop has no glossary metric: the suggestions are its rows counted, its latest
    rows, how many there are; each one is answered."""
    lexicon = lexicon_for(shop)
    said = _write_sql(question, shop, lexicon, TODAY, (), lang)["missing_info"]
    assert said is not None and "Try: " in said
    listed = said.split("Try: ", 1)[1]
    asks = [ask.strip() for ask in listed.split(";")]
    assert asks and all(asks)
    for ask in asks:
        assert _write_sql(ask, shop, lexicon, TODAY, (), lang)["sql"], ask
