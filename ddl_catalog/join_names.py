"""Which columns may be keys into which tables, read from names alone (no data yet).

A key name is an entity and a key word: `customer_id` is (customer, id), TPC-H's
`l_orderkey` is (order, key) once the table's own column prefix (`l_`, every column of
`lineitem` has it) is set aside, Portuguese `cod_cliente` is (cliente, cod). A bare key word
(`id`, `key`) is its table's own key, named by the table. A child column may reference a
parent column that is unique (a primary key or unique index says so; in a table that declares
no primary key, any column, which the data must then show unique) when the key words are the
same and the entities agree, by one of these rules, best first:

- `same name`: the same entity, plurals aside (`order_details.order_id` → `orders.order_id`,
  `l_orderkey` → `o_orderkey`, `o_custkey` → `customer.c_custkey`); a name without a key
  word (`carrier`, `tailnum`) only onto the same name that a primary key or unique index
  makes unique by itself;
- `names the table`: the child's entity names the parent's table and the parent column is
  that table's own key (`customer_id` → `customers.id`, `customer.customer_id`);
- `abbreviation`: word for word, one entity abbreviates the other (`cust_id` →
  `customer.customer_id`, `dept_id` → `departments.id`);
- `role prefix`: the child's entity is the parent's with words in front
  (`billing_customer_id` → `customers.customer_id`, `parent_category_id` → `categories`).

Role-named keys (`reports_to`, `ship_via`, `support_rep_id`) name no table, and their
values, small integers, fit in the keys of most tables, so neither the name nor the data can
say which they reference: they are not proposed. Those ending in a key word are returned as
`unmatched`, for the owner to declare by hand. (A text column that names no table, like
`flights.origin`, may still be found by its values: `ddl_catalog.join_values`.)

>>> tables = {
...     "customers": (Column("customer_id", "integer", True, "primary key"),),
...     "orders": (Column("order_id", "integer", True, "primary key"),
...                Column("cust_id", "integer", True)),
... }
>>> [(c.table, c.column, c.parent, c.parent_column, c.rule) for c in name_candidates(tables)]
[('orders', 'cust_id', 'customers', 'customer_id', 'abbreviation')]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from orquestra.ddl_catalog.join_evidence import comparable
from orquestra.ddl_catalog.key_names import (
    KeyName,
    abbreviates,
    column_prefix,
    key_name,
    name_words,
    same_words,
)
from orquestra.ddl_catalog.tenancy import Key

ROLE_KEY_WORDS = frozenset({"id", "key"})
"""A column ending `_id`/`_key` that names no table is listed as a role-named key (`_code`,
`_no` end too many plain attributes: `postal_code`, `phone_no`)."""
VALUES_RULE = "values"
"""No name says it: the values are found in one key of the schema (`join_values`)."""
RULES = ("same name", "names the table", "abbreviation", "role prefix", VALUES_RULE)
"""The rules, best first; a candidate's `rank` is its rule's place here."""


@dataclass(frozen=True)
class Column:
    """What naming needs of a column."""

    name: str
    type: str
    not_null: bool = False
    unique: str = ""
    """`primary key` or `unique index` when the database makes this column alone unique."""
    in_primary_key: bool = False
    """Part of its table's primary key (alone or with others)."""


@dataclass(frozen=True)
class Candidate:
    """`table.column` may reference `parent.parent_column`, by `rule`."""

    table: str
    column: str
    parent: str
    parent_column: str
    rule: str
    both: bool
    """The parent column is named by the entity and is its table's own key: best of a rule."""
    not_null: bool
    declared_unique: str
    """`primary key` / `unique index` of the parent column, '' if the data must show it."""
    keyless: bool = False
    """The column's name has no key word: only the same name onto a declared key."""

    @property
    def rank(self) -> tuple[int, bool]:
        return (RULES.index(self.rule), not self.both)

    def key(self) -> Key:
        return Key(self.table, (self.column,), self.parent, (self.parent_column,), self.not_null)


