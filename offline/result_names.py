"""The names a query gives the columns it computes, in the question's language.

The SQL builders name computed columns with the first read language's words (`result_names`,
`grain_result_names`, `group_share_result_name`, `deadline_result_names`: "quantidade",
"media_valor", "mes"); an answer labels its figures with those names ("Quantidade: 21."). For
a question in another language each name is said again with that language's words for the
same key ("count", "avg_valor", "month"). Only computed columns are renamed: a column read
as it is keeps its catalog name.

>>> named_in("SELECT count(*) AS quantidade FROM t ORDER BY quantidade DESC", "en")
'SELECT count(*) AS count FROM t ORDER BY count DESC'
>>> named_in("SELECT avg(t.valor) AS media_valor, t.quantidade AS quantidade FROM t", "en")
'SELECT avg(t.valor) AS avg_valor, t.quantidade AS quantidade FROM t'
"""

from __future__ import annotations

import re
from functools import cache

import sqlglot
from sqlglot import expressions as exp
from sqlglot.errors import SqlglotError

from orquestra.offline.lang import LANGUAGES, mapping

NAMED_BY = ("result_names", "grain_result_names", "deadline_result_names")
"""The concepts that map what a computed column is (a key) to how a result names it."""
SHARE = "group_share_result_name"
"""The concept of the name of each group's share of the whole (one word per language)."""


@cache
def _names(lang: str) -> tuple[tuple[str, str], ...]:
    """(name as written, name in `lang`), longest first, for every key `lang` says."""
    language = LANGUAGES.get(lang)
    if language is None:
        return ()
    pairs = {
        written: language.mapping(concept)[key]
        for concept in NAMED_BY
        for key, written in mapping(concept).items()
        if key in language.mapping(concept)
    }
    shares = [w for code in LANGUAGES for w in LANGUAGES[code].words(SHARE)]
    if shares and language.words(SHARE):
        pairs[shares[0]] = language.words(SHARE)[0]
    return tuple(sorted(((w, n) for w, n in pairs.items() if w != n), key=lambda p: -len(p[0])))


def said_in(name: str, lang: str) -> str:
    """A computed column's `name` with each of its parts said in `lang`.

    >>> said_in("quantidade_no_prazo", "en"), said_in("total_frete", "en")
    ('count_on_time', 'total_frete')
    """
    for written, said in _names(lang):
        name = re.sub(rf"(?<![^_]){re.escape(written)}(?![^_])", said, name)
    return name


def _computed(sql: str) -> set[str]:
    """The aliases of the columns `sql` computes (not a column read as it is)."""
    try:
        tree = sqlglot.parse_one(sql, read="postgres")
    except SqlglotError:
        return set()
    return {
        alias.alias
        for alias in tree.find_all(exp.Alias)
        if alias.alias and not isinstance(alias.this, exp.Column)
    }


def named_in(sql: str, lang: str) -> str:
    """`sql` with its computed columns named in `lang` (the same SQL when they already are)."""
    if not sql or not _names(lang):
        return sql
    for alias in sorted(_computed(sql), key=len, reverse=True):
        said = said_in(alias, lang)
        if said != alias:
            sql = re.sub(rf"(?<![\w.'\"]){re.escape(alias)}(?![\w'\"])", said, sql)
    return sql
