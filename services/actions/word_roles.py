"""Whether a word of a question names a thing, read in its sentence (issue #27, honest confidence).

English spells many verbs and adjectives like nouns ("ship", "breaks", "flag", "buggy"). A question's
word names a thing when lemminflect's lexicon knows it as a noun, or does not know it at all (a name,
a term of art), unless its neighbours say it is used otherwise:
- after a determiner it names a thing ("its rights back", "the catch");
- after a subject pronoun or "to" it is a verb ("if I ship", "can I bundle", "to flag"), also with
  one adverb between ("if I only use"); not after a modal, which a question puts before its subject
  ("must banks maintain", "must staff do");
- before a particle it is a phrasal verb ("turns out", "stack up", "take back");
- ending in -s before an article or a possessive it is a verb with its object ("my company breaks
  the licence"), but not before "that" or "this", which start clauses as often ("tools that a team
  buys");
- after a form of "be" a word the lexicon knows as an adjective is one ("turns out to be buggy").
A determiner or quantifier the lexicon also lists as a noun ("another", "each") names nothing.
A capitalised word inside the question is part of a name ("Is Creative Commons a law firm?") and is
read by the lexicon alone. A word misread as a verb is only left unchecked; a verb misread as a noun
can be reported as never mentioned, which is what these rules prevent. Nothing here is a tagger:
questions are short, and the rules need only the two neighbours.
"""

from __future__ import annotations

from collections.abc import Sequence

from lemminflect import getAllLemmas

from shared.text.numbers import NUMBER_WORDS

# Who does something, and the infinitive's "to": a verb follows.
_BEFORE_VERB = frozenset(("i", "you", "we", "they", "he", "she", "it", "who", "to"))
_ADVERBS = frozenset(("only", "also", "just", "still", "ever", "never", "not", "really", "first"))
_PARTICLES = frozenset(("out", "up", "off", "back", "down", "away", "over"))
_DETERMINERS = frozenset(
    ("the", "a", "an", "my", "your", "his", "her", "its", "our", "their", "any", "some", "every", "each")
)
_OBJECTS = _DETERMINERS | {"them", "him", "us", "me"}
_ONE = frozenset(("a", "an", "each", "every"))
# Words that end a plain noun phrase or join two.
_PHRASE_BREAKS = frozenset(
    ("and", "or", "of", "for", "to", "in", "on", "with", "by", "from", "at", "as", "that", "which")
)
_AUXILIARIES = frozenset(
    ("do", "does", "did", "can", "could", "may", "might", "must", "shall", "should", "will", "would")
)
_BE = frozenset(("be", "is", "are", "was", "were", "been", "being", "am"))
# Determiners, quantifiers and prepositions the lexicon also lists as nouns: they say which, how many
# or where, and name nothing (number words as well: "seven divisions").
_PREPOSITIONS = frozenset(
    (
        *("about", "above", "across", "after", "against", "along", "among", "around", "before", "behind"),
        *("below", "beneath", "beside", "between", "beyond", "during", "except", "inside", "into", "near"),
        *("onto", "outside", "over", "since", "through", "throughout", "toward", "towards", "under"),
        *("until", "upon", "within", "without"),
    )
)
_TIME_UNITS = frozenset(
    ("day", "days", "week", "weeks", "month", "months", "quarter", "quarters", "year", "years", "period", "periods")
)
_QUANTIFIERS = frozenset(
    ("another", "other", "others", "each", "some", "many", "such", "both", "neither", "any", "all")
)
# Indefinite pronouns the lexicon lists as nouns ("Do I owe the authors anything"): they stand for
# what the answer is, and name nothing the documents must mention.
_PRONOUNS = frozenset(
    (
        *("anything", "something", "everything", "nothing", "anyone", "someone", "everyone"),
        *("anybody", "somebody", "everybody", "nobody", "none", "whatever", "whoever"),
    )
)


