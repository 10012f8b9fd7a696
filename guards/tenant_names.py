"""Which tenants a message names, from the tenants' own table.

The guard keeps every answer to the asker's rows whatever the question says. Two things are
read from a message's names, and nothing else:

- the asker's **own** company (`own_names`): whose data this is, so the SQL writer leaves it
  out of the SQL rather than look for it in a row;
- **another** tenant's name (`first_other`): the answer may say that name was not used, in the
  asker's own words (never the directory's spelling, which would tell more than the user
  typed). At most one per message, so that one message tests one guess, not hundreds.

Another tenant's name is otherwise treated as any unknown name would be (the SQL cannot tell
them apart). The names come from the catalog's tenant directory (`tenant_name_column`), read
once when resources open.

>>> names = TenantNames({"1": "Acme Video Store", "2": "Boreal Video Store", "3": "Cedar"})
>>> names.first_other("sales of cedar and boreal  Video in 2026", tenant="1")
'cedar'
>>> names.first_other("sales of Acme Video", tenant="1") is None
True
>>> names.own_names("sales of Acme Video and Boreal Video", tenant="1")
['Acme Video']
"""

from __future__ import annotations

import re
from collections.abc import Iterator

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

    def __bool__(self) -> bool:
        """Whether there are names to look for (the catalog names a tenant directory)."""
        return bool(self.names)

    def first_other(self, message: str, tenant: str) -> str | None:
        """The words of `message`, as written, of the first name of a tenant other than
        `tenant`; None when it names none. Never more than one, however many it names."""
        return next((said for named, said in self._named(message) if named != tenant), None)

    def own_names(self, message: str, tenant: str) -> list[str]:
        """Every spelling in `message` of `tenant`'s own name, as written: whose data this
        is, never a value to look for in the rows. Another tenant's name is not among them.

        >>> TenantNames({"1": "Acme Video"}).own_names("acme video, I mean ACME VIDEO", "1")
        ['acme video', 'ACME VIDEO']
        """
        return list(dict.fromkeys(said for named, said in self._named(message) if named == tenant))

    def _named(self, message: str) -> Iterator[tuple[str, str]]:
        """(tenant, the words of `message` that name it, as written) for every name in
        `message`, in order; where names overlap, the longest wins."""
        tokens = [(w, m.start(), m.end()) for m in TOKEN.finditer(message) for w in words(m[0])]
        folded = tuple(w for w, _, _ in tokens)
        at = 0
        while at < len(folded):
            matches = [
                (len(phrase), named)
                for named, phrase in self._by_first.get(folded[at], ())
                if folded[at : at + len(phrase)] == phrase
            ]
            if not matches:
                at += 1
                continue
            length, named = max(matches)
            yield named, message[tokens[at][1] : tokens[at + length - 1][2]]
            at += length


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
