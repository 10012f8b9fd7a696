"""Native input rails: prompt injection (PINJ), out of scope (OOS), message size (SIZE).

They are deterministic and cheap (no model call), so every message pays microseconds, not
a round trip. They are the polite first line, never the security boundary: a message that
slips past PINJ still meets the SQL guard and row-level security.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from orquestra.core.deployment import Profile
from orquestra.ddl_catalog.dictionary import readings
from orquestra.ddl_catalog.model import Catalog
from orquestra.ddl_catalog.selection_words import vocabulary_of
from orquestra.ddl_catalog.text import abbreviated_by, fold, phrase_key, stem, words
from orquestra.guards.rails.config import Entry
from orquestra.guards.rails.contracts import RailCheck, RailResult

INSTRUCTIONS = (
    r"\b(ignor\w*|esquec\w*|desconsider\w*|disregard|forget|override|bypass|burl\w*|contorn\w*)"
    r"\b.{{0,40}}\b(instruc\w*|instruct\w*|regras?|rules?|prompt|restric\w*|"
    r"polic\w*|politica\w*|seguranca|security|guard\w*|tenant\w*|{tenant})"
    r"|\b(system prompt|prompt do sistema|suas instrucoes|your instructions|novas instrucoes|"
    r"new instructions|developer mode|modo desenvolvedor|jailbreak|you are now|voce agora e|"
    r"a partir de agora voce|from now on you|act as|aja como|finja (que|ser)|pretend (to be|you)|"
    r"i am the (platform )?admin|i'm the (platform )?admin|sou (o )?(admin|administrador)|"
    r"como (admin|administrador|superusuario)|as (an? )?(admin|administrator|superuser))\b"
)
# Only the filters that keep tenants apart: "sem filtro de data" is an ordinary request.
FILTERS = (
    r"\b(sem (nenhum|qualquer) filtro|without any filters?|"
    r"(sem|without|remov\w*|tir\w*|drop|remove|disable|desativ\w*|desligu\w*|turn off|"
    r"ignor\w*|bypass|burl\w*) (o |os |a |as |the |any )?(filtros? |filters? )?"
    r"(de |do |da |of |by )?"
    r"({tenant}|tenants?|seguranca|security|rls|row level security)\b|"
    r"row level security|"
    r"set (local )?role|set app\.|app\.tenant|current_setting|({columns})\s*(=|<>|!=|in\b)|"
    r"tenant_id|or 1\s*=\s*1|or true\b|;\s*(drop|delete|update|insert|alter|truncate)\b|"
    r"\b(drop|truncate|alter) table\b|\bdelete from\b|\binsert into\b)"
)
OTHER_TENANTS = (
    r"\b(tod[oa]s (?:[oa]s )?(?:{tenant})|outr[oa]s? (?:{tenant})|demais (?:{tenant})|"
    r"qualquer (?:{tenant})|all (?:the )?(?:{tenant})|other (?:{tenant})|every (?:{tenant})|"
    r"another (?:{tenant}))\b"
)
# A tenant's code right after the word ("loja 2", "store #3", "tenants 101 and 103"), never
# any number later in the sentence ("a loja vendeu em 2026").
TENANT_CODE = (
    r"\b(?:{tenant}|{columns})\s*:?\s*(?:n[o.]?\s*|#|codigo\s*|"
    r"code\s*|cod\.?\s*|id\s*|=\s*)?(\d{{1,9}}(?:\s*(?:,|e|and|ou|or|&)\s*\d{{1,9}})*)\b"
    r"(?!\s*(?:%|dias|days))"
)
GENERIC_TENANT_WORDS = ("tenant", "tenants")
"""What a tenant is called in any deployment; the profile adds the business's own words."""


def _alternation(names: Iterable[str]) -> str:
    """`a|b|c` of the folded, escaped names, longest first (so "stores" wins over "store")."""
    folded = {fold(name).strip() for name in names if name and name.strip()}
    return "|".join(re.escape(name) for name in sorted(folded, key=lambda n: (-len(n), n)))


