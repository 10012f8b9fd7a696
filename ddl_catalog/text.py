"""Text normalisation shared by catalog matching (lower case, no accents, word tokens), and
the characters no stored text may carry."""

from __future__ import annotations

import re
import unicodedata

WORD = re.compile(r"[a-z0-9_]+")
UNSAFE_CHARACTERS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")
"""C0 controls but tab, newline and carriage return; DEL; lone surrogates; non-characters.
PostgreSQL cannot store NUL in text or `\u0000` in jsonb, UTF-8 cannot carry a lone
surrogate, and no person types the rest."""


def without_unsafe(text: str) -> str:
    """`text` without `UNSAFE_CHARACTERS` (for what models write, which nobody validated)."""
    return UNSAFE_CHARACTERS.sub("", text)


def fold(text: str) -> str:
    """Lower case without accents: "Títulos Vencidos" → "titulos vencidos"."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def words(text: str) -> list[str]:
    return WORD.findall(fold(text))


def stem(token: str) -> str:
    """Plural-insensitive form: "vendas" → "venda", "promoções" → "promocao", "statuses"
    and "status" alike."""
    if len(token) > 6 and token.endswith("tuses"):  # "statuses" ("causes" is "cause" + s)
        token = token[:-2]
    if len(token) > 4 and token.endswith("oes"):
        return token[:-3] + "ao"
    if len(token) > 3 and token.endswith("s"):
        return token[:-1]
    return token


def phrase_key(phrase: str) -> tuple[str, ...]:
    """How phrases are compared: folded, stemmed words ("Títulos_Vencidos" → titulo, vencido)."""
    return tuple(stem(w) for w in words(phrase.replace("_", " ")))


def abbreviated_by(short: str, long_words: list[str]) -> list[str]:
    """The words of `long_words` that `short` abbreviates: its letters in order, the first
    one first ("qtd" quantidade, "vlr" valor, "dept" department), in their order."""
    pattern = re.compile(".*?".join(map(re.escape, short)))
    return [w for w in long_words if w[:1] == short[:1] and pattern.match(w)]


CODE_PREFIXES = ("num_", "cod_", "id_")
CODE_SUFFIXES = ("_id", "_code", "_no")


def is_code_name(name: str) -> bool:
    """A name that says "identifier" by the usual conventions (`cod_x`, `num_x`, `id`, `id_x`,
    `x_id`): a number to show as it is, never to add up or chart. (`idade`, `idle_minutes`
    are not: a prefix counts only with its underscore.)"""
    return name == "id" or name.startswith(CODE_PREFIXES) or name.endswith(CODE_SUFFIXES)


def literal(text: str) -> str:
    """A text as a PostgreSQL string literal (standard_conforming_strings, the default).

    >>> print(literal("D'Ávila"))
    'D''Ávila'
    """
    return "'" + text.replace("'", "''") + "'"


def quoted(name: str) -> str:
    """An identifier quoted as PostgreSQL reads it.

    >>> print(quoted('Order Details'), quoted('a"b'))
    "Order Details" "a""b"
    """
    return '"' + name.replace('"', '""') + '"'