def name_candidates(
    tables: Mapping[str, Sequence[Column]], declared: Sequence[Key] = ()
) -> list[Candidate]:
    """Every (child column, parent column) the names allow, best first per child column.
    Columns already in a declared foreign key are not children; a column whose entity names
    its own table (`customers.customer_id`) is its table's key, never a child."""
    keyed = {(k.table, c) for k in declared for c in k.columns}
    read = {name: _read_names(name, columns) for name, columns in tables.items()}
    parents = [
        (name, column, own, home)
        for name, columns in tables.items()
        for column, (own, home) in zip(columns, read[name], strict=True)
        if own is not None and _may_be_parent(column, columns)
    ]
    unique_by_name: dict[tuple[str, ...], list[tuple[str, Column]]] = {}
    for name, columns in sorted(tables.items()):
        for column in columns:
            if column.unique:
                unique_by_name.setdefault(name_words(column.name), []).append((name, column))
    found: list[Candidate] = []
    for name, columns in tables.items():
        for column, (own, home) in zip(columns, read[name], strict=True):
            if (name, column.name) in keyed:
                continue
            if own is None:
                found += _same_column(name, column, unique_by_name)
                continue
            if not own.entity or home:
                continue
            options = [
                candidate
                for parent, parent_column, parent_own, parent_home in parents
                if (parent, parent_column.name) != (name, column.name)
                and parent_own.word == own.word
                and (
                    candidate := _match(
                        name, column, own, parent, parent_column, parent_own, parent_home
                    )
                )
                and comparable(column.type, parent_column.type)
            ]
            found += sorted(options, key=lambda c: (c.rank, c.parent, c.parent_column))
    return found


def unmatched(
    tables: Mapping[str, Sequence[Column]],
    declared: Sequence[Key] = (),
    candidates: Sequence[Candidate] = (),
) -> list[str]:
    """`table.column` whose name ends in a key word (`support_rep_id`) but names no table:
    a role-named key, for a person to declare."""
    keyed = {(k.table, c) for k in declared for c in k.columns}
    matched = {(c.table, c.column) for c in candidates}
    out = []
    for name, columns in tables.items():
        for column, (own, home) in zip(columns, _read_names(name, columns), strict=True):
            place = (name, column.name)
            words = name_words(column.name)
            if own is None or home or column.unique or place in keyed | matched:
                continue
            if len(words) > 1 and words[-1] in ROLE_KEY_WORDS:
                out.append(f"{name}.{column.name}")
    return out


def _read_names(table: str, columns: Sequence[Column]) -> list[tuple[KeyName | None, bool]]:
    """Each column's key name (its table's prefix set aside) and whether its entity names
    its own table (or it is a bare key word: the table's own key either way)."""
    prefix = column_prefix(table, [c.name for c in columns])
    table_words = name_words(table)
    out: list[tuple[KeyName | None, bool]] = []
    for column in columns:
        words = name_words(column.name)
        own = key_name(words[1:] if prefix and words[0] == prefix else words)
        home = own is not None and (not own.entity or same_words(own.entity, table_words))
        out.append((own, home))
    return out


def _same_column(
    table: str, column: Column, unique_by_name: Mapping[tuple[str, ...], list[tuple[str, Column]]]
) -> list[Candidate]:
    """A column whose name says no key (`carrier`, `tailnum`) references a column of the same
    name elsewhere only if the database makes that one unique by itself."""
    return [
        Candidate(
            table,
            column.name,
            parent,
            other.name,
            "same name",
            False,
            column.not_null,
            other.unique,
            keyless=True,
        )
        for parent, other in unique_by_name.get(name_words(column.name), [])
        if parent != table and comparable(column.type, other.type)
    ]


def _may_be_parent(column: Column, columns: Sequence[Column]) -> bool:
    """Unique by the database, or in a table that declares no primary key (then the data
    decides)."""
    return bool(column.unique) or not any(c.in_primary_key for c in columns)


def _match(
    table: str,
    column: Column,
    own: KeyName,
    parent: str,
    parent_column: Column,
    parent_own: KeyName,
    parent_home: bool,
) -> Candidate | None:
    """The best rule by which `table.column` names `parent.parent_column`, if one does."""
    parent_words = name_words(parent)
    is_own_key = parent_home or parent_column.unique == "primary key"
    names_parent = [parent_own.entity] if parent_own.entity else []
    names_table = [parent_words] if is_own_key else []
    both = is_own_key and (not parent_own.entity or same_words(parent_own.entity, parent_words))
    rule = None
    if any(same_words(own.entity, n) for n in names_parent):
        rule = "same name"
    elif any(same_words(own.entity, n) for n in names_table):
        rule = "names the table"
    elif any(abbreviates(own.entity, n) for n in names_parent + names_table):
        rule = "abbreviation"
    elif any(
        len(own.entity) > len(n) and same_words(own.entity[-len(n) :], n)
        for n in names_parent + names_table
    ):
        rule = "role prefix"
    if rule is None:
        return None
    return Candidate(
        table,
        column.name,
        parent,
        parent_column.name,
        rule,
        both,
        column.not_null,
        parent_column.unique,
    )
