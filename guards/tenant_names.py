"""Which other tenants a message names, from the tenants' own table.

The guard keeps every answer to the asker's rows whatever the question says, so a question
such as "revenue of <another tenant's name>" is answered with the asker's own figures. That
must not pass silently: the answer says the name was not used. The names come from the
catalog's tenant directory (`tenant_name_column`), read once when resources open.

>>> names = TenantNames({"101": "Acme Alimentos Ltda", "102": "Boreal Bebidas Ltda"})
>>> names.named_others("faturamento da Boreal Bebidas em 2026", tenant="101")
['Boreal Bebidas Ltda']
>>> names.named_others("faturamento da Acme Alimentos", tenant="101")
[]
"""

from __future__ import annotations

from ddl_catalog.text import words


class TenantNames:
    """Tenant → name, and the word sequences that count as naming each tenant."""

    def __init__(self, names: dict[str, str]) -> None:
        self.names = names
        self._phrases = {tenant: _phrases(name) for tenant, name in names.items()}

    def named_others(self, message: str, tenant: str) -> list[str]:
        """Names of tenants other than `tenant` that `message` mentions."""
        said = f" {' '.join(words(message))} "
        return [
            self.names[other]
            for other, phrases in self._phrases.items()
            if other != tenant and any(f" {phrase} " in said for phrase in phrases)
        ]


def _phrases(name: str) -> tuple[str, ...]:
    """The whole name, and without its last word when three or more remain ("Boreal Bebidas
    Ltda" is also "Boreal Bebidas"): people drop the company form, rarely more."""
    tokens = words(name)
    if not tokens:
        return ()
    whole = " ".join(tokens)
    return (whole, " ".join(tokens[:-1])) if len(tokens) >= 3 else (whole,)
