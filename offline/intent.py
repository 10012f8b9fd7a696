"""What a question asks, in catalog terms: the parser's output and the SQL builder's input."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields, replace

from orquestra.ddl_catalog.data_values import FoundValue
from orquestra.ddl_catalog.model import GlossaryTerm
from orquestra.ddl_catalog.text import fold
from orquestra.offline.lang import alternation
from orquestra.offline.periods import Period

LATEST_STATE = re.compile(
    rf"\b{alternation('latest_of_a_state')}\s+{alternation('state_or_event_nouns')}\b"
)


@dataclass(frozen=True)
class Group:
    """A GROUP BY: a time grain on the base table's date, or a column (possibly joined)."""

    table: str
    column: str
    grain: str | None = None


@dataclass
class Clause:
    """One clause's own condition when a question asks one measure under several ("quantas
    entregues e quantas canceladas", "how many on time and how many late")."""

    filters: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    comparisons: list[tuple[str, str, str, str]] = field(default_factory=list)
    """(table, column, operator, other column), as in `Intent.comparisons`."""
    label: str = ""
    """What names the clause's column ("pago", "no_prazo"): its states when empty."""


@dataclass(frozen=True)
class Others:
    """Rows of another table that refer to the rows asked: their table, the period they are
    placed in (by their own date) and a condition on them (a metric's filter, their own
    states said after "sem"), if said."""

    table: str
    period: Period | None = None
    condition: str | None = None
    count: tuple[str, int] | None = None
    """How many of them, compared (">", 20: more than 20), when a number of them is said."""


@dataclass
class Subject:
    """Which rows the question is about: tables, one row named, columns asked of them."""

    tables: list[str] = field(default_factory=list)
    columns: list[tuple[str, str]] = field(default_factory=list)
    entity: tuple[str, str, int] | None = None
    """One row named by its number ("tarefa 12"): (table, key column, number)."""
    tenant_value: int | None = None
    """A tenant named in the question ("loja 2", "store 2"): filtered like any column."""
    named: str | None = None
    """A row's own name said in the question ("Empório São Jorge ME"): its display column."""
    named_split: FoundValue | None = None
    """That name as found in the asker's rows, kept in two columns of one row ("Margaret
    Peacock": `first_name` and `last_name` of an employee)."""
    owners: str | None = None
    """ "quais clientes têm títulos vencidos": this table's rows that the rows asked about
    refer to, listed once each."""
    distinct_table: str | None = None
    """ "quantas tarefas distintas": this table's rows, each counted once (by its whole key)."""
    per_row: str | None = None
    """ "média de tarefas por projeto": the rows counted, averaged over this table's rows
    they refer to (each counted once)."""


@dataclass
class Measures:
    """What is computed of the rows: a glossary metric, or an aggregate of a column."""

    metric: GlossaryTerm | None = None
    aggregate: str | None = None
    measure: tuple[str, str] | None = None
    """The (table, column) an aggregate word applies to ("valor médio")."""
    implied: list[GlossaryTerm] = field(default_factory=list)
    """Metrics whose state word the question uses of the rows it measures ("os produtos mais
    vendidos"): their filters and dates apply."""
    metric_rows: bool = False
    """The metric's phrase names the rows it measures ("tarefas atrasadas", "overdue
    bills"): a list of them asks for those rows, not their total."""
    measured_in: str | None = None
    """The clause that asks the first of several measures ("quantas tarefas extras …"),
    read for its unit apart from the others' ("… e quantas horas")."""
    also: list[Intent] = field(default_factory=list)
    """Further measures asked over the same rows ("quantos … e qual o valor total"): each
    clause's own reading, of which only the measure is used."""
    own: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    """Of a further measure's clause: the states only it says ("… e quanto ficou em tarefa
    bloqueada"), its measure's condition (a FILTER), not every clause's rows."""
    apart: list[Clause] = field(default_factory=list)
    """The same measure under each clause's own condition ("quantas bloqueadas e quantas
    canceladas"): one column each, the condition as its FILTER, not the WHERE."""
    share: bool = False
    """A percentage of the rows its states and named row keep, over all it asks about."""
    group_shares: bool = False
    """Each group's share of the whole, in percent ("a fatia de cada dono no custo")."""
    amount_asked: str = ""
    """The words that asked the sum when they ask an amount, never a count ("how much",
    "quanto"): a query that sums nothing (counting the rows instead) answers another
    question."""


