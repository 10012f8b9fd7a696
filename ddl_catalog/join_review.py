"""What `join_proposals` found, and the review lines it gives the owner: each join written
(to confirm), each candidate only listed and why, the columns not tried in time, and the
role-named keys no rule could pair; and which `tenant_via` links rest on a proposed join."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from orquestra.core.texts import counted
from orquestra.ddl_catalog.join_evidence import Evidence
from orquestra.ddl_catalog.join_names import VALUES_RULE, Candidate
from orquestra.ddl_catalog.tenancy import Key, TenancyProposal

BUDGET_SECONDS = 2.0
"""The time all the proposals of one import may take."""
OUT_OF_TIME = "time budget for join proposals spent"
LISTED_NAMES = 10
"""Columns named in one review line; the rest are counted."""


@dataclass(frozen=True)
class Proposal:
    """A candidate join and what the data said of it; `note`: why it was not written."""

    candidate: Candidate
    evidence: Evidence
    note: str = ""
    basis: str = ""
    """What else the proposal rests on (a join found by its values: no other key holds them)."""

    def comment(self) -> str:
        """The YAML comment above a written join."""
        basis = f"; {self.basis}" if self.basis else ""
        return f"proposed, not declared ({self.candidate.rule}): {self.evidence.describe()}{basis}"

    def describe(self) -> str:
        c = self.candidate
        line = f"{c.table}.{c.column} → {c.parent}.{c.parent_column} ({c.rule}): "
        verdict = self.evidence.verdict
        why = self.note or ("" if verdict == "holds" else verdict.upper())
        basis = f"; {self.basis}" if self.basis and not why else ""
        return line + (f"{why}; " if why else "") + self.evidence.describe() + basis


@dataclass(frozen=True)
class JoinProposals:
    """The joins written, the candidates listed only, and role-named keys with no table."""

    written: tuple[Proposal, ...] = ()
    listed: tuple[Proposal, ...] = ()
    unmatched: tuple[str, ...] = ()
    seconds: float = 0.0
    values_stopped: str = ""
    """Why the search by values stopped short ('' when it did not)."""

    def written_keys(self) -> list[Key]:
        return [p.candidate.key() for p in self.written]

    def tenancy_keys(self) -> list[Key]:
        """Written joins onto a declared primary key or unique index that a name backs: what
        tenancy may use."""
        return [
            p.candidate.key()
            for p in self.written
            if p.evidence.declared_unique and p.candidate.rule != VALUES_RULE
        ]

    def review(self) -> list[str]:
        """What the owner must look at, one item a line."""
        lines = [f"join proposed, not declared (confirm): {p.describe()}" for p in self.written]
        late = [p for p in self.listed if p.evidence.problem == OUT_OF_TIME]
        lines += [
            f"join NOT written (declare it by hand if it is right): {p.describe()}"
            for p in self.listed
            if p not in late
        ]
        if late:
            names = _some([f"{p.candidate.table}.{p.candidate.column}" for p in late])
            lines.append(
                f"{counted(len(late), 'column', 'columns')} not tried on the data,"
                f" the {BUDGET_SECONDS:g} s budget"
                f" for join proposals spent: {names}"
            )
        if self.values_stopped:
            lines.append(
                f"joins by values not searched in full ({self.values_stopped}): some columns"
                " whose name says no table were not tried"
            )
        if self.unmatched:
            lines.append(
                "keys that name no table (role names), no join proposed: "
                f"{_some(list(self.unmatched))}; declare their joins by hand"
            )
        return lines


def _some(names: list[str]) -> str:
    """The first `LISTED_NAMES` names, and how many more."""
    more = len(names) - LISTED_NAMES
    return ", ".join(names[:LISTED_NAMES]) + (f" and {more} more" if more > 0 else "")


def proposed_links(table: str, tenancy: TenancyProposal, proposed: Sequence[Key]) -> list[Key]:
    """The keys along `table`'s `tenant_via` path that are proposed joins, not declared."""
    via = tenancy.via.get(table)
    chain = [via.key] if via else []
    while chain and chain[-1].target in tenancy.via and len(chain) <= len(tenancy.via):
        chain.append(tenancy.via[chain[-1].target].key)
    return [key for key in chain if key in proposed]


def describe_link(key: Key) -> str:
    pairs = zip(key.columns, key.target_columns, strict=True)
    return ", ".join(f"{key.table}.{c} → {key.target}.{t}" for c, t in pairs)