@dataclass(frozen=True)
class Toolkit:
    """What native rails may read from the framework: the catalog, the profile, the limits."""

    catalog: Catalog
    max_message_chars: int = 4_000
    profile: Profile | None = None
    """The deployment's profile: what a tenant is called, the assistant's name, the business."""

    def tenant_words(self) -> tuple[str, ...]:
        """Every name of a tenant: the generic ones and the profile's labels in each language."""
        labels = self.profile.tenant.values() if self.profile else ()
        named = [word for label in labels for word in (label.singular, label.plural)]
        return (*GENERIC_TENANT_WORDS, *named)

    def tenant_columns(self) -> tuple[str, ...]:
        """The columns that carry the tenant in the catalog."""
        return tuple(sorted(set(self.catalog.tenant_tables().values())))


class PromptInjection:
    """PINJ: attempts to change the instructions, the tenant, or the data filters."""

    def __init__(self, entry: Entry, toolkit: Toolkit) -> None:
        del entry
        # The patterns name tenants as the deployment does ("loja", "store", its column).
        words = {"tenant": _alternation(toolkit.tenant_words())}
        columns = _alternation(toolkit.tenant_columns()) or "tenant_id"
        self.patterns = (
            ("asks to change the assistant's instructions or role", INSTRUCTIONS.format(**words)),
            ("asks to remove or change the data filters", FILTERS.format(columns=columns, **words)),
            ("asks for other tenants' data", OTHER_TENANTS.format(**words)),
        )
        self.compiled = tuple((reason, re.compile(pattern)) for reason, pattern in self.patterns)
        self.tenant_code = re.compile(TENANT_CODE.format(columns=columns, **words))

    async def evaluate(self, check: RailCheck) -> RailResult:
        text = fold(check.text)
        for reason, pattern in self.compiled:
            if pattern.search(text):
                return RailResult(allowed=False, reason=reason, score=1.0)
        for match in self.tenant_code.finditer(text):
            for code in re.findall(r"\d+", match.group(1)):
                if code != check.tenant.strip():
                    return RailResult(
                        allowed=False, reason=f"asks for tenant {code}'s data", score=1.0
                    )
        return RailResult(allowed=True, score=0.0)


# Questions to the assistant itself ("quem é você?", "what can you do?", "who am I talking to?").
META = re.compile(
    r"\b(quem (e|es) (voce|vc|tu)|o que (voce|vc) (faz|sabe|pode|consegue)|"
    r"(voce|vc) (consegue|pode|sabe|fala|entende|responde|e capaz)|"
    r"(who|what) are you|what can you|can you (help|answer|speak|do|explain|show)|"
    r"do you (speak|understand|know)|who am i (talking|speaking) to|your name|seu nome|"
    r"como (voce|vc) funciona|how do you work|orquestra|^(ajuda|help|socorro)\b|"
    r"como (posso|pode) (usar|perguntar)|how (do|can) i (use|ask))"
)
# Small talk the chat stage answers, and requests for "the numbers" a data assistant serves
# (vague ones get a clarifying question rather than a refusal).
SOCIAL = re.compile(
    r"\b(obrigad[oa]|valeu|brigad[oa]|thanks|thank you|tchau|bye|ate mais|ate logo|bom dia|"
    r"boa tarde|boa noite|ola|oi|hello|hi|hey|e ai|tudo bem|tudo bom|how are (you|things)|"
    r"how are we doing|como (vai|vao|andam|estao|esta|estamos)|how is (it|business) going|"
    r"what'?s up)\b"
)
DATA_NOUNS = re.compile(
    r"\b(relatorios?|reports?|dashboards?|paineis|painel|resumo|summary|indicador\w*|"
    r"indicators?|kpis?|metricas?|metrics?|desempenho|performance|numeros|numbers|dados|data|"
    r"resultados?|results?|panorama|overview)\b"
)
# Two of these (what to measure, and when) make a data question even without a catalog word
# ("quanto vendemos no mês passado?"); one alone does not ("what is the weather today").
QUANTITY = re.compile(
    r"\b(quant[oa]s?|how (many|much)|total\w*|soma|sum|medi[ao]s?|average|mediana|median|maior\w*|"
    r"menor\w*|top|ranking|lista\w*|list|mostr\w*|show|compar\w*|melhor\w*|pior\w*|best|"
    r"worst|highest|lowest|biggest|smallest|most|least)\b"
)
LISTING = re.compile(r"\b(quais|which|list|liste)\b")
"""Words that ask for items of the data; with a number, a data question whatever language
its other words are in ("quais os 3 álbuns com mais faixas?", "quais músicas da fatura 150")."""
SHAPED = re.compile(r"\b(por|per|by|each|cada|every)\b|\d")
"""With a quantity, what shapes a data question in any words, catalog's or not: a grouping or
a number ("frete médio por país", "top 3 clientes", "os 5 que mais gastaram")."""
PERIOD = re.compile(
    r"\b(por (mes|ano|semana|dia|trimestre)|per (month|year|week|day|quarter)|mensal|monthly|"
    r"anual|yearly|ultim\w*|last|este (mes|ano)|esta semana|this (month|year|week)|"
    r"mes passado|ano passado|semana passada|hoje|today|ontem|yesterday|trimestre|quarter|"
    r"janeiro|fevereiro|marco|abril|maio|junho|julho|agosto|setembro|outubro|novembro|dezembro|"
    r"january|february|march|april|may|june|july|august|september|october|november|december|"
    r"(?:19|20)\d\d|mes a mes|month by month)\b"
)
FOLLOW_UP = re.compile(
    r"^(e|and|what about|how about|agora|now|entao|so|tambem|also|mas|but|e se|e quanto|"
    r"e o|e a|e os|e as|e no|e na|e em|e para|e do|e da|so|somente|apenas|only)\b"
)
STATUS_CUE = re.compile(r"\b(status|situacao|onde|where|quando|when|exib\w*|semana|week)\b")
"""With the measures and periods above, what a follow-up in a thread may ask about."""


