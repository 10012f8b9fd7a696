"""Which other tenants a message names, from the tenants' own table.

The guard keeps every answer to the asker's rows whatever the question says, so a question
such as "revenue of <another tenant's name>" is answered with the asker's own figures. That
must not pass silently: the answer says the name was not used, in the asker's own words
(never the directory's spelling, which would tell more than the user typed). The names come
from the catalog's tenant directory (`tenant_name_column`), read once when resources open.

>>> names = TenantNames({"101": "Acme Alimentos Ltda", "102": "Boreal Bebidas Ltda"})
>>> names.named_others("faturamento da boreal  Bebidas em 2026", tenant="101")
['boreal  Bebidas']
>>> names.named_others("faturamento da Acme Alimentos", tenant="101")
[]
"""

from __future__ import annotations

import re

from ddl_catalog.text import words

TOKEN = re.compile(r"\w+")


class TenantNames:
    """Tenant → name, and the word sequences that count as naming each tenant."""

    def __init__(self, names: dict[str, str]) -> None:
        self.names = names
        self._phrases = {tenant: _phrases(name) for tenant, name in names.items()}

    def named_others(self, message: str, tenant: str) -> list[str]:
        """The words of `message` that name tenants other than `tenant`, as written."""
        tokens = [(w, m.start(), m.end()) for m in TOKEN.finditer(message) for w in words(m[0])]
        folded = [w for w, _, _ in tokens]
        found: list[str] = []
        for other, phrases in self._phrases.items():
            if other == tenant:
                continue
            for phrase in phrases:
                at = _find(folded, phrase.split())
                if at is not None:
                    start, end = tokens[at][1], tokens[at + len(phrase.split()) - 1][2]
                    found.append(message[start:end])
                    break
        return list(dict.fromkeys(found))


def _find(tokens: list[str], phrase: list[str]) -> int | None:
    """Where `phrase` starts in `tokens`, as whole words."""
    for at in range(len(tokens) - len(phrase) + 1):
        if tokens[at : at + len(phrase)] == phrase:
            return at
    return None


def _phrases(name: str) -> tuple[str, ...]:
    """The whole name, and without its last word when three or more remain ("Boreal Bebidas
    Ltda" is also "Boreal Bebidas"): people drop the company form, rarely more."""
    tokens = words(name)
    if not tokens:
        return ()
    whole = " ".join(tokens)
    return (whole, " ".join(tokens[:-1])) if len(tokens) >= 3 else (whole,)
