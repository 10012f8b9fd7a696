"""Source selection matches a catalog phrase by looking it up among the question's runs of
words: the same answer as scanning the question for the phrase, on every case."""

from __future__ import annotations

import random

from orquestra.ddl_catalog.selection import _runs


def occurs(text: list[str], key: tuple[str, ...]) -> bool:
    """The plain definition: `key` appears contiguously in `text`."""
    size = len(key)
    return bool(size) and any(tuple(text[i : i + size]) == key for i in range(len(text) - size + 1))


def test_a_phrase_is_a_run_exactly_when_it_occurs() -> None:
    rng = random.Random(17)
    vocabulary = ["nota", "fiscal", "carga", "cliente", "valor", "vencido", "de", "por"]
    checked = 0
    for _ in range(2_000):
        text = [rng.choice(vocabulary) for _ in range(rng.randint(0, 9))]
        runs = _runs(text, 4)
        for size in range(0, 5):
            key = tuple(rng.choice(vocabulary) for _ in range(size))
            assert (key in runs) == occurs(text, key), (text, key)
            checked += 1
        if len(text) >= 2:  # and a phrase that is there
            start = rng.randrange(len(text) - 1)
            assert tuple(text[start : start + 2]) in runs
    assert checked == 10_000


def test_runs_stop_at_the_longest_phrase() -> None:
    assert _runs(["a", "b", "c"], 2) == {("a",), ("b",), ("c",), ("a", "b"), ("b", "c")}
    assert _runs([], 3) == set()
