"""Questions about what a term means, in the many ways people ask them: "o que conta como
X", "what do you mean by X", "qual a diferença entre X e Y", "how is X calculated", "does X
count as Y". They are the languages' own wordings, never a deployment's: the term itself is
found by the lexicon (a glossary or catalog phrase), and a question that also asks for
values (broken down, over a period, ranked, "the"/"our" value) stays a data question.
"""

from __future__ import annotations

import re

CONTRACTIONS = re.compile(r"\b(what|that|who|how|where|it)['’]s\b")

PORTUGUESE = (
    r"^o que (e|sao|significa|significam|quer dizer|querem dizer|seria|seriam)\b",
    r"\bo que (conta|contam|entra|entram|caracteriza|define|configura|compoe|compoem)"
    r" (como|no|na|nos|nas|em|um|uma|o|a|nesse|nessa|neste|nesta|nesses|nessas)\b",
    r"\bo que (voces?|a empresa|o sistema) (chama|chamam|entende|entendem|considera|consideram)\b",
    r"\b(chamam|chama|entendem|entende|consideram|considera) (de|por|como)\b",
    r"\bqual (e |seria )?(a |o )?"
    r"(diferenca|definicao|significado|conceito|formula|regra|criterio)\b",
    r"\b(diferenca|diferencas) entre\b",
    r"\bcomo (e|sao|esta|estao|foi) (calculad|definid|medid|apurad|contad|considerad)\w*",
    r"\bcomo (se )?(calcula|define|mede|apura|conta|considera|funciona|funcionam)\b",
    r"\bcomo (voces?|o sistema)"
    r" (calcula|calculam|define|definem|mede|medem|considera|consideram|conta|contam)\b",
    r"\b(e|sao|fica|ficam|esta|estao) considerad[oa]s?\b",
    r"\b(conta|contam|entra|entram) (como|no|na|nos|nas)\b",
    r"^(me )?(expli(que|ca|car|cacao)|defin(a|e|ir|icao)|descreva|descreve)\b",
    r"^(por que|porque|por qual motivo|o que acontece|como faco|devo|devemos)\b",
    r"^(posso|podemos)\b(?! (ver|saber|consultar|listar|obter|ter|conferir)\b)",
    r"\bsignifica(do)?\b",
    r"\b(quer|querem) dizer\b",  # "OTIF quer dizer o quê?"
    # a rule, asked of any one ("qual o prazo pra entregar uma tarefa?"); of a numbered one the
    # question is data (`asks_what_it_means` is only read when no row is named)
    r"\bqual (e )?(o )?(prazo|tempo maximo|limite) (pra|para) \w+r (um|uma|o|a|os|as)\b",
    r"\bqual (e )?(o )?(prazo|tempo maximo|limite) (de|do|da|pra|para) (um|uma)\b",
    # "CFOP — o que é esse código?": a thing just named, asked what it is
    r"\bo que (e|sao) (isso|isto|esse|essa|esses|essas|este|esta|aquilo|aquele|aquela)\b",
    r"\bquando (voces?|a empresa|o sistema) (considera|consideram|conta|contam|classifica)\b",
    r"\b(pra|para) (que|o que) (serve|servem)\b",
    # a procedure: "o que preciso fazer pra liberar?"; a rule in a case: "se uma tarefa …"
    r"\bo que (eu |a gente |nos |(o|a|os|as) \w+ )?(preciso|precisa|precisamos|precisam|devo"
    r"|deve|devemos|devem|tenho que|temos que|tem que|tem de) fazer\b",
    r"^se (um|uma|o|a|os|as) (?!.*\d)",
)
ENGLISH = (
    r"^what (is|are|does|do)\b(?! (my|our|your|total)\b)",
    r"\bwhat (exactly |precisely )?(does|do) .+ (mean|stand for)\b",
    r"\bhow (does|do|can|would) (a|an|the|one|my|our) [\w ]+ get \w+(ed|en)\b",  # a procedure
    r"\bwhat (do|does) (you|we|it|the system) (mean|call|consider|count)\b",
    r"\bwhat (is|are) meant by\b",
    r"\bwhat (exactly |precisely )?(counts|qualifies|is considered|are considered|is regarded)"
    r" as\b",
    r"^(does|do) (the |an? |our )?[\w -]+ (include|cover|take in|count)\b",
    r"\bwho (can|may|is allowed to|gets to) (release|approve|sign|unblock|unlock|authori[sz]e"
    r"|cancel|change|edit)\b",
    r"\b(is|are) (considered|regarded|classed|classified|counted) (as|a|an)\b",
    r"\b(get|gets|be|become|becomes) (considered|classed|classified|counted) as\b",
    # "when do you consider a load late?", "when is an order considered late?"
    r"\bwhen (do|does) (you|we|one|the system|the company) (consider|count|call|class|classify)\b",
    r"\bwhen (is|are) .+ (considered|regarded|classed|classified|counted)\b",
    r"\bwhat (is|are) (that|this|these|those)\b",  # "CFOP — what is that code?"
    r"\bhow (does|do) (the |a |an |our )?[\w -]+ work\b",
    r"\bwhat is the (deadline|time limit|sla|turnaround) (for|of|on) (a|an|any)\b",
    r"\bhow long (do|does) (we|you|i|one|a \w+|the \w+) (have|get) to\b",
    r"\bhow (do|does) (you|we|one|it|the system) (define|calculate|compute|measure|count|work)\b",
    r"\bhow (is|are) .+ (defined|calculated|computed|measured|counted|handled|determined)\b",
    r"\bhow (is|are) .+ (worked|figured) out\b",  # "how is the delinquency rate worked out?"
    r"\bwhat (goes|go|is included|are included) in(to)?\b",
    r"\bhow (is|are) (the |a |an )?[\w ]+ (set|established|decided) (for|by|when|in|on)\b",
    r"\bwhat (do|should|must) (i|we|you) (need to |have to )?do\b",
    r"^if (a|an|the|one|some) (?!.*\d)",
    r"\b(difference|differences) between\b",
    r"\bwhat is the (difference|definition|meaning|formula|rule)\b",
    r"\b(definition|meaning) of\b",
    r"\b(does|do|would|should) .+ count (as|in|toward|towards|for)\b",
    r"^(explain|define|describe|tell me about|tell me what)\b",
    r"^(why|how come|what happens|how do i|should i)\b",
    r"\bwhat (is|are) .+ (used )?for\W*$",
    r"\b(purpose|point) of\b",
    r"^(can|may) (i|we)\b(?! (see|know|get|list|check|have)\b)",
)
PROCEDURES = (
    # a procedure or the rule it follows, asked anywhere, even of one's own rows ("tenho
    # uma tarefa travada, como faço pra liberar?", "minha tarefa travou, o que eu faço?")
    # (not "como faço pra saber quantos…": a way to the data is the data)
    r"\bcomo (eu |a gente |nos )?(faco|fazemos|consigo|conseguimos|posso|podemos|devo|devemos)"
    r" (pra|para) (?!(saber|ver|consultar|conferir|achar|encontrar|descobrir|listar|tirar"
    r"|obter|pegar|puxar)\b)\w+r\b",
    r"\bo que (eu |a gente |nos )?(faco|fazemos)(\s*[?.!]|\s*$|\s+(pra|para|quando|se|agora"
    r"|nesse|neste)\b)",
    r"\b(qual|quais) (e |sao |seria )?(o |a |os |as )?(procedimento|processo|passo a passo"
    r"|passos)\b",
    # "quem pode liberar uma tarefa?" (not "quem costuma atrasar mais": a ranking)
    r"\bquem (pode|deve) \w+r\b(?!.*\b(mais|menos|amanha|hoje)\b)",
    r"\bque (voces|a empresa|o sistema) (usa|usam|utiliza|utilizam|adota|adotam|aplica|aplicam)\b",
    r"\bhow (are|am|is) (we|i|you|one) supposed to\b",
    r"\bhow (do|does|did) (you|we|one|the system) (define|calculate|compute|measure|work out)\b",
)
PROCEDURE = re.compile("|".join(f"(?:{p})" for p in PROCEDURES))
CONCEPT = re.compile("|".join(f"(?:{p})" for p in (*PORTUGUESE, *ENGLISH, *PROCEDURES)))


def asks_what_it_means(text: str) -> bool:
    """`text` (folded) asks what something means or how it is defined, in either language."""
    return bool(CONCEPT.search(CONTRACTIONS.sub(r"\1 is", text)))


def asks_a_procedure(text: str) -> bool:
    """`text` (folded) asks how something is done or worked out: knowledge even where it
    also names data ("tenho uma tarefa travada, como faço pra liberar?")."""
    return bool(PROCEDURE.search(CONTRACTIONS.sub(r"\1 is", text)))
