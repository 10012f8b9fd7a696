"""What a person must review in an imported schema: YAML comments above each table and the
list `catalog import` and `init` print (tenancy proposed, paths chosen and whether the others
agree, shared tables, undecided tables, schema text left out as personal data, folded
partitions, views, columns without a description).

Schema text left out as personal data is printed with its values masked; the file's
comments name only where it was and what kind, so no part of it lands in the deployment's
folder (which is often kept in version control).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from orquestra.core.texts import counted
from orquestra.ddl_catalog.join_proposals import describe_link, proposed_links
from orquestra.ddl_catalog.path_agreement import PathAgreement
from orquestra.ddl_catalog.profiling import profile_review
from orquestra.ddl_catalog.tenancy import Key, TenancyProposal, describe_via

if TYPE_CHECKING:
    from orquestra.ddl_catalog.import_withheld import Withheld
    from orquestra.ddl_catalog.importer import SchemaImport

VIEW_KINDS = {"v": "view", "m": "materialized view"}


def table_comments(
    relation: Any,
    proposal: TenancyProposal,
    agreement: list[PathAgreement],
    withheld: Sequence[Withheld] = (),
    proposed: Sequence[Key] = (),
) -> str:
    """YAML comments above a table: what kind it is, the tenancy a person must confirm, and
    its texts left out as personal data."""
    name = relation["table_name"]
    lines = []
    if relation["kind"] in VIEW_KINDS:
        lines.append(f"a {VIEW_KINDS[relation['kind']]}, imported as a read-only table")
    if relation["kind"] == "p":
        lines.append(f"partitioned ({relation['partition_key']}); its partitions are folded in")
    if name in proposal.via:
        lines.append(f"REVIEW tenant_via: {describe_via(proposal.via[name])}")
        lines += [f"  not chosen, {a.describe()}" for a in agreement]
        lines += [
            f"  rests on a PROPOSED join, not declared: {describe_link(key)}"
            for key in proposed_links(name, proposal, proposed)
        ]
    elif name in proposal.shared:
        lines.append("REVIEW shared: no foreign key of this table reaches tenant data")
    elif name in proposal.undecided:
        lines.append(
            f"DECIDE: {proposal.undecided[name]}. Declare tenant_column, tenant_via "
            "{parent, columns} or shared: true"
        )
    lines += [withheld_comment(item) for item in withheld]
    return "".join(f"  # {line}\n" for line in lines)


def withheld_comment(item: Withheld) -> str:
    """A file comment for a text left out: where and what kind, never the text."""
    return (
        f"REVIEW personal data not copied ({', '.join(item.kinds)}): {item.part}; the"
        " database keeps the text (listed, masked, when this file was written)"
    )


NO_TENANTS = "no tenants (--no-tenancy): one organisation's data; every signed-in user reads it all"


def has_tenants(tenancy: TenancyProposal) -> bool:
    """Whether the import separates tenants: any table holds the tenant column, reaches it,
    or is left undecided (a tenant column that no table has); else `--no-tenancy`."""
    return bool(tenancy.roots or tenancy.via or tenancy.undecided)


def tenants_line(tenancy: TenancyProposal) -> str:
    """The review's first line: which tables hold the tenant column, or that there are none.

    >>> tenants_line(TenancyProposal(roots=("orders",), shared=("products",)))
    'tables with the tenant column: orders'
    >>> tenants_line(TenancyProposal(shared=("orders", "products")))
    "no tenants (--no-tenancy): one organisation's data; every signed-in user reads it all"
    """
    if not has_tenants(tenancy):
        return NO_TENANTS
    return f"tables with the tenant column: {', '.join(tenancy.roots) or 'none'}"


def review_lines(result: SchemaImport) -> list[str]:
    """What a person must review before using the catalog, one item a line."""
    tenancy = result.tenancy
    lines = [tenants_line(tenancy)]
    proposed = result.joins.tenancy_keys()
    for name, via in tenancy.via.items():
        lines.append(f"tenant_via (confirm the path): {describe_via(via)}")
        lines += [f"  not chosen, {a.describe()}" for a in result.agreement.get(name, [])]
        lines += [
            f"  rests on a PROPOSED join (no foreign key declares it; it decides which tenant"
            f" sees each row): {describe_link(key)}"
            for key in proposed_links(name, tenancy, proposed)
        ]
    if tenancy.shared and has_tenants(tenancy):
        lines.append(f"shared by every tenant (confirm): {', '.join(tenancy.shared)}")
    lines += [f"NO TENANCY, decide: {name}: {why}" for name, why in tenancy.undecided.items()]
    lines += result.joins.review()
    lines += [
        f"personal data, not copied into the catalog (decide): {item.describe()}"
        for item in result.withheld
    ]
    for parent, parts in result.partitions.items():
        folded = counted(len(parts), "partition", "partitions")
        lines.append(f"partitioned {parent}: folded {folded} ({', '.join(parts)})")
    if result.views:
        lines.append(
            f"views imported as read-only tables: {', '.join(result.views)}; row-level security"
            " cannot hold on a view (it reads as its owner unless security_invoker is set),"
            " so for them the guard's rewrite is the tenant filter"
        )
    lines += profile_review(result.profile)
    if result.undescribed:
        lines.append(
            f"{counted(len(result.undescribed), 'column', 'columns')} without a description"
            " (no COMMENT ON), e.g. " + ", ".join(result.undescribed[:5])
        )
    return lines
