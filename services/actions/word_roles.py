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
A capitalised word inside the question is part of a name ("Is Creative Commons a law firm?") and is
read by the lexicon alone. A word misread as a verb is only left unchecked; a verb misread as a noun
can be reported as never mentioned, which is what these rules prevent. Nothing here is a tagger:
questions are short, and the rules need only the two neighbours.
"""

from __future__ import annotations

from collections.abc import Sequence

from lemminflect import getAllLemmas

# Who does something, and the infinitive's "to": a verb follows.
_BEFORE_VERB = frozenset(("i", "you", "we", "they", "he", "she", "it", "who", "to"))
_ADVERBS = frozenset(("only", "also", "just", "still", "ever", "never", "not", "really", "first"))
_PARTICLES = frozenset(("out", "up", "off", "back", "down", "away", "over"))
_DETERMINERS = frozenset(
    ("the", "a", "an", "my", "your", "his", "her", "its", "our", "their", "any", "some", "every", "each")
)
_OBJECTS = _DETERMINERS | {"them", "him", "us", "me"}
_BE = frozenset(("be", "is", "are", "was", "were", "been", "being", "am"))


def names_a_thing(words: Sequence[str], i: int) -> bool:
    """Whether `words[i]` (a question's words in order) names a thing where it stands (see above).
    A verb's inflected form that is also a noun's base form ("fell", "rose", "saw") is read as the verb."""
    low = words[i].lower()
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