class OutOfScope:
    """OOS: messages the catalog and the glossary cannot serve (weather, poems, trivia).

    In scope: any catalog or glossary word (table and column names, synonyms, enumerated
    values, glossary terms) or an inflection of one, a measure asked for a period ("quanto
    … em maio"), a question to the assistant itself, small talk, a request for reports or
    numbers, a clarification answer, and, inside a thread, a short follow-up or one with a
    period or a number. The score is 1.0 in scope and 0.0 out; `threshold` (default 0.5)
    decides.
    """

    def __init__(self, entry: Entry, toolkit: Toolkit) -> None:
        self.threshold = float(entry.setting("threshold", 0.5))
        self.follow_up_words = int(entry.setting("follow_up_words", 8))
        self.vocabulary, self.phrases = _vocabulary(toolkit.catalog)
        extra = entry.setting("extra_terms", []) or []
        self.vocabulary |= {stem(w) for term in extra for w in words(term)}
        # Inflected forms share the first letters ("vendemos" / vendas, "deliveries" /
        # delivery): five letters in common with a catalog word of five or more count.
        self.prefixes = {w[:PREFIX] for w in self.vocabulary if len(w) >= PREFIX}
        self.long_words = sorted(w for w in self.vocabulary if len(w) > 3)
        # The languages' words for what the catalog names ("cliente" where the catalog says
        # customer): a question in the other language is about the same data. As written
        # only: their first letters open nothing ("ganhos" is revenue, "ganhou" no word).
        for key in readings(vocabulary_of(toolkit.catalog)):
            if len(key) == 1:
                self.vocabulary.add(key[0])
            else:
                self.phrases.append(key)

    async def evaluate(self, check: RailCheck) -> RailResult:
        score = 1.0 if self._in_scope(check) else 0.0
        if score >= self.threshold:
            return RailResult(allowed=True, score=score)
        return RailResult(
            allowed=False, score=score, reason="no catalog or glossary subject in the message"
        )

    def _in_scope(self, check: RailCheck) -> bool:
        if check.clarifying:
            return True
        text = fold(check.text)
        tokens = [stem(w) for w in words(text.replace("_", " "))]
        if self.vocabulary & set(tokens) or any(_contains(tokens, p) for p in self.phrases):
            return True
        if any(len(t) > PREFIX and t[:PREFIX] in self.prefixes for t in tokens):
            return True
        if any(self._abbreviates(a) for a in abbreviations(text)):
            return True
        if QUANTITY.search(text) and (PERIOD.search(text) or SHAPED.search(text)):
            return True
        if LISTING.search(text) and re.search(r"\d", text):
            return True  # "quais músicas vieram na fatura 150?", in words the catalog lacks
        if META.search(text) or SOCIAL.search(text) or DATA_NOUNS.search(text):
            return True
        if check.history:
            short = len(tokens) <= self.follow_up_words
            cue = QUANTITY.search(text) or PERIOD.search(text) or STATUS_CUE.search(text)
            return bool(short or cue or FOLLOW_UP.search(text) or re.search(r"\d", text))
        return False

    def _abbreviates(self, short: str) -> bool:
        """A catalog word this abbreviation shortens ("qtd" quantidade, "dept." department)."""
        return bool(abbreviated_by(short, self.long_words))


