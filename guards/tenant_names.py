"""Which other tenants a message names, from the tenants' own table.

The guard keeps every answer to the asker's rows whatever the question says, so a question
such as "revenue of <another tenant's name>" is answered with the asker's own figures. That
must not pass silently: the answer says the name was not used, in the asker's own words
(never the directory's spelling, which would tell more than the user typed). The names come
from the catalog's tenant directory (`tenant_name_column`), read once when resources open.

>>> names = TenantNames({"1": "Acme Video Store", "2": "Boreal Video Store"})
>>> names.named_others("sales of boreal  Video in 2026", tenant="1")
['boreal  Video']
>>> names.named_others("sales of Acme Video", tenant="1")
[]
"""

from __future__ import annotations

import re

from orquestra.ddl_catalog.text import words

TOKEN = re.compile(r"\w+")


class TenantNames:
    """Tenant → name, and the word sequences that count as naming each tenant, indexed by
    their first word so that a message costs a lookup per word, however many tenants."""

    def __init__(self, names: dict[str, str]) -> None:
        self.names = names
        self._by_first: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
        for tenant, name in names.items():
            for phrase in _phrases(name):
                self._by_first.setdefault(phrase[0], []).append((tenant, phrase))

    def named_others(self, message: str, tenant: str) -> list[str]:
        """The words of `message` that name tenants other than `tenant`, as written."""
        found = self._named(message)
        return list(dict.fromkeys(said for named, said in found.items() if named != tenant))

    def mentions(self, message: str) -> list[str]:
        """The words of `message` that name any tenant, the asker's own company included:
        names of whose data it is, never values to look for in the rows.

        >>> TenantNames({"1": "Acme Video Store"}).mentions("sales of Acme Video in 2026")
        ['Acme Video']
        """
        return list(dict.fromkeys(self._named(message).values()))

    def _named(self, message: str) -> dict[str, str]:
        """Tenant → the words of `message` that named it first, as written."""
        tokens = [(w, m.start(), m.end()) for m in TOKEN.finditer(message) for w in words(m[0])]
        folded = tuple(w for w, _, _ in tokens)
        found: dict[str, str] = {}
        for at, word in enumerate(folded):
            for named, phrase in self._by_first.get(word, ()):
                end = at + len(phrase)
                if named not in found and folded[at:end] == phrase:
                    found[named] = message[tokens[at][1] : tokens[end - 1][2]]
        return found


def _phrases(name: str) -> tuple[tuple[str, ...], ...]:
    """The whole name, and without its company form: the last word when three or more
    remain ("Boreal Bebidas Ltda" is also "Boreal Bebidas"), or the trailing letters of an
    abbreviated one ("Aurora Alimentos S.A." is also "Aurora Alimentos"). People drop the
    company form, rarely more.

    >>> _phrases("Aurora Alimentos S.A.")
    (('aurora', 'alimentos', 's', 'a'), ('aurora', 'alimentos'))
    """
    tokens = tuple(words(name))
    if not tokens:
        return ()
    short = tokens
    while len(short) > 2 and len(short[-1]) == 1:
        short = short[:-1]
    if short == tokens and len(tokens) >= 3:
        short = tokens[:-1]
    return (tokens, short) if short != tokens else (tokens,)
