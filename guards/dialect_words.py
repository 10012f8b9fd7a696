"""The words of T-SQL and MySQL that PostgreSQL lacks, and what reads as text beside `+`.

SQL vocabulary, not business words: the function and type names `dialects.is_postgres` looks
for in a parse tree, and `is_text_literal`, which tells a concatenation (`'No. ' + num`) from
PostgreSQL's own date and interval arithmetic on strings (`now() + '1 day'`).
"""

from __future__ import annotations

import re
from datetime import datetime

_FOREIGN_FUNCTION_NAMES = """
    getdate getutcdate sysdatetime sysutcdatetime sysdatetimeoffset isnull iif choose
    dateadd datediff datediff_big datepart datename datefromparts datetimefromparts eomonth
    len datalength charindex patindex replicate space stuff str isnumeric isdate
    try_convert try_parse newid square convert top count_big
    ifnull if date_format str_to_date curdate curtime sysdate date_add date_sub adddate
    subdate timestampdiff timestampadd dayofweek dayofmonth dayofyear dayname monthname
    weekday weekofyear yearweek last_day unix_timestamp from_unixtime group_concat instr
    locate lcase ucase mid substring_index truncate rand
    year quarter month week day hour minute second date
"""
FOREIGN_FUNCTIONS = frozenset(_FOREIGN_FUNCTION_NAMES.split())
"""Functions T-SQL and MySQL have and PostgreSQL lacks. Two PostgreSQL does have, under
another meaning, and the guard does not allow: `date(x)`, a cast (`CAST(x AS DATE)`, its
repair, means the same), and `convert(bytes, from, to)` on encodings, never T-SQL's
`CONVERT(type, value)`."""
_FOREIGN_TYPE_NAMES = """
    datetime datetime2 smalldatetime datetimeoffset nvarchar nchar ntext tinyint mediumint
    uniqueidentifier signed unsigned longtext mediumtext tinytext double
"""
FOREIGN_TYPES = frozenset(_FOREIGN_TYPE_NAMES.split())
"""Type names of T-SQL and MySQL PostgreSQL lacks (as a cast's type)."""
TEXT_TYPES = frozenset({"text", "varchar", "bpchar", "char", "nvarchar", "nchar"})
"""A cast to one of these makes a text operand, so `+` beside it is a concatenation."""

# Possessive quantifiers throughout (no backtracking): a literal is matched in linear time,
# however long and however it fails.
_NUMBER = re.compile(r"[-+]?+(?:\d++(?:\.\d*+)?+|\.\d++)(?:[eE][-+]?+\d++)?+")
_INTERVAL_PART = r"(?:[-+]?+\d++(?:\.\d++)?+\s*+[a-z]++|[-+]?+\d++(?::\d++){1,2}+(?:\.\d++)?+)"
_INTERVAL = re.compile(
    rf"@?+\s*+{_INTERVAL_PART}(?:(?:\s++,?+|,)\s*+{_INTERVAL_PART})*+(?:\s++ago)?+"
    r"|[-+]?+P[0-9YMWDTHS.]*+",  # ISO 8601 (P1D, PT2H)
    re.IGNORECASE,
)
"""PostgreSQL's interval input: `30 days`, `1 year 2 mons`, `2 days 03:00:00`, `1:30`, `P1D`."""
_SPECIAL_VALUES = frozenset(
    {"today", "tomorrow", "yesterday", "now", "epoch", "infinity", "-infinity", "allballs"}
)
"""PostgreSQL's special date and time input strings."""


def is_text_literal(value: str) -> bool:
    """Whether a string literal beside `+` is text (a concatenation), not a number, a date,
    a time or an interval, which PostgreSQL reads from a string (`now() + '1 day'`).

    >>> [is_text_literal(v) for v in (" - ", "Order ", "42", "2026-06-30", "30 days", "1:30")]
    [True, True, False, False, False, False]
    >>> [is_text_literal(v) for v in ("2 days 03:00:00", "-1 day", "P1DT2H", "1 unit", "")]
    [False, False, False, False, True]
    """
    value = value.strip()
    if value.lower() in _SPECIAL_VALUES:
        return False
    if _NUMBER.fullmatch(value) or _INTERVAL.fullmatch(value):
        return False
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return True
    return False
