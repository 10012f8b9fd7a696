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

A deployment without tenants (`tenancy: none`) has the key `none`: no tenant at all is its one
identifier, `NO_TENANT`, and a tenant claim is refused rather than ignored — a token that
names a tenant was issued for data separated by tenant, and here it would read everything.

>>> TenantKey("none").canonical(None)
'-'
>>> try:
...     TenantKey("none").canonical("101")
... except InvalidTenant as refused:
...     print(refused)
this deployment has no tenants; send no tenant
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from typing import Literal

from orquestra.core.deployment import Profile
from orquestra.core.errors import OrquestraError
from orquestra.ddl_catalog.model import INTEGER_TYPES, Catalog

INTEGER_MAX = {"smallint": 2**15 - 1, "integer": 2**31 - 1, "bigint": 2**63 - 1}
DIGITS = re.compile(r"^[0-9]{1,20}$")
TEXT = re.compile(r"^(?=.*[A-Za-z0-9])[A-Za-z0-9_-]{1,64}$")
"""Text identifiers: letters, digits, `_` and `-`, at least one letter or digit (what identity
providers issue as codes; `-` alone is `NO_TENANT`)."""


NO_TENANT = "-"
"""The one tenant identifier of a deployment without tenants: threads, leases, metrics and the
executor's `app.tenant_id` see it; no catalog table holds a tenant, so it filters nothing."""


class InvalidTenant(ValueError):
    """The value is not a tenant identifier of this deployment's type."""


@dataclass(frozen=True)
class TenantKey:
    """The tenant identifier's type: `integer` (with its largest value), `uuid` or `text`."""

    kind: Literal["integer", "uuid", "text", "none"] = "text"
    max_value: int = 0
    """Largest identifier of an `integer` key (the column type's range)."""

    @classmethod
    def from_catalog(cls, catalog: Catalog, *, tenants: bool = True) -> TenantKey:
        """The key every tenant column of the catalog can hold (the narrowest integer); the
        loader refuses a catalog whose tenant columns mix kinds. `tenants=False` (a profile's
        `tenancy: none`): the key of a deployment without tenants."""
        if not tenants:
            return cls("none")
        kinds = catalog.tenant_types()
        integers = {INTEGER_TYPES[k] for k in kinds if k in INTEGER_TYPES}
        if kinds and len(integers) == len(kinds):
            return cls("integer", min(INTEGER_MAX[i] for i in integers))
        if kinds == {"uuid"}:
            return cls("uuid")
        return cls("text")

    @property
    def has_tenants(self) -> bool:
        return self.kind != "none"

    def canonical(self, value: object) -> str:
        """The canonical spelling of `value`, or `InvalidTenant`."""
        if self.kind == "none":
            if value is None:
                return NO_TENANT
            raise InvalidTenant("this deployment has no tenants; send no tenant")
        if value is None:
            raise InvalidTenant("a tenant is required")
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
            raise InvalidTenant(
                "the tenant must be 1-64 letters, digits, '_' or '-', with a letter or digit"
            )
        return text


class TenancyMismatch(OrquestraError):
    """The profile's `tenancy` and the catalog's tables disagree; the deployment cannot serve."""


def deployment_key(catalog: Catalog, profile: Profile) -> TenantKey:
    """The tenant key of a deployment whose profile and catalog agree on tenancy, else
    `TenancyMismatch`: fail closed both ways. A profile with tenants over a catalog where no
    table holds one would let every tenant read every row; a profile without tenants over
    tenant tables says the owner did not decide."""
    tenant_tables = sorted(t.name for t in catalog.tables.values() if not t.shared)
    if profile.has_tenants and not tenant_tables:
        raise TenancyMismatch(
            "DEPLOYMENT_TENANCY_MISMATCH",
            "the profile says the data has tenants, but no catalog table holds one (every "
            "table is shared): every tenant would read every row. Declare tenant_column or "
            "tenant_via on the tables that hold a tenant's rows, or set `tenancy: none` in "
            "profile.yaml for one organisation's data",
        )
    if not profile.has_tenants and tenant_tables:
        raise TenancyMismatch(
            "DEPLOYMENT_TENANCY_MISMATCH",
            "the profile says `tenancy: none`, but these catalog tables hold a tenant: "
            f"{', '.join(tenant_tables[:8])}. Mark them `shared: true`, or remove "
            "`tenancy: none` from profile.yaml",
        )
    return TenantKey.from_catalog(catalog, tenants=profile.has_tenants)
