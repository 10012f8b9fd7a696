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
from functools import partial

from orquestra.ddl_catalog.text import fold
from orquestra.offline.lang import LANGUAGES, alternation, first_word, mapping, word_set, words

either = partial(alternation, longest_first=False, any_spaces=False)
"""The concepts' words as a regular-expression alternation in the order the languages and
their files give them, a space one space: the words as the readings always tried them."""


def _months() -> dict[str, int]:
    """Every language's month names and short names -> the month's number."""
    months: dict[str, int] = {}
    for language in LANGUAGES.values():
        for number, name in enumerate(language.words("month_names"), 1):
            months.setdefault(name, number)
    for short, name in mapping("month_abbreviations").items():
        months.setdefault(short, months[name])
    return months


MONTHS = _months()
UNITS = {
    **dict.fromkeys((*words("day_noun"), *words("days_noun")), 1),
    **dict.fromkeys((*words("week_noun"), *words("weeks_noun")), 7),
    **dict.fromkeys((*words("month_noun"), *words("months_noun")), 30),
    **dict.fromkeys((*words("year_noun"), *words("years_noun")), 365),
}
"""Units of time a count of them is said in ("últimos 3 meses"), in days."""


ORDINALS = {
    **{str(number): number for number in range(1, 5)},
    **{said: int(number) for said, number in mapping("ordinal_numbers").items()},
}
MONTHS_BEFORE_DAY = word_set("month_names_before_day")
"""Month names said before a day's number ("June 15")."""
SPANS = {
    **dict.fromkeys((*words("quarter_noun"), *words("quarter_short_names")), 3),
    **dict.fromkeys((*words("semester_noun"), *words("semester_short_names")), 6),
}
"""Named parts of a year, in months ("1º trim", "2º sem/25" too)."""


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
    this_masculine, this_feminine = either("this_before_masculine"), either("this_before_feminine")
    patterns = [
        # Longer phrases first: "ano retrasado" before "ano", "year to date" before "year".
        (rf"\b{either('month_before_last')}\b", month_start(today, -2), month_start(today, -1)),
        (
            rf"\b{either('year_before_last')}\b",
            date(today.year - 2, 1, 1),
            date(today.year - 1, 1, 1),
        ),
        (rf"\b{either('year_to_date')}\b", date(today.year, 1, 1), tomorrow),
        (rf"\b{either('month_to_date')}\b", this_month, tomorrow),
        (rf"\b{either('last_week')}\b", monday - timedelta(days=7), monday),
        (rf"\b{either('last_semester')}\b", month_start(semester, -6), semester),
        (
            rf"\b{this_masculine} {either('semester_noun')}\b",
            semester,
            month_start(semester, 6),
        ),
        (rf"\b{this_masculine} {either('month_noun')}\b", this_month, month_start(today, 1)),
        (rf"\b{either('last_month')}\b", month_start(today, -1), this_month),
        (
            rf"\b{this_masculine} {either('year_noun')}\b",
            date(today.year, 1, 1),
            date(today.year + 1, 1, 1),
        ),
        (rf"\b{either('last_year')}\b", date(today.year - 1, 1, 1), date(today.year, 1, 1)),
        (rf"\b{this_masculine} {either('quarter_noun')}\b", quarter, month_start(quarter, 3)),
        (rf"\b{either('last_quarter')}\b", month_start(quarter, -3), quarter),
        (
            rf"\b{either('past_seven_days')}\b",
            today - timedelta(days=7),
            today + timedelta(days=1),
        ),
        (rf"\b{either('today')}\b", today, today + timedelta(days=1)),
        (rf"\b{either('yesterday')}\b", today - timedelta(days=1), today),
        (rf"\b{either('tomorrow')}\b", today + timedelta(days=1), today + timedelta(days=2)),
        (
            rf"\b(?:{this_feminine} {either('week_noun')} {either('so_far')}"
            rf"|{either('week_to_date')})\b",
            monday,
            tomorrow,
        ),
        (
            # the whole week, as "este mês" is the whole month: what falls due in it counts
            rf"\b{this_feminine} {either('week_noun')}\b",
            monday,
            monday + timedelta(days=7),
        ),
        (
            rf"\b{either('next_week')}\b",
            monday + timedelta(days=7),
            monday + timedelta(days=14),
        ),
        (rf"\b{either('next_month')}\b", month_start(today, 1), month_start(today, 2)),
        (
            rf"\b{either('next_year')}\b",
            date(today.year + 1, 1, 1),
            date(today.year + 2, 1, 1),
        ),
    ]
    for pattern, start, end in patterns:
        found = re.search(pattern, text)
        if found:
            return Period(start, end, found.group(0))
    counts = "|".join(NUMBER_WORDS)
    first, months_of = either("first_few"), either("months_of_year_link")
    found = re.search(  # "nos quatro primeiros meses do ano", "the first 4 months of 2025"
        rf"\b(?:(\d+|{counts}) {first}|{first} (\d+|{counts}))"
        rf" {either('months_noun')}(?: {months_of}(?: (\d{{4}}))?)?",
        text,
    )
    if found:
        count = found.group(1) or found.group(2)
        months = int(count) if count.isdigit() else NUMBER_WORDS[count]
        start = date(int(found.group(3)) if found.group(3) else today.year, 1, 1)
        return Period(start, month_start(start, months), found.group(0))
    last = either("last_few")
    found = re.search(rf"\b({either('last_few', 'in_the_last_few')}) (\d+|{counts}) (\w+)", text)
    # "os 3 últimos meses", "the 2 last weeks": the count first
    found = found or re.search(rf"\b()(\d+|{counts}) {last} (\w+)", text)
    if found and found.group(3) in UNITS:
        count = found.group(2)
        days = (int(count) if count.isdigit() else NUMBER_WORDS[count]) * UNITS[found.group(3)]
        return Period(today - timedelta(days=days), today + timedelta(days=1), found.group(0))
    # "nos próximos 7 dias", "in the next two weeks": from today on, as "últimos" ends today
    found = re.search(rf"\b({either('next_few')}) (\d+|{counts}) (\w+)", text)
    if found and found.group(3) in UNITS:
        count = found.group(2)
        days = (int(count) if count.isdigit() else NUMBER_WORDS[count]) * UNITS[found.group(3)]
        return Period(today, today + timedelta(days=days + 1), found.group(0))
    return None


