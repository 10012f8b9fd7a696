"""The offline model's language data (`offline/lang/<code>/*.yaml`), per language: it loads,
every concept the code asks for is there, no two concepts of a language are the same words
but where a reason says why they are apart, its words are spelled as they are matched, and a
handful of words of each language mean what they should (in the spirit of dateparser's
per-language tests: a negation, months, numbers)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from orquestra.ddl_catalog.text import fold
from orquestra.offline import asking, concepts, periods
from orquestra.offline.lang import HERE, SLOT, Language, _read, concepts_of

CODES = ("pt", "en")
OFFLINE = Path(periods.__file__).resolve().parent
DATA = {code: _read(HERE / code) for code in CODES}

LANG_FUNCTIONS = {"words", "word_set", "first_word", "mapping", "alternation", "each_language"}
"""`orquestra.offline.lang`'s functions that take concepts (`each_language`: templates)."""
LANGUAGE_METHODS = {"words", "word_set", "mapping"}
"""A `Language`'s (or the `lang` module's) methods that take a concept."""

SAME_WORDS: dict[str, dict[frozenset[str], str]] = {
    "pt": {
        frozenset({"and_words", "is_word"}): '"e" is "and", and "é" folded ("is")',
        frozenset({"articles", "case_determiners"}): (
            "the articles skipped before a state, and the determiners a rule is asked of; "
            'English skips "the" and asks of "a"/"an"'
        ),
        frozenset({"column_of_table_links", "of_any_article"}): (
            '"de" and its contractions between a column and its table, and after the number '
            'sign; English says "of" in one and "of the" in the other'
        ),
        frozenset({"count_askers", "how_many"}): (
            '"quantos" counts rows in one word; English says "how many" and "the most"'
        ),
        frozenset({"date_of", "date_parts_link", "of_without_article", "than"}): (
            '"de" is "of" in a date, between a date\'s parts, after a quantity abbreviation, '
            'and "than" after "mais": English says "of", nothing, "of" and "than"'
        ),
        frozenset({"day_noun", "since_day_word"}): (
            'the unit "day", and the word passed over after "since"; English has no such word'
        ),
        frozenset({"day_ordinal_suffix", "masculine_article"}): (
            '"1º" folds to "1o": the ordinal ending and the article "o" look alike'
        ),
        frozenset({"days_to", "range_to"}): (
            'the end of a range of days and of months ("de 3 a 5", "de março a maio"); '
            'English ends a range of months with "until" too'
        ),
        frozenset({"definite_singular", "singular_articles"}): (
            'the article of a definition ("qual a definição") and of a superlative ("o '
            'maior"); English says "the" in one only'
        ),
        frozenset({"fewest", "less"}): '"menos" ranks by the fewest and asks for less',
        frozenset({"if_word", "reflexive_pronoun"}): '"se" is "if" and "itself"',
        frozenset({"late_short", "leave_out_particles"}): (
            '"fora" is "late" after an on-time clause and "out" after a verb leaving rows out'
        ),
        frozenset({"month_column_names", "month_noun", "singular_in_s"}): (
            '"mes" names the month column, is the unit "month", and is a singular ending in s'
        ),
        frozenset({"month_range_to", "until"}): '"até" ends a range of months and says "until"',
        frozenset({"more", "most"}): '"mais" is "more" and "most"',
        frozenset({"most_or_fewest", "ranked_by_count"}): (
            '"mais"/"menos" rank by more or fewer, and before a plural by how many'
        ),
        frozenset({"no_data_openings", "not_found_openings"}): (
            "an answer that found no rows and an explanation that found no term open alike "
            'in Portuguese ("Não encontrei"), not in English'
        ),
        frozenset({"part_year_link", "same_part_year_link"}): (
            "the link before a part of a year's year, and before \"the same\" part's year"
        ),
        frozenset({"semester_short_names", "without_words"}): (
            '"sem" is a semester, short, and "without"'
        ),
        frozenset({"since_the_day", "the_day"}): (
            '"o dia" after "since" and at a range\'s end; English says "the" in one only'
        ),
        frozenset({"which_askers", "which_of", "which_ones"}): (
            '"qual"/"quais" ask which thing, which of some, and which ones; English adds '
            '"what" and "which ones"'
        ),
        frozenset({"who_pronoun", "who_ranked"}): (
            '"quem" asks who may do a thing and who ranks first'
        ),
    },
    "en": {
        frozenset({"any_determiners", "determiners_after_without"}): (
            'the determiners of a rule asked of any one ("a", "an", "any") and after '
            '"without": Portuguese says them apart'
        ),
        frozenset({"asks_average", "average_noun"}): (
            'asking an average, and the noun "average": Portuguese adds "média de"'
        ),
        frozenset({"before_a_count", "count_openers", "ranking_size_before"}): (
            '"the"/"top" before a count, a count asked and a ranking\'s size: Portuguese '
            "says each otherwise"
        ),
        frozenset(
            {
                "date_of",
                "entity_prepositions",
                "of_any_article",
                "of_singular",
                "of_without_article",
                "part_year_link",
            }
        ): '"of" is every "de", "do", "da" of Portuguese, which says them apart',
        frozenset({"day_range_from", "month_days_from", "range_from"}): (
            'a range\'s start ("between", "from"), of days or months'
        ),
        frozenset({"days_to", "month_days_to_same_month"}): "a range of days' end",
        frozenset({"entity_articles", "since_the_day", "singular_articles"}): (
            '"the" before a numbered row, after "since", and before a superlative'
        ),
        frozenset({"first_few", "list_first"}): '"first" is the first few and "X first"',
        frozenset({"from_on", "since_from"}): '"from"/"since" a day, and since a month',
        frozenset({"group_markers", "table_first_markers"}): (
            '"by"/"each"/"per" group, and mark the table named first'
        ),
        frozenset({"having_present", "owning"}): '"has"/"have"/"with" own, in the present',
        frozenset({"how_many", "quantity_askers"}): (
            '"how many": Portuguese says "quantos" and "quantidade"'
        ),
        frozenset({"listing_openers", "which_of"}): '"which" lists, and asks which of some',
        frozenset({"month_column_names", "month_noun"}): (
            '"month" names the month column and is the unit'
        ),
        frozenset({"month_days_to", "range_to"}): "a range's end, of days or months",
        frozenset({"quarter_letter_before_digit", "quarter_letters_after_digit"}): (
            '"q" before a quarter\'s digit ("q3") and after ("3q"); Portuguese writes "3t" and "t3"'
        ),
        frozenset({"this_before_feminine", "this_before_masculine"}): (
            '"this" has no gender in English'
        ),
        frozenset({"value_question_words", "which_askers"}): (
            '"what"/"which" ask a value and which thing'
        ),
    },
}
"""Concepts of one language said with the same words, and why they are kept apart: each is
said otherwise in another language (or means another thing). Concepts with the same words in
every language and one meaning are one concept (`when`, `of_singular`, `date_parts_link`,
`masculine_article` each took in another)."""

