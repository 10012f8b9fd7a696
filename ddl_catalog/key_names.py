"""A column's name read as a key: its words, its table's prefix set aside, its entity and key
word, and how two entities compare (plurals, abbreviations). Naming conventions of schemas,
not words of a language; `ddl_catalog.join_names` builds join candidates on them.

>>> key_name(name_words("CustomerId")), key_name(("orderkey",))
(KeyName(entity=('customer',), word='id'), KeyName(entity=('order',), word='key'))
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from orquestra.ddl_catalog.text import CODE_PREFIXES, CODE_SUFFIXES, abbreviated_by, fold

KEY_SUFFIXES = frozenset({*(s.strip("_") for s in CODE_SUFFIXES), "key"})
"""Naming conventions of keys, not words of a language: `_id`, `_code`, `_no`, `_key`."""
KEY_PREFIXES = frozenset(p.strip("_") for p in CODE_PREFIXES)
"""`id_x`, `cod_x`, `num_x`, as Portuguese schemas name keys."""
GLUED_SUFFIXES = ("key", "id")
"""A key word written without a separator (`custkey`, `customerid`)."""
MIN_ABBREVIATION = 3
MAX_PREFIX = 3
"""Longest table prefix of column names set aside (`l_`, `ps_`); a longer one is a word."""


@dataclass(frozen=True)
class KeyName:
    """A column's name read as a key: `entity` words and the key word (`id`, `key`, …)."""

    entity: tuple[str, ...]
    word: str


@cache  # every name is compared with many others
def name_words(name: str) -> tuple[str, ...]:
    """`CustomerId` → (customer, id); `order_details` → (order, details).

    >>> name_words("custJoinDt"), name_words("l_orderkey")
    (('cust', 'join', 'dt'), ('l', 'orderkey'))
    """
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return tuple(w for w in re.split(r"[^a-z0-9]+", fold(spaced)) if w)


def column_prefix(table: str, columns: Sequence[str]) -> str:
    """The short first word every column of `table` starts with, when it abbreviates the
    table's name (`l` in `lineitem`, `ps` in `partsupp`); '' otherwise. A whole word
    (`customer_id`, `customer_type_id` in `customer_customer_demo`) is part of the key's
    name, never a prefix.

    >>> column_prefix("lineitem", ["l_orderkey", "l_partkey"]), column_prefix("t", ["a_x"])
    ('l', '')
    """
    words = [name_words(c) for c in columns]
    if len(columns) < 2 or any(len(w) < 2 for w in words) or len({w[0] for w in words}) != 1:
        return ""
    prefix = words[0][0]
    if len(prefix) > MAX_PREFIX or prefix in KEY_PREFIXES or prefix in KEY_SUFFIXES:
        return ""
    return prefix if abbreviated_by(prefix, ["".join(name_words(table))]) else ""


def key_name(words: tuple[str, ...]) -> KeyName | None:
    """The key a column's words name, if any.

    >>> key_name(("customer", "id")), key_name(("orderkey",)), key_name(("reports", "to"))
    (KeyName(entity=('customer',), word='id'), KeyName(entity=('order',), word='key'), None)
    """
    if len(words) >= 2 and words[-1] in KEY_SUFFIXES:
        return KeyName(words[:-1], words[-1])
    if len(words) >= 2 and words[0] in KEY_PREFIXES:
        return KeyName(words[1:], words[0])
    if len(words) == 1 and (words[0] in KEY_SUFFIXES or words[0] in KEY_PREFIXES):
        return KeyName((), words[0])
    if len(words) == 1:
        for word in GLUED_SUFFIXES:
            head = words[0].removesuffix(word)
            if head != words[0] and len(head) >= MIN_ABBREVIATION:
                return KeyName((head,), word)
    return None


@cache
def singular_forms(word: str) -> frozenset[str]:
    """The word and what it could be the plural of (English and Portuguese endings).

    >>> sorted(singular_forms("categories"))
    ['categori', 'categorie', 'categories', 'category']
    """
    forms = {word}
    if word.endswith("s") and len(word) > 3:
        forms.add(word[:-1])
        if word.endswith("es"):
            forms.add(word[:-2])
        if word.endswith("ies"):
            forms.add(word[:-3] + "y")
        if word.endswith("oes"):
            forms.add(word[:-3] + "ao")
    return frozenset(forms)


def same_words(left: tuple[str, ...], right: tuple[str, ...]) -> bool:
    """Word for word the same, plurals aside (`order_details` and `order_detail`)."""
    return len(left) == len(right) and all(
        singular_forms(a) & singular_forms(b) for a, b in zip(left, right, strict=True)
    )


def abbreviates(left: tuple[str, ...], right: tuple[str, ...]) -> bool:
    """Word for word, one side abbreviates the other (`cust` customer, `dept` department);
    at least one word is abbreviated, none is shorter than `MIN_ABBREVIATION`."""
    if len(left) != len(right) or same_words(left, right):
        return False
    for a, b in zip(left, right, strict=True):
        short, long = sorted((a, b), key=len)
        if not singular_forms(a) & singular_forms(b) and (
            len(short) < MIN_ABBREVIATION or not abbreviated_by(short, [long])
        ):
            return False
    return True