NUMBER_WORDS = {said: int(number) for said, number in mapping("spelled_counts").items()}
"""Counts people spell out ("as últimas duas semanas", "the last three months")."""
LAST_YEAR = either("of_last_year", "of_last_year_after_part")


SHORT_PART = re.compile(
    rf"\b(?:([1-4])\s?{either('quarter_letters_after_digit')}"
    rf"|{either('quarter_letter_before_digit')}([1-4])"
    rf"|([12])\s?{either('half_letters_after_digit')}|{either('half_letter_before_digit')}([12]))"
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
        rf"\b(?:({ordinals})\s+({spans})|({either('quarter_letter_before_digit')})([1-4]))\b"
        rf"(?:\s+{either('part_year_link')}?\s*(\d{{4}})|\s+({LAST_YEAR}))?",
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
    first_year = rf"(?:\s+{either('date_of')}?\s*(?P<first_year>\d{{4}}))?"
    last_year = rf"\b(?:\s+{either('date_of')}?\s*(?P<year>\d{{4}}))?"
    found = re.search(
        rf"\b{either('range_from')}\s+(?P<first>{names}){first_year}"
        rf"\s+{either('range_to')}\s+(?P<last>{names}){last_year}",
        text,
    ) or re.search(
        rf"\b(?P<first>{names}){first_year}(?:\s+{either('month_range_to')}\s+|\s*-\s*|\s+)"
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
    rf"\b{either('since_from')}\s+(?:{either('since_the_day')}\s+)?"
    r"(?:(\d{1,2})[/\s](\d{1,2})(?:[/\s](\d{2,4}))?|(?P<month>[a-z]+))"
    rf"(?:\s+{either('until')}\s+{either('now_or_today')}|\s+{either('to_here')})?"
)
UNTIL_NOW = re.compile(rf"{either('now_or_today', 'to_here')}$")


def _since(text: str, today: date) -> Period | None:
    """ "desde o dia 16/06", "de janeiro até hoje", "since March": from that day (or the
    month's first day) up to today, today included ("de abril pra cá" too). "de maio" alone
    stays the month."""
    for found in SINCE.finditer(text):
        phrase = found.group(0)
        until_now = UNTIL_NOW.search(phrase)
        if not (until_now or phrase.startswith(words("since"))):
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
    rf"\b{either('day_range_from')}\s+{DAY}\s+{either('range_to')}"
    rf"\s+(?:{either('the_day')}\s+)?{DAY}"
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


SHORT_MONTHS = mapping("month_abbreviations_before_year")
"""Short month names only read before a year ("mai/26"): alone they are other words."""


MONTH_NAMES = "|".join(
    sorted([*MONTHS, *SHORT_MONTHS, *words("month_names_as_typed")], key=len, reverse=True)
)
MONTH_YEAR = re.compile(rf"\b({MONTH_NAMES})\s*[/-]\s*(\d{{4}}|\d{{2}})\b", re.IGNORECASE)
PART_YEAR = re.compile(
    rf"\b({either('year_parts_before_slash')})\s*[/-]\s*(\d{{4}}|\d{{2}})\b", re.IGNORECASE
)
"""A part of a year written with its year after a slash ("1º tri/26", "2º sem/2025")."""
SINCE_DAY = re.compile(
    rf"\b{either('since')}\s+(?:(?:{either('the_day')}\s+)?(\d{{1,2}})\s+"
    rf"{either('date_parts_link')}\s+({MONTH_NAMES})|({MONTH_NAMES})\s+(\d{{1,2}}))\b"
)
YEAR_OF = first_word("date_of")
"""How a month is joined to its year where one is spelled out ("mai/26" -> "maio de 2026"):
the first language's word, which the period readers read."""


def month_years_spelled(question: str) -> str:
    """`question` with a month written with its year after a slash or dash ("mai/26",
    "março/2026", "jun-25") spelled as "<month> de <year>", which the period readers read
    (and which words() would otherwise split into a month and a bare number)."""

    def spelled(found: re.Match[str]) -> str:
        year, month = int(found.group(2)), found.group(1)
        month = SHORT_MONTHS.get(month.lower(), month)
        return f"{month} {YEAR_OF} {year + (2000 if year < 100 else 0)}"

    def part(found: re.Match[str]) -> str:
        year = int(found.group(2))
        return f"{found.group(1)} {YEAR_OF} {year + (2000 if year < 100 else 0)}"

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
        found = [p for p in found if p.phrase not in TOMORROW] or found
    return _within_a_year(found)


TOMORROW = word_set("tomorrow")
NAMED_PART = re.compile(
    rf"\b({'|'.join(MONTHS)}|{either('year_parts_placed_in_a_year')}"
    rf"|{either('quarter_letter_before_digit')}[1-4]|{either('half_letter_before_digit')}[12])\b"
    rf"(?!.*\b({either('relative_to_today')})\b)"
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
    rf"\b(?:{either('singular_articles')} )?{either('same')}\s+\w+\s+"
    rf"{either('same_part_year_link')}?\s*(20\d{{2}})\b"
)
NUMERIC_MONTH = re.compile(
    rf"\b{either('numeric_month_link')}\s+(0?[1-9]|1[0-2])[/\s](20\d{{2}})\b"
)
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
    re.compile(rf"\b{either('day_noun')} (?P<d>\d{{1,2}}) (?P<m>\d{{1,2}})\b(?!\s\d)"),
)
"""One day written with its digits: "2026-06-15", "15/06/2026", "dia 15/06"."""
FROM_ON = re.compile(rf"\b{either('from_on')}\s+(?:{either('masculine_article')} )?$")
"""What says a day written just after it is a start ("desde o dia 16/06"), not the day."""


