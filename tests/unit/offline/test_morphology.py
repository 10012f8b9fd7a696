"""The languages' word forms (`offline/lang/<code>/morphology.yaml`): per language, a handful
of a question's word forms and the roots they are read by, as dateparser tests its languages
one by one; and the data's checks (a malformed file is an error that names it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from orquestra.offline import lexicon
from orquestra.offline.lang import LanguageDataError
from orquestra.offline.lang.morphology import (
    ACT_PLURALS,
    FIRST_PERSON,
    FIRST_PERSON_PAST,
    IRREGULAR,
    LENGTHS,
    MORPHOLOGIES,
    NEGATING_PREFIXES,
    NOUN_ENDINGS,
    PARTICIPLES,
    PAST_ENDINGS,
    PLURAL_STEMS,
    PRESENT_ENDINGS,
    REGULAR_PAST_ENDINGS,
    VERB_ENDINGS,
    adjectives_after_noun,
    genderless,
    length,
    noun_roots,
    other_gender,
    past_of_many,
    plural_stem,
    read,
    shares_root,
    short_verb_roots,
    verb_roots,
)

PORTUGUESE_VERBS = [
    ("concluimos", ["conclu"]),
    ("cadastraram", ["cadastr"]),
    ("cadastramos", ["cadastr"]),
    ("revisadas", ["revis"]),
    ("cancelei", ["cancel"]),
    ("entregaram", ["entreg"]),
    ("vendido", []),  # "vend": shorter than a root
    ("pago", []),
]
ENGLISH_VERBS = [
    ("closed", []),  # "clos": shorter than a root
    ("approved", ["approv"]),
    ("cancelled", ["cancell"]),
    ("shipping", ["shipp"]),
    ("sold", []),
]


@pytest.mark.parametrize(("token", "roots"), PORTUGUESE_VERBS)
def test_portuguese_verb_roots(token: str, roots: list[str]) -> None:
    assert verb_roots(token) == roots


@pytest.mark.parametrize(("token", "roots"), ENGLISH_VERBS)
def test_english_verb_roots(token: str, roots: list[str]) -> None:
    assert verb_roots(token) == roots


@pytest.mark.parametrize(
    ("token", "roots"),
    [
        ("faltaram", ["falt"]),
        ("faltou", ["falt"]),
        ("faltando", ["falt"]),
        ("vencido", ["venc"]),
        ("vencer", []),  # the infinitive: still to happen
        ("emitir", []),
        ("closed", ["clos"]),
        ("working", []),  # "-ing": still going on
    ],
)
def test_short_roots_of_what_happened(token: str, roots: list[str]) -> None:
    assert short_verb_roots(token) == roots


@pytest.mark.parametrize(
    ("token", "roots"),
    [
        ("agendamentos", ["agend"]),
        ("realizacao", ["realiz"]),
        ("cancellations", ["cancell"]),
        ("cancellation", ["cancell"]),
        ("pedidos", []),
    ],
)
def test_noun_roots(token: str, roots: list[str]) -> None:
    assert noun_roots(token) == roots


def test_shared_roots() -> None:
    assert shares_root("entregaram", ["data", "entrega"])
    assert shares_root("concluimos", ["data", "conclusao"])
    assert shares_root("approved", ["approval"])
    assert not shares_root("sold", ["sale"])  # irregular: read through `IRREGULAR`
    assert IRREGULAR["sold"] == IRREGULAR["selling"] == "sale"


@pytest.mark.parametrize(
    ("word", "plural"),
    [
        ("category", "categorie"),
        ("modal", "modai"),
        ("papel", "papei"),
        ("item", "iten"),
        ("valor", "valore"),
        ("particular", "particulare"),
        ("pedido", "pedido"),
        ("bus", "bus"),
    ],
)
def test_plural_stems(word: str, plural: str) -> None:
    assert plural_stem(word) == plural


def test_genders_and_pasts_of_many() -> None:
    assert genderless("travada") == genderless("travado") == "travad"
    assert other_gender("rodoviaria") == "rodoviario"
    assert other_gender("parcel") is None
    assert past_of_many("apareceu") == "apareceram"
    assert past_of_many("sumiu") == "sumiram"
    assert past_of_many("pending") == "pending"


def test_word_order_and_persons() -> None:
    assert adjectives_after_noun("pt") and not adjectives_after_noun("en")
    assert FIRST_PERSON == ("ei", "amos", "emos", "imos")
    assert FIRST_PERSON_PAST == {"i": "id"}
    assert (PRESENT_ENDINGS, ACT_PLURALS) == (("am", "em", "a", "e"), ("as", "es"))
    assert (REGULAR_PAST_ENDINGS, NEGATING_PREFIXES) == (("ed",), ("un",))


def test_lexicon_keeps_its_names() -> None:
    """The readings import the word forms from `lexicon`, as before the data moved."""
    assert lexicon.VERB_ENDINGS == VERB_ENDINGS
    assert lexicon.PAST_ENDINGS == PAST_ENDINGS
    assert lexicon.verb_roots is verb_roots
    assert lexicon.ROOT_LENGTH == LENGTHS.root == 5
    assert lexicon.SHORT_ROOT == length("short_root") == 4


def test_endings_keep_their_order() -> None:
    """Portuguese's endings first, then English's, each language's in its file's order: the
    order the root functions try them in."""
    assert VERB_ENDINGS[:3] == ("amos", "aram", "emos")
    assert VERB_ENDINGS[-2:] == ("ing", "ed")
    assert PARTICIPLES == ("ado", "ada", "ido", "ida", "ed", "ados", "adas", "idos", "idas")
    assert PAST_ENDINGS[:8] == ("aram", "eram", "iram", "ou", "eu", "iu", "ando", "endo")


@pytest.mark.parametrize("endings", [NOUN_ENDINGS, tuple(singular for singular, _ in PLURAL_STEMS)])
def test_endings_tried_first_found_exclude_each_other(endings: tuple[str, ...]) -> None:
    """The functions that stop at the first ending found (`noun_roots`, `plural_stem`) do not
    depend on the languages' order: no ending is the end of another."""
    assert not [(a, b) for a in endings for b in endings if a != b and a.endswith(b)]


def test_lengths() -> None:
    assert (LENGTHS.shared_prefix, LENGTHS.head, LENGTHS.first_person_root) == (6, 4, 4)
    assert length("shared_start") == 5
    with pytest.raises(KeyError):
        length("width")
    assert {m.lengths for m in MORPHOLOGIES.values() if m.lengths} == {LENGTHS}
    assert list(MORPHOLOGIES)[:2] == ["pt", "en"]


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("- amos\n", "expected word forms as a mapping"),
        ("verb_ending: [amos]\n", "unknown keys"),
        ("verb_endings: amos\n", "must be a list"),
        ("plural_stems: [al, ai]\n", "must be a mapping"),
        ("adjectives_after_noun: sometimes\n", "true or false"),
        ("lengths: {root: 5}\n", "lacks"),
        (
            "lengths: {root: five, short_root: 4, first_person_root: 4, shared_prefix: 6,"
            " shared_start: 5, head: 4}\n",
            "whole number",
        ),
    ],
)
def test_malformed_files_are_named(tmp_path: Path, text: str, complaint: str) -> None:
    path = tmp_path / "morphology.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LanguageDataError, match=complaint) as raised:
        read(path, "xx")
    assert str(path) in str(raised.value)