def names_a_thing(words: Sequence[str], i: int) -> bool:
    """Whether `words[i]` (a question's words in order) names a thing where it stands (see above).
    A verb's inflected form that is also a noun's base form ("fell", "rose", "saw") is read as the verb."""
    low = words[i].lower()
    if low in _QUANTIFIERS or low in _PRONOUNS or low in _PREPOSITIONS or low in NUMBER_WORDS:
        return False
    parts = getAllLemmas(low)
    if not parts:
        return True
    nouns = (*parts.get("NOUN", ()), *parts.get("PROPN", ()))
    inflected_verb = any(lemma != low for lemma in parts.get("VERB", ()))
    if not nouns or (inflected_verb and all(lemma == low for lemma in nouns)):
        return False
    before = [w.lower() for w in words[max(0, i - 2) : i]]
    if words[i] != low or (before and before[-1] in _DETERMINERS):
        return True
    after = words[i + 1].lower() if i + 1 < len(words) else ""
    if "VERB" in parts and _used_as_verb(low, before, after):
        return False
    return not ("ADJ" in parts and before and before[-1] in _BE)


def _used_as_verb(low: str, before: list[str], after: str) -> bool:
    if before and before[-1] in _BEFORE_VERB:
        return True
    if len(before) == 2 and before[1] in _ADVERBS and before[0] in _BEFORE_VERB:
        return True
    return after in _PARTICLES or (low.endswith("s") and after in _OBJECTS)


def modifies_next(words: Sequence[str], i: int) -> bool:
    """Whether `words[i]` is a noun that modifies the next word as a compound's first part ("payroll
    records", "loan-to-value ratio"). Not when it is capitalised (part of a name), a word that
    describes (`_describes`: "extra", "annual", "full-time"), a time ("year-end": it says when), a
    subject before its verb ("a court finds", "What should a program print", "Does the licence cost
    money"), or that verb ("finds part")."""
    if i + 1 >= len(words) or not words[i].islower() or _describes(words[i].lower()) or _when(words[i].lower()):
        return False
    if not (names_a_thing(words, i) and names_a_thing(words, i + 1)):
        return False
    if _subject_and_verb(words, i) or _subject_and_verb(words, i - 1) or _verb_after_auxiliary(words, i + 1):
        return False
    return not (_verb_after_auxiliary(words, i) and i > 0 and words[i - 1].lower() not in _DETERMINERS)


def _describes(low: str) -> bool:
    """A word the lexicon reads as an adjective, or a hyphenated one with an adjective or a participle
    among its parts ("full-time", "firm-wide", "company-operated"; not "loan-to-value")."""
    parts = low.split("-")
    return any("ADJ" in getAllLemmas(part) for part in parts) or (
        len(parts) > 1 and any(_participle(part) for part in parts)
    )


def _when(low: str) -> bool:
    """A word naming a time ("year-end", "quarter-end", "month"): it says when, not which kind."""
    return any(part in _TIME_UNITS for part in low.split("-"))


def _participle(part: str) -> bool:
    return part.endswith(("ed", "en")) and any(lemma != part for lemma in getAllLemmas(part).get("VERB", ()))


def _verb_after_auxiliary(words: Sequence[str], i: int) -> bool:
    """`words[i]` is a verb's base form right after the subject an auxiliary put first ("What should an
    interactive program print"). A pronoun subject has its verb next to it ("Can I use the brand
    name": "name" is no verb), and the subject is one plain noun phrase, no "and" or "of" in it."""
    low = words[i].lower()
    aux = max((j for j in range(i) if words[j].lower() in _AUXILIARIES), default=None)
    if aux is None or aux + 1 >= i or words[aux + 1].lower() in _BEFORE_VERB:
        return False
    subject = {w.lower() for w in words[aux + 1 : i]}
    return not subject & _PHRASE_BREAKS and low in getAllLemmas(low).get("VERB", ())


def _subject_and_verb(words: Sequence[str], i: int) -> bool:
    """`words[i]` is a subject and the next word its verb: a singular noun after "a", "each" or "every"
    before a word ending in -s ("a court finds"), or a plural noun before a verb's base form ("cash
    equivalents fall"; a compound's first part is singular: "payroll records")."""
    if i < 0 or i + 1 >= len(words):
        return False
    low, after = words[i].lower(), words[i + 1].lower()
    if i > 0 and words[i - 1].lower() in _ONE:
        return after.endswith("s") and not after.endswith("ss")
    plural = any(lemma != low for lemma in getAllLemmas(low).get("NOUN", ())) and low.endswith("s")
    return plural and after in getAllLemmas(after).get("VERB", ())
