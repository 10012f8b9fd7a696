"""Every fixed text a person reads, in each language, in one place.

Stages, the offline model and the server say things in the user's language — refusals,
greetings, honest stops, notes under an answer. They all live here, keyed by what they are,
and `say()` applies the one fallback rule: a language without its own text gets English. A
count's noun agrees with it: `{n|linha|linhas}` is the singular when `n` is one, else the
plural (`plural()`), so no text says "1 linhas" or "row(s)".
Words that come from the deployment (the assistant's name, what a tenant is called, topics)
are filled in as values; nothing here names a business.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

LANGUAGES = ("pt", "en")
FALLBACK = "en"

TEXTS: dict[str, dict[str, str]] = {
    "model.MODEL_UNAVAILABLE": {
        "pt": "O provedor do modelo está fora do ar ou inacessível "
        "agora. Tente de novo em alguns instantes.",
        "en": "The model provider is down or unreachable right now. Please try again shortly.",
    },
    "model.MODEL_AUTH": {
        "pt": "O provedor do modelo recusou as credenciais (chave de API "
        "inválida ou sem permissão para este modelo). Avise quem "
        "administra o Orquestra.",
        "en": "The model provider refused the credentials (an invalid API "
        "key, or no access to this model). Please tell whoever runs "
        "Orquestra.",
    },
    "model.MODEL_RATE_LIMITED": {
        "pt": "O provedor do modelo está limitando as chamadas agora "
        "(limite de uso atingido). Tente de novo em alguns "
        "instantes.",
        "en": "The model provider is limiting calls right now (a "
        "rate or usage limit). Please try again in a moment.",
    },
    "model.MODEL_TIMEOUT": {
        "pt": "O modelo demorou demais para responder. Tente de novo.",
        "en": "The model took too long to answer. Please try again.",
    },
    "server.SHUTTING_DOWN": {
        "pt": "O servidor está parando (para reiniciar ou reduzir réplicas) e esta resposta foi "
        "interrompida antes do fim; "
        "nada dela foi guardado. Pergunte de novo em alguns instantes.",
        "en": "The server is stopping (a restart or fewer replicas) and this answer was stopped"
        " before it finished;"
        " none of it was kept. Please ask again in a moment.",
    },
    "model.MODEL_CONTEXT": {
        "pt": "A pergunta, com o contexto necessário, ficou grande demais "
        "para o modelo. Tente uma pergunta mais curta ou mais "
        "específica.",
        "en": "The question, with the context it needs, is too long for "
        "the model. Try a shorter or more specific question.",
    },
    "model.MODEL_REFUSED": {
        "pt": "O provedor do modelo se recusou a responder (filtro de "
        "conteúdo). Reformule a pergunta, por favor.",
        "en": "The model provider declined to answer (a content filter). "
        "Please rephrase the question.",
    },
    "withheld": {
        "pt": "Esta resposta foi retida por uma regra de segurança ({code}) e não "
        "pode ser exibida.",
        "en": "This answer was withheld by a safety rule ({code}) and cannot be shown.",
    },
    "reply.thanks": {
        "pt": "Por nada! Se precisar de mais alguma consulta, é só perguntar.",
        "en": "You're welcome! Ask me anything else about your data.",
    },
    "reply.empty": {
        "pt": "Não recebi nenhuma pergunta. O que você gostaria de saber?",
        "en": "I did not get a question. What would you like to know?",
    },
    "refusal.SIZE": {
        "pt": "Sua mensagem é longa demais ({reason}). Resuma a pergunta em "
        "poucas frases, por favor.",
        "en": "Your message is too long ({reason}). Please ask in a few sentences.",
    },
    "refusal.PINJ": {
        "pt": "Não posso mudar minhas instruções nem os filtros dos dados, e só "
        "consulto os seus próprios dados ({label} {tenant}). Faça a "
        "pergunta sobre os seus dados, por favor.",
        "en": "I cannot change my instructions or the data filters, and I only "
        "read your own data ({label} {tenant}). Please ask about your own "
        "data.",
    },
    "refusal.PINJ_ONE": {
        "pt": "Não posso mudar minhas instruções nem os filtros dos dados. Faça a pergunta "
        "sobre os dados, por favor.",
        "en": "I cannot change my instructions or the data filters. Please ask about the data.",
    },
    "refusal.OOS": {
        "pt": "Essa pergunta está fora do que sei responder. Consulto os seus "
        "dados de {topics}, e explico termos do negócio.{examples}",
        "en": "That question is outside what I can answer. I read your data on "
        "{topics}, and explain business terms.{examples}",
    },
    "refusal.UNCHECKED": {
        "pt": "Não consegui verificar sua mensagem agora ({code}), então "
        "ela não foi processada. Tente novamente em instantes.",
        "en": "I could not check your message just now ({code}), so it was "
        "not processed. Please try again shortly.",
    },
    "refusal.OTHER": {
        "pt": "Não posso responder a essa mensagem ({code}). Reformule a pergunta, por favor.",
        "en": "I cannot answer that message ({code}). Please rephrase your question.",
    },
    "for_example": {"pt": " Por exemplo: {examples}.", "en": " For example: {examples}."},
    "greeting": {
        "pt": "Olá, eu sou {assistant}! Posso consultar {topics} nos seus dados, ou "
        "explicar um termo do negócio.",
        "en": "Hello, I'm {assistant}! I can look up {topics} in your data, or "
        "explain a business term.",
    },
    "not_yours": {
        "pt": "\n"
        "\n"
        "Observação: você só tem acesso aos dados da sua própria conta; "
        "esta resposta não traz dados de {name}.",
        "en": "\n"
        "\n"
        "Note: you can only see your own account's data; this answer does not "
        "include data of {name}.",
    },
    "unverified.fail": {
        "pt": "Atenção: não consegui confirmar esta resposta por completo ({names}).",
        "en": "Note: I could not fully verify this answer ({names}).",
    },
    "unverified.error": {
        "pt": "Atenção: a verificação desta resposta não pôde ser concluída ({names}).",
        "en": "Note: this answer's checks could not be completed ({names}).",
    },
    "stop.MAX_SQL_ATTEMPTS": {
        "pt": "Não encontrei dados para essa pergunta. Tentei {n} "
        "{n|consulta|consultas} e {n|ela não retornou linhas|nenhuma retornou linhas}:",
        "en": "I found no data for this question. I tried {n} {n|query|queries} and "
        "{n|it returned no rows|none returned rows}:",
    },
    "stop.MAX_FIX_ATTEMPTS": {
        "pt": "Não consegui montar uma consulta válida para essa "
        "pergunta depois de {n} {n|tentativa|tentativas}. O que tentei:",
        "en": "I could not build a valid query for this question after "
        "{n} {n|attempt|attempts}. What I tried:",
    },
    "stop.MODEL_BUDGET": {
        "pt": "Interrompi esta resposta porque ela atingiu o limite de "
        "chamadas ao modelo por pergunta. Tente reformular a pergunta "
        "de forma mais direta.",
        "en": "I stopped this answer because it reached the limit of model "
        "calls per question. Try asking more directly.",
    },
    "stop.MODEL_OUTPUT_INVALID": {
        "pt": "O modelo de linguagem respondeu num formato inválido "
        "e não consegui continuar. Tente novamente em "
        "instantes.",
        "en": "The language model answered in an invalid format and "
        "I could not go on. Please try again shortly.",
    },
    "stop.NO_SQL": {
        "pt": "Não consegui relacionar sua pergunta aos dados disponíveis "
        "({reason}). Posso responder sobre: {topics}.",
        "en": "I could not map your question to the available data ({reason}). I "
        "can answer about: {topics}.",
    },
    "stop.last_error": {"pt": "Último erro", "en": "Last error"},
    "stop.ANSWER_REFUSED": {
        "pt": "Não vou apresentar o que encontrei como resposta: o resultado não responde à "
        "pergunta como ela foi feita ({reason}). Tente reformular, dizendo o que quer ver.",
        "en": "I won't present what I found as the answer: the result does not answer the "
        "question as it was asked ({reason}). Try rephrasing it, saying what you want to see.",
    },
    "stop.refused_unsaid": {
        "pt": "um verificador recusou o resultado",
        "en": "a check refused the result",
    },
    "shape.names": {
        "pt": "a pergunta pede nomes, e o resultado só tem números",
        "en": "the question asks which ones, and the result holds only figures",
    },
    "shape.each": {
        "pt": "a pergunta pede um valor para cada grupo, e o resultado é um só número",
        "en": "the question asks a figure for each group, and the result is one number",
    },
    "shape.one": {
        "pt": "a pergunta pede um só número, e o resultado é uma lista de linhas",
        "en": "the question asks one figure, and the result is a list of rows",
    },
    "stop.model_failed": {
        "pt": "Encontrei {rows} {rows|linha, que está|linhas, que estão} na tabela, mas não "
        "consegui redigir a resposta: {message} [{code}]",
        "en": "I found {rows} {rows|row|rows}, shown in the table, but could not "
        "write the answer: {message} [{code}]",
    },
    "offline.chat": {
        "pt": "Eu sou {assistant}, seu assistente de dados. Consulto {topics} "
        "nos seus dados, calculo totais e rankings e explico termos do "
        "negócio.",
        "en": "I'm {assistant}, your data assistant. I can look up {topics} in "
        "your data, compute totals and rankings, and explain business "
        "terms.",
    },
    "offline.try": {"pt": " Experimente: {examples}.", "en": " Try: {examples}."},
    "offline.none_matched": {
        "pt": "Nenhum registro atende a essa pergunta, então não há {what} a mostrar.",
        "en": "No records match this question, so there is no {what} to show.",
    },
    "answer.reviewed_example": {
        "pt": "Respondi a partir de um exemplo revisado, com os valores da sua pergunta.",
        "en": "I answered from a reviewed example, with your question's values.",
    },
}


def language(lang: str | None) -> str:
    """`lang` if there are texts in it, else the fallback."""
    return lang if lang in LANGUAGES else FALLBACK


def say(key: str, lang: str | None, **values: object) -> str:
    """The text `key` in `lang` (English when that language has none), filled with `values`.

    >>> say("stop.last_error", "pt")
    'Último erro'
    >>> say("stop.last_error", "de")
    'Last error'
    """
    texts = TEXTS[key]
    return plural(texts.get(lang or FALLBACK, texts[FALLBACK]), values).format(**values)


PLURAL = re.compile(r"\{(\w+)\|([^{}|]*)\|([^{}|]*)\}")
"""`{n|singular|plural}`: the form that agrees with the count `n`."""


def plural(text: str, values: Mapping[str, object]) -> str:
    """`text` with each `{n|singular|plural}` replaced by the form that agrees with the
    value `n` (singular for exactly one, as English and Brazilian usage both write "0
    linhas"); the count itself stays a `{n}` field.

    >>> plural("{n} {n|row|rows}", {"n": 1}), plural("{n} {n|row|rows}", {"n": "12"})
    ('{n} row', '{n} rows')
    """

    def form(found: re.Match[str]) -> str:
        one = str(values[found[1]]).strip() in ("1", "1.0", "-1")
        return found[2] if one else found[3]

    return PLURAL.sub(form, text)


def counted(n: int, one: str, many: str) -> str:
    """A count with its noun in agreement, for the operator's English lines.

    >>> counted(1, "row", "rows"), counted(0, "row", "rows")
    ('1 row', '0 rows')
    """
    return f"{n} {one if n == 1 else many}"