def _one_day(text: str, today: date) -> Period | None:
    """ "no dia 15/06/2026", "on 2026-06-15": that day; without a year, the latest such day
    that has come."""
    found = min(
        (m for pattern in ONE_DAY if (m := pattern.search(text))),
        key=lambda m: m.start(),
        default=None,
    )
    if found is None:
        return None
    before = text[: found.start()]
    for word in words("since_day_word"):
        before = before.replace(f"{word} ", "")
    if FROM_ON.search(before):
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
_LINK = either("date_parts_link")
_YEAR = rf"(?:,?\s+(?:{_LINK}\s+)?(?P<year>\d{{4}}))?"
_DAY_NAMES = "|".join(
    sorted(
        (m for m in MONTHS if m not in word_set("month_abbreviations_also_words")),
        key=len,
        reverse=True,
    )
)
"""Month names a lone day is read with: not those that are also everyday words ("out 10")."""
_EN_NAMES = "|".join(
    sorted(
        (m for m in MONTHS if m in MONTHS_BEFORE_DAY),
        key=len,
        reverse=True,
    )
)
"""Month names said before a day: "June 15" is a day; "maio 26" is May 2026."""
_TH = rf"{either('day_ordinal_suffix')}?"
"""The ordinal ending a day's number may have when it comes first ("1º de maio")."""
_ST = rf"{either('ordinal_suffixes')}?"
"""The ordinal ending a day's number may have after its month ("May 1st")."""
_COUNTED = "".join(rf"(?<!{re.escape(w)} )" for w in words("before_a_count"))
NAMED_DAYS = (
    re.compile(
        rf"\b{either('range_from', 'from_the_day')}\s+(?P<first>\d{{1,2}}){_TH}\s+(?:{_LINK}\s+)?"
        rf"(?P<first_month>{_NAMES})\s+{either('days_to', 'to_the_day')}\s+(?P<last>\d{{1,2}})"
        rf"\s+(?:{_LINK}\s+)?(?P<month>{_NAMES}){_YEAR}\b"
    ),
    re.compile(
        rf"\b{either('month_days_from')}\s+(?P<first_month>{_EN_NAMES})\s+(?P<first>\d{{1,2}}){_ST}"
        rf"\s+{either('month_days_to')}\s+(?P<month>{_EN_NAMES})\s+(?P<last>\d{{1,2}})"
        rf"{_ST}{_YEAR}\b"
    ),
    re.compile(
        rf"\b{either('from_the_day')}\s+(?P<first>\d{{1,2}}){_TH}\s+{either('to_the_day')}"
        rf"\s+(?P<last>\d{{1,2}})\s+{either('date_of')}\s+(?P<month>{_NAMES}){_YEAR}\b"
    ),
    re.compile(
        rf"\b{either('range_from')}\s+(?:{either('the_days')}\s+)?(?P<first>\d{{1,2}}){_TH}\s+"
        rf"{either('days_to')}\s+(?:{either('the_day')}\s+)?(?P<last>\d{{1,2}})\s+"
        rf"{either('date_of')}\s+(?P<month>{_NAMES}){_YEAR}\b"
    ),
    re.compile(
        rf"\b{either('month_days_from')}\s+(?P<month>{_NAMES})\s+(?P<first>\d{{1,2}}){_ST}\s+"
        rf"{either('month_days_to_same_month')}\s+(?:(?:{_NAMES})\s+)?(?P<last>\d{{1,2}}){_ST}"
        rf"{_YEAR}\b"
    ),
    re.compile(
        rf"{_COUNTED}\b(?P<first>\d{{1,2}}){_TH}\s+{_LINK}\s+"
        rf"(?P<month>{_DAY_NAMES}){_YEAR}\b"
    ),
    re.compile(rf"\b(?P<month>{_EN_NAMES})\s+(?P<first>\d{{1,2}}){_ST}{_YEAR}\b"),
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
    linking = either("month_linking_words")
    pattern = rf"\b(?:({linking})\s+)?({names})(?:\s+{either('date_of')}?\s*(\d{{4}}))?\b"
    for found in re.finditer(pattern, text):
        named, year_text = found.group(2), found.group(3)
        # "may", "set", "mar" alone are ordinary words; "may" as the question's last word is
        # the month ("freight spend May": the modal verb never ends a question; "ago", "out",
        # "mar", "dez" do: "two weeks ago", "leave them out", "por mar", "top dez")
        last = named in READ_LAST and not text[found.end() :].strip(" ?!.")
        if not (year_text or len(named) > 3 or found.group(1) or last):
            continue
        month = MONTHS[named]
        year = int(year_text) if year_text else today.year
        if not year_text and date(year, month, 1) > today:
            year -= 1
        phrase = found.group(0)
        suffix = re.match(rf"\s*({either('of_last_year')})", text[found.end() :])
        if suffix:
            year, phrase = today.year - 1, phrase + suffix.group(0)
        start = date(year, month, 1)
        return Period(start, month_start(start, 1), phrase)
    relative = _relative(text, today)
    if relative:
        return relative
    said = [
        YEAR_AFTER_PREPOSITION.search(text),
        BARE_YEAR.search(text),
    ]
    earliest = min((f for f in said if f), key=lambda f: f.start(1), default=None)
    if earliest:
        year = int(earliest.group(1))
        return Period(date(year, 1, 1), date(year + 1, 1, 1), earliest.group(0).strip())
    return None


READ_LAST = word_set("month_names_read_last")
"""Month names that are another word ("may"), read as the month when they end the question."""
YEAR_AFTER_PREPOSITION = re.compile(
    rf"\b{either('year_after_preposition')}\s+(19\d{{2}}|20\d{{2}})\b(?!\s*[/-]\d)"
)
"""A year after a preposition, from 1900 on ("vendas de 1990", "revenue in 1995"); a bare
19xx number elsewhere is what it is (a row's key, a quantity)."""
BARE_YEAR = re.compile(rf"\b{either('bare_year_link')}?\s*\b(20\d{{2}})\b")
"""A year of this century, after a preposition or alone ("no ano de 2025", "2025")."""