AS_TYPED = {
    "aged_since": 'matched on the question as typed ("há mais de 60 dias")',
    "copulas": 'matched as typed: unaccented "esta" is also "this"',
    "month_names_as_typed": 'month names folding changes ("março"), matched as typed',
    "number_abbreviations": 'matched on the question as typed too ("nº 12")',
    "number_sign_abbreviations": 'matched as typed ("nº de títulos")',
    "number_sign_spelled_out": 'written into the question for the sign ("número")',
    "no_data_openings": "an answer's opening, as written",
    "not_found_openings": "an explanation's opening, as written",
    "chat_shorthand": "the words shorthand stands for, as written out",
    "explanation_texts": "sentences, written as shown",
    "offline_texts": "sentences, written as shown",
}
"""Concepts whose words are not matched on folded text, and why."""


def _concept_functions(tree: ast.Module, imported: dict[str, set[str]]) -> set[str]:
    """The module's names that take concepts: imported from `lang` (or from a module whose
    name it is), or bound to a `partial` of one."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module:
            own = LANG_FUNCTIONS if node.module == "orquestra.offline.lang" else set()
            own = own or imported.get(node.module.rsplit(".", 1)[-1], set())
            names |= {a.asname or a.name for a in node.names if a.name in own}
    for node in tree.body:
        if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Call):
            continue
        call = node.value
        if (
            isinstance(call.func, ast.Name)
            and call.func.id == "partial"
            and call.args
            and isinstance(call.args[0], ast.Name)
            and call.args[0].id in names
        ):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def _strings(node: ast.expr, tree: ast.Module) -> Iterator[str]:
    """A call's string argument, or the strings of a module tuple passed with `*`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, ast.Starred) and isinstance(node.value, ast.Name):
        for statement in tree.body:
            if (
                isinstance(statement, ast.Assign)
                and any(
                    isinstance(t, ast.Name) and t.id == node.value.id for t in statement.targets
                )
                and isinstance(statement.value, ast.Tuple)
            ):
                for item in statement.value.elts:
                    yield from _strings(item, tree)


def concepts_asked() -> dict[str, set[str]]:
    """Each concept a module of `offline/` asks for by name, with the modules asking."""
    trees = {path.stem: ast.parse(path.read_text("utf-8")) for path in OFFLINE.glob("*.py")}
    functions: dict[str, set[str]] = {}
    for _pass in range(2):  # a module's names may come from another's partial
        functions = {name: _concept_functions(tree, functions) for name, tree in trees.items()}
    asked: dict[str, set[str]] = {}
    for name, tree in trees.items():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            called = node.func
            by_name = isinstance(called, ast.Name) and called.id in functions[name]
            by_method = isinstance(called, ast.Attribute) and called.attr in LANGUAGE_METHODS
            if not (by_name or by_method):
                continue
            templates = isinstance(called, ast.Name) and called.id == "each_language"
            for argument in node.args:
                for said in _strings(argument, tree):
                    for concept in SLOT.findall(said) if templates else [said]:
                        asked.setdefault(concept, set()).add(name)
    return asked


