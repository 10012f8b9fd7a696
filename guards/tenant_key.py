"""What a tenant identifier is in this deployment, and its one canonical spelling.

A token's tenant claim is checked against the type of the catalog's tenant columns and
canonicalised once, at authentication: `"0101"` and `101` are tenant `"101"` of an integer
key (one namespace for threads, one value for the guard), and `"-"` or `"1e3"` is no tenant
at all. Everything downstream (threads, the guard's bound parameter, `app.tenant_id`) sees
only canonical identifiers.

>>> TenantKey("integer", 2**31 - 1).canonical("0101")
'101'
>>> TenantKey("uuid").canonical("A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11")
'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from typing import Literal

from orquestra.ddl_catalog.model import INTEGER_TYPES, Catalog

INTEGER_MAX = {"smallint": 2**15 - 1, "integer": 2**31 - 1, "bigint": 2**63 - 1}
DIGITS = re.compile(r"^[0-9]{1,20}$")
TEXT = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""Text identifiers: letters, digits, `_` and `-` (what identity providers issue as codes)."""


class InvalidTenant(ValueError):
    """The value is not a tenant identifier of this deployment's type."""


@dataclass(frozen=True)
class TenantKey:
    """The tenant identifier's type: `integer` (with its largest value), `uuid` or `text`."""

    kind: Literal["integer", "uuid", "text"] = "text"
    max_value: int = 0
    """Largest identifier of an `integer` key (the column type's range)."""

    @classmethod
    def from_catalog(cls, catalog: Catalog) -> TenantKey:
        """The key every tenant column of the catalog can hold (the narrowest integer); the
        loader refuses a catalog whose tenant columns mix kinds."""
        kinds = catalog.tenant_types()
        integers = {INTEGER_TYPES[k] for k in kinds if k in INTEGER_TYPES}
        if kinds and len(integers) == len(kinds):
            return cls("integer", min(INTEGER_MAX[i] for i in integers))
        if kinds == {"uuid"}:
            return cls("uuid")
        return cls("text")

    def canonical(self, value: object) -> str:
        """The canonical spelling of `value`, or `InvalidTenant`."""
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise InvalidTenant("the tenant must be a string or an integer")
        text = str(value)
        if self.kind == "integer":
            if not DIGITS.match(text) or int(text) > self.max_value:
                raise InvalidTenant(f"the tenant must be an integer from 0 to {self.max_value}")
            return str(int(text))
        if isinstance(value, int):
            raise InvalidTenant("the tenant must be a string")
        if self.kind == "uuid":
            try:
                return str(uuid.UUID(text))
            except ValueError:
                raise InvalidTenant("the tenant must be a UUID") from None
        if not TEXT.match(text):
            raise InvalidTenant("the tenant must be 1-64 letters, digits, '_' or '-'")
        return text
