"""A question's word names a thing, or is used as a verb or an adjective, by its neighbours
(services/actions/word_roles.py): what the check of words never mentioned reads (issue #27)."""

from __future__ import annotations

import re

from services.actions.word_roles import modifies_next, names_a_thing


def things(question: str) -> list[str]:
    words = re.findall(r"[A-Za-z]+(?:[-'][A-Za-z]+)*", question)
    return [w for i, w in enumerate(words) if names_a_thing(words, i)]


def test_a_word_spelled_like_a_noun_is_a_verb_after_its_subject_or_to():
    assert "ship" not in things("What is the catch when I ship the code inside my app?")
    assert "bundle" not in things("Can I bundle the code into a bigger program?")
    assert "flag" not in things("What do I have to flag?")
    assert "use" not in things("Can I keep changes private if I only use them in-house?")


def test_a_phrasal_verb_and_a_verb_with_its_object_are_verbs():
    assert "turns" not in things("Who pays for repairs if the software turns out to be buggy?")
    assert "breaks" not in things("If my company breaks the licence, what happens?")


def test_an_adjective_after_be_is_no_thing():
    assert "buggy" not in things("Who pays if the software turns out to be buggy?")


def test_nouns_stay_nouns_where_the_question_puts_them():
    # A modal before its subject: the subject is a noun ("must banks maintain", "must staff do").
    assert "banks" in things("What leverage ratio must banks maintain?")
    assert "staff" in things("How often must staff do AML training?")
    # After a determiner, before a particle: "its rights back".
    assert "rights" in things("If my company breaks the licence, can it get its rights back?")
    # A clause after "that" is no object: "tools that a team buys".
    assert "tools" in things("Does the standard cover SaaS tools that a team buys on its own?")
    assert "catch" in things("What is the catch when I ship the code?")


def test_a_capitalised_word_is_part_of_a_name():
    assert "Creative" in things("Is Creative Commons a law firm?")


def test_an_inflected_verb_that_is_also_a_rare_noun_is_the_verb():
    assert "fell" not in things("Why net sales fell and margins rose")
    assert "rose" not in things("Why net sales fell and margins rose")
    assert "sales" in things("Why net sales fell and margins rose")


def test_a_determiner_the_lexicon_lists_as_a_noun_names_nothing():
    assert "another" not in things("Can employees work from another country?")
    assert "each" not in things("What does each contributor grant?")
    # Prepositions and number words the lexicon lists as nouns name nothing either.
    assert "during" not in things("Did cash fall during fiscal 2024?")
    assert "seven" not in things("Which of the seven divisions grew most?")
    # Nor do indefinite pronouns: they stand for the answer.
    assert "anything" not in things("Do I owe the authors anything when I sell copies?")
    assert "something" not in things("Is it fine to bundle this in something I charge for?")
    assert "authors" in things("Do I owe the authors anything when I sell copies?")


def modifiers(question: str) -> list[str]:
    words = re.findall(r"[A-Za-z]+(?:[-'][A-Za-z]+)*", question)
    return [w for i, w in enumerate(words) if modifies_next(words, i)]


def test_a_noun_before_a_noun_names_its_kind():
    assert "payroll" in modifiers("How long are payroll records kept?")
    assert "cloud" in modifiers("Which cloud provider does Northwind use?")
    # An adjective the lexicon knows describes; a capitalised word is part of a name.
    assert "annual" not in modifiers("What are the annual fees?")
    assert "Growth" not in modifiers("Who manages the Growth Plus fund?")
    # A hyphenated word with an adjective or a participle among its parts describes too.
    assert modifiers("How many full-time equivalent employees are there?") == []
    assert "firm-wide" not in modifiers("What drove the firm-wide provision?")
    assert "company-operated" not in modifiers("How many company-operated stores are there?")
    assert "loan-to-value" in modifiers("What is the loan-to-value ratio?")
    # A time says when, not which kind.
    assert "year-end" not in modifiers("What were year-end accounts payable?")


def test_a_subject_before_its_verb_modifies_nothing():
    question = "What happens if a court finds part of it unenforceable?"
    assert "court" not in modifiers(question) and "finds" not in modifiers(question)
    assert "program" not in modifiers("What should an interactive program print?")
    assert "license" not in modifiers("Does the Apache license cost money?")
    # A plural noun before a verb's base form is its subject; a compound's first part is singular.
    assert "equivalents" not in modifiers("Did cash equivalents fall during 2024?")
    assert "sanctions" in modifiers("Which sanctions lists apply?")
    # After a pronoun subject the verb has come: a later noun before a noun names a kind.
    assert "brand" in modifiers("Can I use the project logo and brand name?")
