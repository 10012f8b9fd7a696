"""Questions about what a term means, in the many ways people ask them: "o que conta como
X", "what do you mean by X", "qual a diferença entre X e Y", "how is X calculated", "does X
count as Y". They are the languages' own wordings, never a deployment's: the term itself is
found by the lexicon (a glossary or catalog phrase), and a question that also asks for
values (broken down, over a period, ranked, "the"/"our" value) stays a data question.

Each wording is a template of concepts (`{what_pronoun} {is_or_means}`), filled with one
language's words at a time: a language asks with the templates whose concepts it has all of,
and never with another language's words in between ("what significa" is no wording).
"""

from __future__ import annotations

import re

from orquestra.offline.lang import each_language, mapping

CONTRACTED = mapping("contractions")
"""Contractions read spelled out ("what's" → "what is"), matched with either apostrophe."""
CONTRACTIONS = re.compile(
    r"\b(?:" + "|".join(re.escape(c).replace("'", "['’]") for c in CONTRACTED) + r")\b"
)

WORDINGS = (
    r"^{what_pronoun} {is_or_means}\b",
    r"\b{what_pronoun} {counts_as_verbs} {counts_as_links}\b",
    r"\b{what_pronoun} {deciders} {call_verbs}\b",
    r"\b{call_verbs} {call_links}\b",
    r"\b{which_one} (?:{would_be} )?(?:{definite_singular} )?{definition_nouns}\b",
    r"\b{difference_nouns} {between}\b",
    r"\b{how} {is_are_was} {measured_participle_stems}\w*",
    r"\b{how} (?:{reflexive_pronoun} )?{worked_out_verbs}\b",
    r"\b{how} {system_subjects} {reckoning_verbs}\b",
    r"\b{is_or_stays} {considered}\b",
    r"\b{counts_verbs} {counts_links}\b",
    r"^(?:{me_pronoun} )?{explain_verbs}\b",
    r"^{explain_verbs}\b",
    r"^{why_openers}\b",
    r"^{permission_asks}\b(?! {lookup_verbs}\b)",
    r"\b{meaning_verbs}\b",
    # a rule, asked of any one ("qual o prazo pra entregar uma tarefa?"); of a numbered one the
    # question is data (`asks_what_it_means` is only read when no row is named)
    r"\b{which_one} (?:{is_word} )?(?:{masculine_article} )?{limit_nouns} {for_to} \w+r"
    r" {case_determiners}\b",
    r"\b{which_one} (?:{is_word} )?(?:{masculine_article} )?{limit_nouns} {limit_links}"
    r" {indefinite_articles}\b",
    # "CFOP — o que é esse código?", "what is that code?": a thing just named, asked what it is
    r"\b{what_pronoun} {is_are} {demonstratives}\b",
    r"\b{when} {deciders} {classify_verbs}\b",
    r"\b{for_to} {what_for} {serve_verbs}\b",
    # a procedure: "o que preciso fazer pra liberar?"; a rule in a case: "se uma tarefa …"
    r"\b{what_pronoun} (?:{we_subjects} |{plain_articles} \w+ )?{need_to} {do_verb}\b",
    r"^{if_word} {case_determiners} (?!.*\d)",
    r"^{what_pronoun} {is_are_do}\b(?! {own_or_total}\b)",
    r"\b{what_pronoun} (?:{precisely} )?{does_do} .+ {stand_for}\b",
    # a procedure: "how does an order get approved?"
    r"\b{how} {does_can} {owner_determiners} [\w ]+ {get_verb} \w+{passive_participle_endings}\b",
    r"\b{what_pronoun} {does_do} {meaning_subjects} {mean_verbs}\b",
    r"\b{what_pronoun} {is_are} {meant_by}\b",
    r"\b{what_pronoun} (?:{precisely} )?{qualifies_as}\b",
    r"^{does_do} (?:{some_determiners} )?[\w -]+ {include_verbs}\b",
    r"\b{who_pronoun} {allowed_to} {release_verbs}\b",
    r"\b{is_are} {regarded} {as_a}\b",
    r"\b{become} {classed_as}\b",
    # "when do you consider a load late?", "when is an order considered late?"
    r"\b{when} {does_do} {judges} {consider_verbs}\b",
    r"\b{when} {is_are} .+ {regarded}\b",
    r"\b{how} {does_do} (?:{some_determiners} )?[\w -]+ {work_verb}\b",
    r"\b{what_is_the} {deadline_nouns} {deadline_links} {any_determiners}\b",
    r"\b{how_long} {does_do} (?:{askers}|{a_the} \w+) {have_get_to}\b",
    r"\b{how} {is_are} .+ {determined}\b",
    r"\b{how} {is_are} .+ {worked_out}\b",  # "how is the delinquency rate worked out?"
    r"\b{how} {does_do} {reckoners} {reckon_verbs}\b",
    r"\b{what_pronoun} {goes_into}\b",
    r"\b{how} {is_are} (?:{the_a_an} )?[\w ]+ {set_verbs} {set_links}\b",
    r"\b{what_pronoun} {should_do} {doers} (?:{obliged_to} )?{do_verb}\b",
    r"\b{what_is_the} {definition_nouns}\b",
    r"\b{definition_of}\b",
    r"\b{would_does} .+ {count_toward}\b",
    r"\b{what_pronoun} {is_are} .+ {used_for}\W*$",
)
"""The wordings of a question about what something means or how it is defined."""
PROCEDURES = (
    # a procedure or the rule it follows, asked anywhere, even of one's own rows ("tenho
    # uma tarefa travada, como faço pra liberar?", "minha tarefa travou, o que eu faço?")
    # (not "como faço pra saber quantos…": a way to the data is the data)
    r"\b{how} (?:{we_subjects} )?{manage_verbs} {for_to} (?!{finding_verbs}\b)\w+r\b",
    r"\b{what_pronoun} (?:{we_subjects} )?{do_we}(?:\s*[?.!]|\s*$|\s+{do_we_links}\b)",
    r"\b{which_ones} (?:{is_are_would} )?(?:{plain_articles} )?{procedure_nouns}\b",
    # "quem pode liberar uma tarefa?" (not "quem costuma atrasar mais": a ranking)
    r"\b{who_pronoun} {may_must} \w+r\b(?!.*\b{ranking_or_day_words}\b)",
    r"\b{that_pronoun} {policy_subjects} {use_verbs}\b",
    r"\b{how} {am_is_are} {askers} {supposed_to}\b",
    r"\b{how} {did_does} {definers} {defining_verbs}\b",
)
"""The wordings of a question about how something is done, or the rule it follows."""

# each template filled with one language's words at a time, as spelled (in the data's order,
# a space one space)
PROCEDURE = re.compile(each_language(*PROCEDURES, longest_first=False, any_spaces=False))
CONCEPT = re.compile(each_language(*WORDINGS, *PROCEDURES, longest_first=False, any_spaces=False))


def _spelled_out(text: str) -> str:
    return CONTRACTIONS.sub(lambda said: CONTRACTED[said[0].replace("’", "'")], text)


def asks_what_it_means(text: str) -> bool:
    """`text` (folded) asks what something means or how it is defined, in either language.

    >>> asks_what_it_means("o que conta como atraso?"), asks_what_it_means("what's OTIF?")
    (True, True)
    >>> asks_what_it_means("quantos pedidos atrasaram?")
    False
    """
    return bool(CONCEPT.search(_spelled_out(text)))


def asks_a_procedure(text: str) -> bool:
    """`text` (folded) asks how something is done or worked out: knowledge even where it
    also names data ("tenho uma tarefa travada, como faço pra liberar?")."""
    return bool(PROCEDURE.search(_spelled_out(text)))
