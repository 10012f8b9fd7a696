"""Time expressions in Portuguese and English, resolved against "today".

`find_period("vendas em maio", today)` → `Period(2026-05-01, 2026-06-01, "em maio")`.
Supported: named months (with or without a year), years, this/last month, year, quarter,
semester, week, today, yesterday, tomorrow, "last N days/weeks/months", quarters and semesters by
ordinal ("primeiro trimestre de 2026", "2º semestre", "Q3"), the one before last ("mês
retrasado"), month ranges ("de março a maio", "July through December"), "year to date"
and "since" a day or a month ("desde o dia 16/06", "de janeiro até hoje").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

from orquestra.ddl_catalog.text import fold

MONTHS = {
    "janeiro": 1,
    "fevereiro": 2,
    "marco": 3,
    "abril": 4,
    "maio": 5,
    "junho": 6,
    "julho": 7,
    "agosto": 8,
    "setembro": 9,
    "outubro": 10,
    "novembro": 11,
    "dezembro": 12,
    "january": 1,
    "february": 2,
    "march": 3,
    "april": 4,
    "may": 5,
    "june": 6,
    "july": 7,
    "august": 8,
    "september": 9,
    "october": 10,
    "november": 11,
    "december": 12,
    "jan": 1,
    "fev": 2,
    "feb": 2,
    "mar": 3,
    "abr": 4,
    "apr": 4,
    "jun": 6,
    "jul": 7,
    "ago": 8,
    "aug": 8,
    "set": 9,
    "sep": 9,
    "out": 10,
    "oct": 10,
    "nov": 11,
    "dez": 12,
    "dec": 12,
}
UNITS = {
    "dia": 1,
    "dias": 1,
    "day": 1,
    "days": 1,
    "semana": 7,
    "semanas": 7,
    "week": 7,
    "weeks": 7,
    "mes": 30,
    "meses": 30,
    "month": 30,
    "months": 30,
    "ano": 365,
    "anos": 365,
    "year": 365,
    "years": 365,
}


ORDINALS = {
    **dict.fromkeys(("primeiro", "primeira", "1o", "1a", "1", "first", "1st"), 1),
    **dict.fromkeys(("segundo", "segunda", "2o", "2a", "2", "second", "2nd"), 2),
    **dict.fromkeys(("terceiro", "terceira", "3o", "3a", "3", "third", "3rd"), 3),
    **dict.fromkeys(("quarto", "quarta", "4o", "4a", "4", "fourth", "4th"), 4),
}
ENGLISH_MONTHS = {
    *("january", "february", "march", "april", "may", "june", "july", "august", "september"),
    *("october", "november", "december", "jan", "feb", "apr", "jun", "jul", "aug", "sep"),
    *("oct", "nov", "dec"),
}
"""English month names and abbreviations ("mar" is also a Portuguese word: left out)."""
SPANS = {"trimestre": 3, "tri": 3, "quarter": 3, "semestre": 6, "semester": 6, "half": 6}
SPANS |= {"trim": 3, "sem": 6}  # "1º trim", "2º sem/25"
"""Named parts of a year, in months."""


@dataclass(frozen=True)
class Period:
    """A half-open date range [start, end) and the words that named it."""

    start: date
    end: date
    phrase: str


def month_start(day: date, shift: int = 0) -> date:
    index = day.year * 12 + day.month - 1 + shift
    return date(index // 12, index % 12 + 1, 1)


def _relative(text: str, today: date) -> Period | None:
    this_month = month_start(today)
    quarter = month_start(date(today.year, 3 * ((today.month - 1) // 3) + 1, 1))
    semester = date(today.year, 1 if today.month <= 6 else 7, 1)
    monday = today - timedelta(days=today.weekday())
    tomorrow = today + timedelta(days=1)
    patterns = [
        # Longer phrases first: "ano retrasado" before "ano", "year to date" before "year".
        (
            r"\b(mes retrasado|month before last|two months ago|ha dois meses)\b",
            month_start(today, -2),
            month_start(today, -1),
        ),
        (
            r"\b(ano retrasado|year before last|two years ago|ha dois anos)\b",
            date(today.year - 2, 1, 1),
            date(today.year - 1, 1, 1),
        ),
        (
            r"\b(year to date|ytd|acumulado do ano|acumulado no ano|no acumulado do ano"
            r"|desde o inicio do ano"
            r"|ate agora (este|neste|esse) ano|so far this year|this year so far"
            r"|ano ate (hoje|agora|a data))\b",
            date(today.year, 1, 1),
            tomorrow,
        ),
        (
            r"\b(month to date|mtd|acumulado do mes|acumulado no mes|desde o inicio do mes"
            r"|so far this month"
            r"|mes ate (hoje|agora|a data))\b",
            this_month,
            tomorrow,
        ),
        (
            r"\b(semana passada|ultima semana|last week|previous week|semana anterior)\b",
            monday - timedelta(days=7),
            monday,
        ),
        (
            r"\b(semestre passado|ultimo semestre|last half|previous half|semestre anterior"
            r"|last semester|previous semester)\b",
            month_start(semester, -6),
            semester,
        ),
        (
            r"\b(este|esse|neste|nesse|deste|desse|this) (semestre|semester|half)\b",
            semester,
            month_start(semester, 6),
        ),
        (
            r"\b(este|esse|neste|nesse|deste|desse|this) (mes|month)\b",
            this_month,
            month_start(today, 1),
        ),
        (
            r"\b(mes passado|ultimo mes|last month|previous month|mes anterior)\b",
            month_start(today, -1),
            this_month,
        ),
        (
            r"\b(este|esse|neste|nesse|deste|desse|this) (ano|year)\b",
            date(today.year, 1, 1),
            date(today.year + 1, 1, 1),
        ),
        (
            r"\b(ano passado|ultimo ano|last year|previous year|ano anterior)\b",
            date(today.year - 1, 1, 1),
            date(today.year, 1, 1),
        ),
        (
            r"\b(este|esse|neste|nesse|deste|desse|this) (trimestre|quarter)\b",
            quarter,
            month_start(quarter, 3),
        ),
        (
            r"\b(ultimo trimestre|trimestre passado|last quarter|previous quarter)\b",
            month_start(quarter, -3),
            quarter,
        ),
        (
            r"\b(past week|past seven days|semana que passou|ultimos sete dias)\b",
            today - timedelta(days=7),
            today + timedelta(days=1),
        ),
        (r"\b(hoje|today)\b", today, today + timedelta(days=1)),
        (r"\b(ontem|yesterday)\b", today - timedelta(days=1), today),
        (r"\b(amanha|tomorrow)\b", today + timedelta(days=1), today + timedelta(days=2)),
        (
            r"\b(?:(?:esta|essa|desta|dessa|nesta|nessa|this) (?:semana|week)"
            r" (?:ate agora|ate hoje|so far)"
            r"|so far this week|week to date|wtd)\b",
            monday,
            tomorrow,
        ),
        (
            # the whole week, as "este mês" is the whole month: what falls due in it counts
            r"\b(esta|essa|nesta|nessa|desta|dessa|this) (semana|week)\b",
            monday,
            monday + timedelta(days=7),
        ),
        (
            r"\b(semana que vem|proxima semana|next week|the coming week|the week ahead)\b",
            monday + timedelta(days=7),
            monday + timedelta(days=14),
        ),
        (
            r"\b(mes que vem|proximo mes|next month|the coming month)\b",
            month_start(today, 1),
            month_start(today, 2),
        ),
        (
            r"\b(ano que vem|proximo ano|next year|the coming year)\b",
            date(today.year + 1, 1, 1),
            date(today.year + 2, 1, 1),
        ),
    ]
    for pattern, start, end in patterns:
        found = re.search(pattern, text)
        if found:
            return Period(start, end, found.group(0))
    counts = "|".join(NUMBER_WORDS)
    found = re.search(  # "nos quatro primeiros meses do ano", "the first 4 months of 2025"
        rf"\b(?:(\d+|{counts}) (?:primeiros|first)|(?:primeiros|first) (\d+|{counts}))"
        rf" (?:meses|months)(?: (?:do ano|of the year|de|of|in)(?: (\d{{4}}))?)?",
        text,
    )
    if found:
        count = found.group(1) or found.group(2)
        months = int(count) if count.isdigit() else NUMBER_WORDS[count]
        start = date(int(found.group(3)) if found.group(3) else today.year, 1, 1)
        return Period(start, month_start(start, months), found.group(0))
    found = re.search(rf"\b(ultimos|ultimas|last|past|nos ultimos) (\d+|{counts}) (\w+)", text)
    # "os 3 últimos meses", "the 2 last weeks": the count first
    found = found or re.search(rf"\b()(\d+|{counts}) (?:ultimos|ultimas|last|past) (\w+)", text)
    if found and found.group(3) in UNITS:
        count = found.group(2)
        days = (int(count) if count.isdigit() else NUMBER_WORDS[count]) * UNITS[found.group(3)]
        return Period(today - timedelta(days=days), today + timedelta(days=1), found.group(0))
    # "nos próximos 7 dias", "in the next two weeks": from today on, as "últimos" ends today
    found = re.search(rf"\b(proximos|proximas|next|coming) (\d+|{counts}) (\w+)", text)
    if found and found.group(3) in UNITS:
        count = found.group(2)
        days = (int(count) if count.isdigit() else NUMBER_WORDS[count]) * UNITS[found.group(3)]
        return Period(today, today + timedelta(days=days + 1), found.group(0))
    return None


NUMBER_WORDS = {
    **{"dois": 2, "duas": 2, "tres": 3, "quatro": 4, "cinco": 5, "seis": 6, "sete": 7},
    **{"oito": 8, "nove": 9, "dez": 10, "doze": 12, "quinze": 15, "trinta": 30},
    **{"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8},
    **{"nine": 9, "ten": 10, "twelve": 12, "fifteen": 15, "thirty": 30},
}
"""Counts people spell out ("as últimas duas semanas", "the last three months")."""
LAST_YEAR = r"(?:do ano passado|de ano passado|do ano anterior|of last year|last year)"


SHORT_PART = re.compile(
    r"\b(?:([1-4])\s?(?:t|tri|q)|q([1-4])|([12])\s?(?:s|sem)|h([12]))"
    r"(?:\s*[/-]?\s*(20\d{2}|\d{2}))?\b"
)
"""How reports write parts of a year: "1T26", "1Q 2026", "Q1/26", "2S25", "H1 2026" (a
two-digit year is this century's; a bare "1T" has no year and is not read)."""


def _short_part(text: str, today: date) -> Period | None:
    """ "receita no 1T26", "Q3-2025", "H1 2026": a quarter or half written short."""
    for found in SHORT_PART.finditer(text):
        quarter, half = found.group(1) or found.group(2), found.group(3) or found.group(4)
        year = found.group(5)
        if year is None and (found.group(1) or found.group(3)):
            continue  # "1 t", "2 s": not a period without its year
        months, ordinal = (3, int(quarter)) if quarter else (6, int(half))
        number = int(year) if year else today.year
        number += 2000 if number < 100 else 0
        start = date(number, (ordinal - 1) * months + 1, 1)
        if year is None and start > today:
            start = date(number - 1, start.month, 1)
        return Period(start, month_start(start, months), found.group(0))
    return None


def _part_of_year(text: str, today: date) -> Period | None:
    """ "primeiro trimestre de 2026", "2º semestre", "Q3 2025", "second half of 2025": a
    quarter or semester by its ordinal; without a year, the latest one that has begun."""
    ordinals = "|".join(sorted(ORDINALS, key=len, reverse=True))
    spans = "|".join(SPANS)
    found = re.search(
        rf"\b(?:({ordinals})\s+({spans})|(q)([1-4]))\b"
        rf"(?:\s+(?:de|do ano de|of)?\s*(\d{{4}})|\s+({LAST_YEAR}))?",
        text,
    )
    if found is None:
        return None
    months = SPANS[found.group(2)] if found.group(2) else 3
    ordinal = ORDINALS[found.group(1)] if found.group(1) else int(found.group(4))
    if ordinal * months > 12:
        return None  # "quarto semestre": no such thing
    year = int(found.group(5)) if found.group(5) else today.year
    year -= 1 if found.group(6) else 0  # "o segundo semestre do ano passado"
    start = date(year, (ordinal - 1) * months + 1, 1)
    if not (found.group(5) or found.group(6)) and start > today:
        start = date(year - 1, start.month, 1)
    return Period(start, month_start(start, months), found.group(0))


def _month_range(text: str, today: date) -> Period | None:
    """ "de março a maio (de 2025)", "between March and May", "July through December
    2025", "Jul-Dec 2025" (the parser's words: "jul dec 2025"): whole months, both
    included; without a year, the latest such range that has begun. (A bare "maio e
    junho" needs its "de"/"from": "e" alone joins other things too.)"""
    names = "|".join(sorted(MONTHS, key=len, reverse=True))
    first_year = r"(?:\s+(?:de|of)?\s*(?P<first_year>\d{4}))?"
    last_year = r"\b(?:\s+(?:de|of)?\s*(?P<year>\d{4}))?"
    found = re.search(
        rf"\b(?:de|from|entre|between)\s+(?P<first>{names}){first_year}"
        rf"\s+(?:a|ate|to|until|through|e|and)\s+(?P<last>{names}){last_year}",
        text,
    ) or re.search(
        rf"\b(?P<first>{names}){first_year}(?:\s+(?:ate|to|until|through|thru)\s+|\s*-\s*|\s+)"
        rf"(?P<last>{names}){last_year}",
        text,
    )
    if found is None:
        return None
    first, last = MONTHS[found.group("first")], MONTHS[found.group("last")]
    wraps = 1 if first > last else 0  # "de novembro a fevereiro" crosses the new year
    if found.group("first_year"):  # "de julho de 2025 a junho de 2026"
        start = date(int(found.group("first_year")), first, 1)
        year = int(found.group("year") or start.year + wraps)
        if date(year, last, 1) < start:
            return None
        return Period(start, month_start(date(year, last, 1), 1), found.group(0))
    year = int(found.group("year")) if found.group("year") else today.year  # the last's year
    if not found.group("year") and date(year - wraps, first, 1) > today:
        year -= 1
    start = date(year - wraps, first, 1)
    return Period(start, month_start(date(year, last, 1), 1), found.group(0))


SINCE = re.compile(
    r"\b(?:desde|since|de|from)\s+(?:o dia\s+|the\s+)?(?:(\d{1,2})[/\s](\d{1,2})(?:[/\s](\d{2,4}))?"
    r"|(?P<month>[a-z]+))(?:\s+(?:ate|to|until|through)\s+(?:hoje|today|agora|now)|\s+pra ca"
    r"|\s+para ca)?"
)


def _since(text: str, today: date) -> Period | None:
    """ "desde o dia 16/06", "de janeiro até hoje", "since March": from that day (or the
    month's first day) up to today, today included ("de abril pra cá" too). "de maio" alone
    stays the month."""
    for found in SINCE.finditer(text):
        phrase = found.group(0)
        until_now = re.search(r"(hoje|today|agora|now|pra ca|para ca)$", phrase)
        if not (until_now or phrase.startswith(("desde", "since"))):
            continue
        if found.group("month"):
            month = MONTHS.get(found.group("month"))
            if month is None:
                continue
            start = date(today.year if month <= today.month else today.year - 1, month, 1)
        else:
            day, month = int(found.group(1)), int(found.group(2))
            year = int(found.group(3)) if found.group(3) else today.year
            year += 2000 if year < 100 else 0
            if not 1 <= month <= 12 or not 1 <= day <= 31:
                continue
            start = date(year, month, day)
            if not found.group(3) and start > today:
                start = start.replace(year=year - 1)
        return Period(start, today + timedelta(days=1), phrase)
    return None


DAY = r"(?:(\d{4})[-\s](\d{1,2})[-\s](\d{1,2})|(\d{1,2})[/\s](\d{1,2})(?:[/\s](\d{2,4}))?)\b"
DAY_RANGE = re.compile(
    rf"\b(?:between|entre|from|de|do dia|desde)\s+{DAY}\s+(?:and|e|to|a|ate|until|through)"
    rf"\s+(?:o dia\s+)?{DAY}"
)
"""Two days, both included: "between 2026-04-01 and 2026-04-30", "de 01/04 a 15/04/2026"."""


def _day(parts: tuple[str | None, ...], year: int) -> date | None:
    """A day written as ISO (`parts[:3]`) or as day/month[/year] (`parts[3:]`)."""
    try:
        if parts[0]:
            return date(int(parts[0]), int(parts[1] or 0), int(parts[2] or 0))
        said = int(parts[5]) if parts[5] else year
        return date(said + (2000 if said < 100 else 0), int(parts[4] or 0), int(parts[3] or 0))
    except ValueError:
        return None


def _day_range(text: str, today: date) -> Period | None:
    found = DAY_RANGE.search(text)
    if found is None:
        return None
    groups = found.groups()
    last = _day(groups[6:], today.year)
    first = _day(groups[:6], last.year if last else today.year)
    if first is None or last is None or last < first:
        return None
    return Period(first, last + timedelta(days=1), found.group(0))


SHORT_MONTHS = {"mai": "maio"}
"""Short month names only read before a year ("mai/26"): alone they are other words."""


MONTH_NAMES = "|".join(sorted([*MONTHS, *SHORT_MONTHS, "março"], key=len, reverse=True))
MONTH_YEAR = re.compile(rf"\b({MONTH_NAMES})\s*[/-]\s*(\d{{4}}|\d{{2}})\b", re.IGNORECASE)
PART_YEAR = re.compile(
    r"\b(trimestre|semestre|trim|tri|sem)\s*[/-]\s*(\d{4}|\d{2})\b", re.IGNORECASE
)
"""A part of a year written with its year after a slash ("1º tri/26", "2º sem/2025")."""
SINCE_DAY = re.compile(
    rf"\b(?:since|desde)\s+(?:(?:o dia\s+)?(\d{{1,2}})\s+de\s+({MONTH_NAMES})"
    rf"|({MONTH_NAMES})\s+(\d{{1,2}}))\b"
)


def month_years_spelled(question: str) -> str:
    """`question` with a month written with its year after a slash or dash ("mai/26",
    "março/2026", "jun-25") spelled as "<month> de <year>", which the period readers read
    (and which words() would otherwise split into a month and a bare number)."""

    def spelled(found: re.Match[str]) -> str:
        year, month = int(found.group(2)), found.group(1)
        return f"{SHORT_MONTHS.get(month.lower(), month)} de {year + (2000 if year < 100 else 0)}"

    def part(found: re.Match[str]) -> str:
        year = int(found.group(2))
        return f"{found.group(1)} de {year + (2000 if year < 100 else 0)}"

    return PART_YEAR.sub(part, MONTH_YEAR.sub(spelled, question))


def _since_month_day(text: str, today: date) -> Period | None:
    """ "since April 15", "desde 15 de abril": from that day up to today."""
    found = SINCE_DAY.search(text)
    if found is None or (found.group(2) or found.group(3)) not in MONTHS:
        return None
    day = int(found.group(1) or found.group(4))
    month = MONTHS[found.group(2) or found.group(3)]
    try:
        start = date(today.year, month, day)
    except ValueError:
        return None
    if start > today:
        start = start.replace(year=today.year - 1)
    return Period(start, today + timedelta(days=1), found.group(0))


def find_periods(question: str, today: date, most: int = 3) -> list[Period]:
    """Every period the question names, in order of discovery ("este mês com o mês passado")."""
    text = fold(question)
    found: list[Period] = []
    while len(found) < most:
        period = _same_span(text, found[-1]) if found else None
        period = period or find_period(text, today)
        if period is None:
            break
        text = text.replace(period.phrase, " ", 1)
        if any((p.start, p.end) == (period.start, period.end) for p in found):
            continue  # "this quarter (since Apr 1)": the same days said again
        found.append(period)
    # "pra reunião de amanhã: quantos … no 1º tri": tomorrow beside another period is when
    # the asker needs it, not a period asked
    if len(found) > 1:
        found = [p for p in found if p.phrase not in ("amanha", "tomorrow")] or found
    return _within_a_year(found)


NAMED_PART = re.compile(
    rf"\b({'|'.join(MONTHS)}|trimestre|tri|semestre|quarter|half|q[1-4]|h[12])\b"
    r"(?!.*\b(passad[oa]|ultim[oa]s?|last|past|anterior|previous|retrasad[oa]|next|proxim[oa])\b)"
)
"""A part of a year named without saying which year ("maio", "Q1"); not one said relative
to today ("mês passado", "últimos 3 meses"), which stays where today puts it."""


def _within_a_year(found: list[Period]) -> list[Period]:
    """ "receita de junho x maio deste ano", "de 2025, por mês, de março a maio": one whole
    year named beside parts of a year is where the parts lie, not a period compared with
    them. Parts written without a year move into it; a part that cannot (it has its own
    year elsewhere, or spans more than the year) leaves the periods as they were."""
    years = [p for p in found if p.start.month == 1 and p.start.day == 1 and p.end == _next_year(p)]
    if len(found) < 2 or len(years) != 1:
        return found
    frame, parts = years[0], [p for p in found if p is not years[0]]
    inside = []
    for part in parts:
        if not re.search(r"\d{2}", part.phrase) and NAMED_PART.search(part.phrase):
            shift = frame.start.year - part.start.year
            part = Period(_in_year(part.start, shift), _in_year(part.end, shift), part.phrase)
        if not (frame.start <= part.start and part.end <= frame.end):
            return found
        inside.append(part)
    return inside


def _next_year(period: Period) -> date:
    return date(period.start.year + 1, 1, 1)


def _in_year(day: date, shift: int) -> date:
    return date(day.year + shift, day.month, day.day)


SAME_SPAN = re.compile(
    r"\b(?:o |a |the )?(?:mesm[oa]|same)\s+\w+\s+(?:de|do ano de|of|in)?\s*(20\d{2})\b"
)
NUMERIC_MONTH = re.compile(r"\b(?:em|in|de|of|for)\s+(0?[1-9]|1[0-2])[/\s](20\d{2})\b")
"""(The parser reads its words: "05/2026" comes as "05 2026", so a preposition leads it.)"""


def _same_span(text: str, before: Period) -> Period | None:
    """ "o 1º tri de 2026 comparado com o mesmo tri de 2025": the period named before, in
    the other year."""
    found = SAME_SPAN.search(text)
    if found is None:
        return None
    shift = int(found.group(1)) - before.start.year
    start = before.start.replace(year=before.start.year + shift)
    end = before.end.replace(year=before.end.year + shift)
    return Period(start, end, found.group(0))


def _numeric_month(text: str, today: date) -> Period | None:
    """ "em 05/2026": that month."""
    found = NUMERIC_MONTH.search(text)
    if found is None:
        return None
    start = date(int(found.group(2)), int(found.group(1)), 1)
    return Period(start, month_start(start, 1), found.group(0))


ONE_DAY = (
    re.compile(r"(?<![\d/-])(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})(?![\d/-])"),
    re.compile(r"(?<![\d/-])(?P<d>\d{1,2})/(?P<m>\d{1,2})(?:/(?P<y>\d{4}|\d{2}))?(?![\d/-])"),
    # the parser's words: "15/06/2026" comes as "15 06 2026"; without a year, after "dia"
    re.compile(r"(?<!\d\s)\b(?P<y>20\d{2}) (?P<m>\d{1,2}) (?P<d>\d{1,2})\b(?!\s\d)"),
    re.compile(r"(?<!\d\s)\b(?P<d>\d{1,2}) (?P<m>\d{1,2}) (?P<y>20\d{2})\b(?!\s\d)"),
    re.compile(r"\b(?:dia|day) (?P<d>\d{1,2}) (?P<m>\d{1,2})\b(?!\s\d)"),
)
"""One day written with its digits: "2026-06-15", "15/06/2026", "dia 15/06"."""


def _one_day(text: str, today: date) -> Period | None:
    """ "no dia 15/06/2026", "on 2026-06-15": that day; without a year, the latest such day
    that has come."""
    found = min(
        (m for pattern in ONE_DAY if (m := pattern.search(text))),
        key=lambda m: m.start(),
        default=None,
    )
    if found is None or re.search(
        r"\b(?:desde|since|a partir d[eo]|from)\s+(?:o )?$",
        text[: found.start()].replace("dia ", ""),
    ):
        return None  # "desde o dia 16/06": from that day on (`_since`)
    said = found.groupdict().get("y")
    year = int(said) if said else today.year
    try:
        day = date(year + (2000 if year < 100 else 0), int(found.group("m")), int(found.group("d")))
    except ValueError:
        return None
    if not said and day > today:
        day = day.replace(year=day.year - 1)
    return Period(day, day + timedelta(days=1), found.group(0))


_NAMES = "|".join(sorted(MONTHS, key=len, reverse=True))
_YEAR = r"(?:,?\s+(?:de\s+)?(?P<year>\d{4}))?"
_DAY_NAMES = "|".join(
    sorted((m for m in MONTHS if m not in ("mar", "set", "out", "ago")), key=len, reverse=True)
)
"""Month names a lone day is read with: not those that are also everyday words ("out 10")."""
_EN_NAMES = "|".join(
    sorted(
        (m for m in MONTHS if m in ENGLISH_MONTHS),
        key=len,
        reverse=True,
    )
)
"""English month names: "June 15" is a day; "maio 26" is May 2026."""
NAMED_DAYS = (
    re.compile(
        rf"\b(?:de|from|entre|between|do dia)\s+(?P<first>\d{{1,2}})o?\s+(?:de\s+)?"
        rf"(?P<first_month>{_NAMES})\s+(?:a|ate|e|and|to|through|ao dia)\s+(?P<last>\d{{1,2}})"
        rf"\s+(?:de\s+)?(?P<month>{_NAMES}){_YEAR}\b"
    ),
    re.compile(
        rf"\b(?:from|between)\s+(?P<first_month>{_EN_NAMES})\s+(?P<first>\d{{1,2}})(?:st|nd|rd|th)?"
        rf"\s+(?:to|and|through|until)\s+(?P<month>{_EN_NAMES})\s+(?P<last>\d{{1,2}})"
        rf"(?:st|nd|rd|th)?{_YEAR}\b"
    ),
    re.compile(
        rf"\bdo dia\s+(?P<first>\d{{1,2}})o?\s+ao dia\s+(?P<last>\d{{1,2}})\s+(?:de|of)\s+"
        rf"(?P<month>{_NAMES}){_YEAR}\b"
    ),
    re.compile(
        rf"\b(?:entre|de|from|between)\s+(?:os dias\s+|o dia\s+)?(?P<first>\d{{1,2}})o?\s+"
        rf"(?:e|a|ate|and|to|through)\s+(?:o dia\s+)?(?P<last>\d{{1,2}})\s+(?:de|of)\s+"
        rf"(?P<month>{_NAMES}){_YEAR}\b"
    ),
    re.compile(
        rf"\b(?:between|from)\s+(?P<month>{_NAMES})\s+(?P<first>\d{{1,2}})(?:st|nd|rd|th)?\s+"
        rf"(?:and|to|through)\s+(?:(?:{_NAMES})\s+)?(?P<last>\d{{1,2}})(?:st|nd|rd|th)?{_YEAR}\b"
    ),
    re.compile(
        rf"(?<!top )(?<!os )(?<!as )(?<!dos )(?<!das )(?<!the )\b(?P<first>\d{{1,2}})o?\s+de\s+"
        rf"(?P<month>{_DAY_NAMES}){_YEAR}\b"
    ),
    re.compile(rf"\b(?P<month>{_EN_NAMES})\s+(?P<first>\d{{1,2}})(?:st|nd|rd|th)?{_YEAR}\b"),
)
"""Days of a month named: a range ("entre 10 e 20 de maio", "between May 10 and 20"), then
one day ("15 de junho de 2026", "June 15, 2026")."""


def _named_days(text: str, today: date) -> Period | None:
    """ "entre 10 e 20 de maio (de 2026)", "de 10 a 20 de maio", "15 de junho de 2026",
    "between May 10 and 20", "June 15, 2026": days of a month named, both ends included;
    without a year, the latest such days that have begun."""
    found = next((m for pattern in NAMED_DAYS if (m := pattern.search(text))), None)
    if found is None:
        return None
    said = found.groupdict()
    month, year_said = MONTHS[said["month"]], said.get("year")
    first_month = MONTHS[said["first_month"]] if said.get("first_month") else month
    try:
        last = date(int(year_said or today.year), month, int(said.get("last") or said["first"]))
        first = date(last.year - (first_month > month), first_month, int(said["first"]))
    except ValueError:
        return None
    if last < first:
        return None
    if not year_said and first > today:
        first, last = first.replace(year=first.year - 1), last.replace(year=last.year - 1)
    return Period(first, last + timedelta(days=1), found.group(0))


def find_period(question: str, today: date) -> Period | None:
    """The first period the question names, or None."""
    text = fold(question)
    readers = (_day_range, _since_month_day, _named_days, _numeric_month, _one_day, _short_part)
    for reader in (*readers, _part_of_year, _month_range, _since):
        period = reader(text, today)
        if period is not None:
            return period
    names = "|".join(sorted(MONTHS, key=len, reverse=True))
    # "compare to May", "June's revenue vs May's": a short name after a linking word too
    linking = "em|in|de|of|during|to|with|than|vs|versus|com"
    pattern = rf"\b(?:({linking})\s+)?({names})(?:\s+(?:de|of)?\s*(\d{{4}}))?\b"
    for found in re.finditer(pattern, text):
        named, year_text = found.group(2), found.group(3)
        # "may", "set", "mar" alone are ordinary words; "may" as the question's last word is
        # the month ("freight spend May": the modal verb never ends a question; "ago", "out",
        # "mar", "dez" do: "two weeks ago", "leave them out", "por mar", "top dez")
        last = named == "may" and not text[found.end() :].strip(" ?!.")
        if not (year_text or len(named) > 3 or found.group(1) or last):
            continue
        month = MONTHS[named]
        year = int(year_text) if year_text else today.year
        if not year_text and date(year, month, 1) > today:
            year -= 1
        phrase = found.group(0)
        suffix = re.match(
            r"\s*(do ano passado|de ano passado|last year|do ano anterior)", text[found.end() :]
        )
        if suffix:
            year, phrase = today.year - 1, phrase + suffix.group(0)
        start = date(year, month, 1)
        return Period(start, month_start(start, 1), phrase)
    relative = _relative(text, today)
    if relative:
        return relative
    said = [
        YEAR_AFTER_PREPOSITION.search(text),
        re.search(r"\b(?:em|in|de|of|no ano de|during)?\s*\b(20\d{2})\b", text),
    ]
    earliest = min((f for f in said if f), key=lambda f: f.start(1), default=None)
    if earliest:
        year = int(earliest.group(1))
        return Period(date(year, 1, 1), date(year + 1, 1, 1), earliest.group(0).strip())
    return None


YEAR_AFTER_PREPOSITION = re.compile(
    r"\b(?:em|in|de|of|no ano de|in the year|during|durante)\s+(19\d{2}|20\d{2})\b(?!\s*[/-]\d)"
)
"""A year after a preposition, from 1900 on ("vendas de 1990", "revenue in 1995"); a bare
19xx number elsewhere is what it is (a row's key, a quantity)."""