@dataclass
class Where:
    """The conditions the rows must meet."""

    filters: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    """States said to hold ("canceladas"): `column IN (...)`."""
    excluded: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    """States said not to hold ("não concluídas"): `column NOT IN (...)`."""
    unset: list[tuple[str, str]] = field(default_factory=list)
    """Nullable timestamps said not to have happened ("nunca revisadas", "not approved"):
    `column IS NULL`."""
    comparisons: list[tuple[str, str, str, str]] = field(default_factory=list)
    """Date columns compared on each row: (table, column, ">" or "<", other column), as in
    "entregues depois da previsão"."""
    conditions: list[tuple[str, str]] = field(default_factory=list)
    """(table, condition) in the table's bare columns, `{today}` for today: a glossary
    definition's own wording of what the question says ("past its deadline and still
    open"), or a share's condition counted ("how many no-shows")."""
    having: list[Others] = field(default_factory=list)
    """Rows of other tables the rows asked must have ("donos que compraram em 2026")."""
    without: list[Others] = field(default_factory=list)
    """Rows of other tables the rows asked must have none of ("projetos sem tarefa",
    "owners with no tasks in 2026", "donos sem tarefa atrasada")."""
    days_late: int | None = None
    """ "vencidos há mais de 60 dias": the rows' deadline lies more than this many days back."""


@dataclass
class Ordering:
    """How many rows, and in which order."""

    top: int | None = None
    ascending: bool = False
    sorted: str | None = None
    """How a whole list was asked to be sorted: "amount" ("largest first", "do maior pro
    menor"), or "date" ("newest first", "mais antigos primeiro"), in `ascending` order."""
    recency: str | None = None
    """ "DESC" for the newest rows ("a tarefa mais recente"), "ASC" for the oldest."""


@dataclass
class Time:
    """When: the periods said, and the column that places the rows in them."""

    period: Period | None = None
    periods: list[Period] = field(default_factory=list)
    date_column: str | None = None
    """The column that places the rows in time, when a glossary definition says so."""


@dataclass
class Asked:
    """What kind of answer the question wants."""

    asks_data: bool = False
    listing: bool = False
    current: bool = False
    wants_status: bool = False
    is_concept: bool = False
    history: bool = False
    """The question asks for every event ("histórico", "history"), not the latest."""


@dataclass
class Unread:
    """What the question says that the catalog does not answer (and, for the unknown words,
    what the readings left or took)."""

    unknown: list[str] = field(default_factory=list)
    """Content words of the question the catalog does not know."""
    elsewhere: list[tuple[str, str, str]] = field(default_factory=list)
    """(word, table, column): a grouping word only another table's column answers, whose
    rows refer to the rows asked ("tarefas por motivo", the reason being a review's)."""
    unmapped: list[str] = field(default_factory=list)
    """Unknown words that leave the question unanswered ("por cor"): say so, answer nothing."""
    states: list[str] = field(default_factory=list)
    """A state's one word said of rows that have no such state ("projetos travados"): left
    for the unknown words (the parse's own bookkeeping)."""
    taken: set[int] = field(default_factory=set)
    """Positions of the question's tokens a reading took beyond the catalog's phrases ("sem
    tarefas", "por compras", a code "SP"): never unknown (the parse's own bookkeeping)."""