def test_each_language_loads() -> None:
    for code, language in DATA.items():
        assert isinstance(language, Language) and language.code == code
        assert len(language.concepts) > 300, code
        assert language.words("negation"), code


def test_every_concept_the_code_asks_for_is_in_a_language() -> None:
    asked = concepts_asked()
    assert len(asked) > 400  # the scan finds the code's concepts, not nothing
    assert {"when", "of_singular", "date_parts_link", "masculine_article"} <= set(asked)
    known = set().union(*(language.concepts for language in DATA.values()))
    missing = {
        concept: sorted(modules) for concept, modules in asked.items() if concept not in known
    }
    assert not missing


def test_the_merged_concepts_are_gone() -> None:
    gone = {"when_pronoun", "opening_word_links", "year_preposition", "from_on_article"}
    for language in DATA.values():
        assert not gone & language.concepts
    assert not gone & set(concepts_asked())


@pytest.mark.parametrize("code", CODES)
def test_no_two_concepts_are_the_same_words_without_a_reason(code: str) -> None:
    language = DATA[code]
    by_words: dict[object, set[str]] = {}
    for concept in language.concepts:
        said: object = (
            tuple(sorted(language.maps[concept].items()))
            if concept in language.maps
            else frozenset(language.words(concept))
        )
        if said:
            by_words.setdefault(said, set()).add(concept)
    same = {frozenset(group) for group in by_words.values() if len(group) > 1}
    assert same == set(SAME_WORDS[code])


@pytest.mark.parametrize("code", CODES)
def test_words_are_folded_where_they_are_matched_folded(code: str) -> None:
    language = DATA[code]
    unfolded = {
        concept: [
            w
            for w in (*language.words(concept), *language.mapping(concept).values())
            if w != fold(w)
        ]
        for concept in language.concepts
        if concept not in AS_TYPED
    }
    assert not {concept: said for concept, said in unfolded.items() if said}


@pytest.mark.parametrize(
    ("code", "typed", "concept"),
    [
        ("pt", "não", "negation"),
        ("pt", "nunca", "negation"),
        ("pt", "sem", "negation"),
        ("en", "never", "negation"),
        ("en", "not", "negation"),
        ("pt", "Quando", "when"),
        ("en", "when", "when"),
        ("pt", "até", "until"),
        ("en", "until", "until"),
    ],
)
def test_a_word_says_its_concept(code: str, typed: str, concept: str) -> None:
    assert fold(typed) in DATA[code].words(concept)
    assert concept in concepts_of(fold(typed))


@pytest.mark.parametrize(
    ("code", "typed", "number"),
    [
        ("pt", "janeiro", 1),
        ("pt", "Março", 3),
        ("pt", "maio", 5),
        ("pt", "dezembro", 12),
        ("pt", "set", 9),
        ("pt", "dez", 12),
        ("en", "January", 1),
        ("en", "march", 3),
        ("en", "may", 5),
        ("en", "dec", 12),
    ],
)
def test_a_month_name_is_its_month(code: str, typed: str, number: int) -> None:
    language = DATA[code]
    named = fold(typed)
    full = language.mapping("month_abbreviations").get(named, named)
    assert language.words("month_names").index(full) + 1 == number
    assert periods.MONTHS[named] == number


@pytest.mark.parametrize(
    ("code", "typed", "number", "concept"),
    [
        ("pt", "duas", 2, "small_number_words"),
        ("pt", "três", 3, "small_number_words"),
        ("pt", "cinco", 5, "small_number_words"),
        ("pt", "dez", 10, "small_number_words"),
        ("en", "three", 3, "small_number_words"),
        ("en", "ten", 10, "small_number_words"),
        ("pt", "primeiro", 1, "ordinal_numbers"),
        ("pt", "1º", 1, "ordinal_numbers"),
        ("pt", "terceira", 3, "ordinal_numbers"),
        ("en", "third", 3, "ordinal_numbers"),
        ("en", "4th", 4, "ordinal_numbers"),
    ],
)
def test_a_number_word_is_its_number(code: str, typed: str, number: int, concept: str) -> None:
    said = fold(typed)
    assert int(DATA[code].mapping(concept)[said]) == number
    merged = asking.NUMBER_WORDS if concept == "small_number_words" else periods.ORDINALS
    assert merged[said] == number


def test_a_template_is_filled_by_one_language_at_a_time() -> None:
    # "qual é a definição" and "what is the definition", never "what é the definição"
    assert concepts.CONCEPT.search("qual e a definicao de otif")
    assert concepts.CONCEPT.search("what is the definition of otif")
    assert not concepts.CONCEPT.search("what e a definicao de otif")