def abbreviations(text: str) -> list[str]:
    """Words written as business abbreviations: one with a dot inside a sentence ("dept. do
    trimestre") or one with no vowel at all ("qtd", "vlr"), which no ordinary word of
    either language is, but for the chat shorthands people type for everyday words."""
    dotted = re.findall(r"\b([a-z]{3,})\.(?=[ \t]+\S)", text)
    bare = [w for w in words(text) if VOWELLESS.fullmatch(w) and w not in CHAT_SHORTHAND]
    return dotted + bare


VOWELLESS = re.compile(r"[b-df-hj-np-tv-xz]{2,5}")
CHAT_SHORTHAND = {"vc", "vcs", "pq", "tb", "tbm", "blz", "msg", "hj", "qq", "cmg", "ctz", "sds"}
CHAT_SHORTHAND |= {"pls", "plz", "thx", "thnx", "btw", "brb", "ty", "np", "hmm", "hm", "shh"}
CHAT_SHORTHAND |= {"sr", "sra", "dr", "dra", "mr", "mrs", "ms", "st", "jr", "www", "http"}
"""Shorthands of everyday words and titles: they abbreviate nothing in a catalog."""
TWO_LETTER_WORDS = {"se", "eu", "tu", "te", "ou", "ja", "ta", "la", "ai", "vc", "pq", "tb"}
TWO_LETTER_WORDS |= {"or", "an", "if", "he", "am", "go", "up", "so", "do", "us", "as", "no", "ok"}
"""Short words of either language a two-letter catalog name might spell ("OS", "DO")."""


class MessageSize:
    """SIZE: a message longer than `max_chars` (default: the settings' message limit)."""

    def __init__(self, entry: Entry, toolkit: Toolkit) -> None:
        self.max_chars = int(entry.setting("max_chars", toolkit.max_message_chars))

    async def evaluate(self, check: RailCheck) -> RailResult:
        size = len(check.text)
        if size <= self.max_chars:
            return RailResult(allowed=True, score=size / self.max_chars)
        return RailResult(
            allowed=False,
            score=size / self.max_chars,
            reason=f"{size} characters, the limit is {self.max_chars}",
        )


PREFIX = 5
STOPWORDS = {"de", "da", "do", "das", "dos", "e", "a", "o", "the", "of", "and", "em", "por", "in"}


def _vocabulary(catalog: Catalog) -> tuple[set[str], list[tuple[str, ...]]]:
    """Single catalog words (stemmed) and multi-word phrases people use for the data."""
    names: list[str] = []
    values: list[str] = []
    for system in catalog.systems:
        names += [system.name, system.title]
    for table in catalog.tables.values():
        names += [table.name, *table.meta.synonyms.all()]
        for column in table.columns:
            meta = column.meta
            names += [column.name, *meta.synonyms.all()]
            values += [*meta.values, *(s for found in meta.value_synonyms.values() for s in found)]
    for term in catalog.glossary:
        names += [term.term, *term.synonyms]
    single: set[str] = set()
    phrases: list[tuple[str, ...]] = []
    for name in [*names, *values]:
        key = tuple(w for w in phrase_key(name) if w not in STOPWORDS)
        if len(key) == 1 and len(key[0]) > 2:
            single.add(key[0])
        elif len(key) > 1:
            phrases.append(key)
            # Parts of longer names count too ("amount" of total_amount): letting an
            # off-topic message through costs an honest "I cannot map that"; blocking a real
            # question costs the answer.
            single.update(w for w in key if len(w) > 3)
    # A two-letter name people use for a table or a column ("NF") counts unless it spells a
    # short everyday word; a two-letter value ("DO", "US") never does.
    single.update(
        key[0]
        for name in names
        if len(key := phrase_key(name)) == 1
        and len(key[0]) == 2
        and key[0] not in STOPWORDS | TWO_LETTER_WORDS
    )
    return single, phrases


def _contains(tokens: list[str], phrase: tuple[str, ...]) -> bool:
    size = len(phrase)
    return any(tuple(tokens[i : i + size]) == phrase for i in range(len(tokens) - size + 1))