@dataclass
class Intent:
    """What the question asks, in catalog terms, in parts: which rows (`subject`), what is
    computed of them (`measures`, by `groups`), under which conditions (`where`), in which
    order (`ordering`), when (`time`), what kind of answer (`asked`), and what was not
    understood (`unread`). The readings fill it in; building SQL only reads it."""

    question: str
    subject: Subject = field(default_factory=Subject)
    measures: Measures = field(default_factory=Measures)
    groups: list[Group] = field(default_factory=list)
    where: Where = field(default_factory=Where)
    ordering: Ordering = field(default_factory=Ordering)
    time: Time = field(default_factory=Time)
    asked: Asked = field(default_factory=Asked)
    unread: Unread = field(default_factory=Unread)
    terms: list[GlossaryTerm] = field(default_factory=list)
    """The glossary terms the question names (for what a concept means)."""

    def but(self, **changes: object) -> Intent:
        """A copy with `changes` (fields by their own names: `entity=None`, `aggregate=
        "sum"`, or the intent's own: `groups=[]`), every part copied, so setting a field of the
        copy leaves this one as it is (the lists and mappings inside stay shared, as
        `dataclasses.replace` shares them).

        >>> first = Intent("q", measures=Measures(aggregate="count"))
        >>> second = first.but(aggregate="sum", entity=None, groups=[Group("", "", "month")])
        >>> first.measures.aggregate, second.measures.aggregate, first.groups
        ('count', 'sum', [])
        """
        parts: dict[str, dict[str, object]] = {name: {} for name in PARTS}
        own: dict[str, object] = {}
        for name, value in changes.items():
            if name in _PART_OF:
                parts[_PART_OF[name]][name] = value
            else:
                own[name] = value
        copies = {name: replace(getattr(self, name), **fields) for name, fields in parts.items()}
        copies.update(own)
        return replace(self, **copies)

    @property
    def understood(self) -> bool:
        subject, where = self.subject, self.where
        said = subject.entity or self.measures.metric or subject.tables or subject.columns
        conditioned = where.filters or where.comparisons or where.conditions
        return bool(said or conditioned or self.measures.apart)

    @property
    def row(self) -> tuple[str, str, int]:
        """The one row named (table, key column, number): read only where one is."""
        assert self.subject.entity is not None, "the question names no row"
        return self.subject.entity

    @property
    def latest_state_asked(self) -> bool:
        """ "pedido 7: qual o último status?": of one row, the latest state or event is asked
        ("último status", "latest event"), not the latest of other rows ("último pedido")."""
        said = fold(self.question)
        asked = self.subject.entity and self.asked.wants_status
        return bool(asked and LATEST_STATE.search(said))

    @property
    def placed_in_time(self) -> bool:
        """A period, the rows' others' period ("que compraram em 2026") or an age ("vencidos
        há mais de 60 dias") places the rows asked in time."""
        others = any(o.period for o in [*self.where.having, *self.where.without])
        return bool(self.time.periods) or others or self.where.days_late is not None

    @property
    def lists_metric_rows(self) -> bool:
        """ "quais tarefas estão atrasadas": the rows a counting metric counts, listed; or
        the rows a metric sums, when its phrase names them ("quais contas estão vencidas")."""
        measures = self.measures
        metric = measures.metric.metric if measures.metric else None
        counts_rows = metric is not None and metric.shape.counts_rows
        # "quais títulos estão vencidos": a summing metric's rows, named, are listed too
        sums = metric is not None and metric.shape.aggregate == "sum"
        rows = counts_rows or bool(
            sums and metric is not None and metric.filter and measures.metric_rows
        )
        ranked = measures.aggregate or self.groups or self.ordering.top
        return bool(rows and self.asked.listing and not ranked)


PARTS = ("subject", "measures", "where", "ordering", "time", "asked", "unread")
"""The parts of an `Intent`, each a dataclass of its own fields."""
_PART_OF = {
    name: part
    for part, kind in zip(
        PARTS, (Subject, Measures, Where, Ordering, Time, Asked, Unread), strict=True
    )
    for name in (f.name for f in fields(kind))
}
