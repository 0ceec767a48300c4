"""What a question asks about that the reader's documents never mention (issue #27, honest confidence).

A question beside the documents' subjects ("What leverage ratio must institutions hold?" over a
capital guideline that sets capital ratios, "How many days of annual leave do Northwind employees
get?" over Northwind's retention policy) shares most of its words with a passage, and its vector
comes close to one: similarity alone answers it with confidence. What gives it away is a word it
asks about that nothing the reader may search holds ("leverage", "leave"). Such a word makes the
evidence "low" (services/actions/evidence.py), so the user is asked `retrieval_low` and the answer
says the documents do not answer it.

A word counts as mentioned when:
- a passage, its document's title or its section holds it (by its first letters, as sentence
  evidence matches words), or the full-text index finds it, stemmed, in any ready document the
  reader may see (shared/db/vocabulary.py);
- it is an abbreviation the passages, their titles or sections write out ("MLRO": Money Laundering
  Reporting Officer; "GDPR" of a document titled "General Data Protection Regulation");
- a passage word is close to it in the embedder's space ("licence" ~ "license", "CCTV" ~
  "television"), at `NEAR` or above.
A noun that modifies the next noun of the question ("payroll records", "loan-to-value ratio"; what
is and is not such a compound: `word_roles.modifies_next`) names the kind of the thing. When the
passages hold that thing literally, under modifiers of their own ("customer account records",
"tier 1 ratio"), a modifier they do not hold is a kind they do not list: another document's use of
the word, or a passage word near it ("payroll" ~ "employee", "mortgage" ~ "lending"), does not
mention it; only the same word, spelt or inflected otherwise ("licence" ~ "license", at `SAME` or
above), does.
Only a word that can name a thing where the question puts it is checked (a noun in lemminflect's
English lexicon, or a word it does not know: a name, a term of art; read with its neighbours, so
"if I ship" is a verb: services/actions/word_roles.py). A verb or an adverb says what is done or how
("must the notice be kept" over a licence that says "shall be included"), and a passage often says
it in other words. Nor are these: the word after "how" ("how often": the form the answer takes), the
words of asking, arithmetic and analysis (`_ASKING`), words holding a digit ("FY2024", "GPLv3"),
and abbreviations the search spells out ("capex"). NEAR and these rules were set on the dev split of
examples/eval, its probes examples/eval/probe_unanswerable.json and probe_plain_words.json, and the
sec dev splits (docs/answers-on-real-documents.md, eighteenth and nineteenth rounds).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np

from services.actions.word_roles import modifies_next, names_a_thing
from shared.contracts import ChunkHit
from shared.db.pool import tenant_tx
from shared.db.vocabulary import unused_words
from shared.embeddings.provider import embed_async
from shared.graph.context import StageContext
from shared.graph.state import AgentState
from shared.text.search_query import TERM_CHARS, content_terms, expand

NEAR = 0.55
# The same word spelt or inflected otherwise ("licence" ~ "license" 0.92, ~ "licenses" 0.88), not a
# related one ("court" ~ "judicial" 0.81, "mortgage" ~ "lending" 0.66).
SAME = 0.85
# The passage words a missing word is compared with, at most, in the passages' order (the best
# ranked first): a cap on the embedding work a question adds (a few tens of milliseconds).
MAX_PASSAGE_WORDS = 200
_HOW = re.compile(r"\bhow\s+(\w+)", re.I)
# The words of asking, of arithmetic and of analysis ("Answer in USD billions", "round to one decimal
# place", "X minus Y", "what percentage", "the correlation between", "the breakdown of", "the driver
# behind"), and those that point at the documents: how to answer, what to make of what the documents
# say, or where, which they need not mention. Prepositions the lexicon also knows as nouns ("behind",
# "within") are among them.
_ASKING = frozenset(
    (
        *("answer", "answers", "question", "questions", "response", "decimal", "decimals", "place", "places"),
        *("minus", "plus", "percent", "percentage", "amount", "amounts", "number", "numbers", "figure", "figures"),
        *("value", "values", "thousands", "millions", "billions"),
        # The form of a time asked, which the quantity check judges (services/actions/quantities.py).
        *("deadline", "deadlines", "timeframe", "timeframes"),
        *("correlation", "correlations", "correlate", "relationship", "relationships", "relation", "relations"),
        # A role the question asks the answer to be written for ("Assume that you are a credit analyst").
        *("analyst", "analysts"),
        *("comparison", "breakdown", "overview", "summary", "analysis", "insight", "insights", "implication"),
        *("implications", "impact", "impacts", "effect", "effects", "driver", "drivers", "factor", "factors"),
        *("trend", "trends", "behind", "within", "without", "across", "against", "among", "despite", "versus"),
        # Words that point at the documents themselves ("those two docs", "on which page").
        *("doc", "docs", "page", "pages", "section", "sections", "paragraph", "paragraphs", "table", "tables"),
    )
)
# An abbreviation as people write it: capitals ("MLRO"), or a capital, small letters and another
# capital ("SaaS": software-as-a-service). One holding a digit is not checked at all.
_ABBREVIATION = re.compile(r"^[A-Z]{2,6}$|^(?=[A-Za-z]{3,6}$)[A-Z][a-z]+[A-Z][A-Za-z]*$")
_WORD = re.compile(r"[A-Za-z0-9]+(?:[-'][A-Za-z0-9]+)*")
_POSSESSIVE = re.compile(r"'s$")


def _checked(words: Sequence[str], i: int, forms: set[str]) -> bool:
    """Whether `words[i]` is a word to check: it can name a thing there, and is none of the words
    left alone (see `asked_words`)."""
    low = words[i].lower()
    if low in forms or low in _ASKING or any(c.isdigit() for c in low) or not content_terms(low):
        return False
    # An abbreviation the search spells out ("capex", "EBITDA") is not checked.
    return not expand(words[i], parts=False) and names_a_thing(words, i)


def _question_words(question: str) -> tuple[list[str], set[str]]:
    return [_POSSESSIVE.sub("", word) for word in _WORD.findall(question)], {
        m.group(1).lower() for m in _HOW.finditer(question)
    }


def asked_words(question: str) -> list[str]:
    """The question's content words that can name a thing, once each, as written (possessives
    dropped), but the word after "how", the words of asking, and numbers or words holding one
    ("FY2024", "Q1": periods, which the search reads on its own)."""
    words, forms = _question_words(question)
    out: list[str] = []
    for i, word in enumerate(words):
        if word.lower() not in (w.lower() for w in out) and _checked(words, i, forms):
            out.append(word)
    return out


def modified_heads(question: str) -> dict[str, str]:
    """Each asked word that modifies the next word, itself asked ("payroll records"), with that
    head, both lowercased. Words written apart by punctuation are not a compound, nor is a possessive."""
    words, forms = _question_words(question)
    tokens = list(_WORD.finditer(question))
    return {
        words[i].lower(): words[i + 1].lower()
        for i in range(len(words) - 1)
        if question[tokens[i].end() : tokens[i + 1].start()].isspace()
        and not _POSSESSIVE.search(tokens[i].group())  # "the user's information": whose, not which kind
        and modifies_next(words, i)
        and _checked(words, i, forms)
        and _checked(words, i + 1, forms)
    }


def spelled_out(word: str, text: str) -> bool:
    """Whether an abbreviation ("MLRO") is the initials of consecutive words of the text."""
    if not _ABBREVIATION.match(word):
        return False
    initials = "".join(w[0] for w in re.findall(r"[A-Za-z]+", text)).lower()
    return word.lower() in initials


def passage_words(chunks: Sequence[ChunkHit]) -> list[str]:
    """The passages' distinct content words in order of appearance, at most MAX_PASSAGE_WORDS."""
    words: dict[str, None] = {}
    for chunk in chunks:
        for word in _WORD.findall(chunk.text.lower()):
            if word not in words and not word.isdigit() and content_terms(word):
                words[word] = None
                if len(words) == MAX_PASSAGE_WORDS:
                    return list(words)
    return list(words)


async def far_from(bars: Mapping[str, float], candidates: Sequence[str]) -> list[str]:
    """The words no candidate comes within its bar of (`NEAR`, or `SAME` for a compound's modifier),
    in one embedding call for all of them."""
    words = list(bars)
    if not words or not candidates:
        return words
    vectors = await embed_async([w.lower() for w in words] + list(candidates))
    closeness = vectors[len(words) :] @ vectors[: len(words)].T
    best = np.max(closeness, axis=0)
    return [w for w, b in zip(words, best, strict=True) if float(b) < bars[w]]


async def unmentioned(ctx: StageContext, state: AgentState, question: str, chunks: Sequence[ChunkHit]) -> list[str]:
    """The question's words that neither the passages nor the reader's library mention (see above)."""
    # The passages' document titles and sections count: a reader names a document by them ("GDPR"
    # for the General Data Protection Regulation, whose articles say "this Regulation").
    named = dict.fromkeys(f"{c.title}. {c.section or ''}." for c in chunks)
    text = " ".join([*named, *(c.text for c in chunks)])
    held = content_terms(text)
    missing = [w for w in asked_words(question) if w.lower()[:TERM_CHARS] not in held and not spelled_out(w, text)]
    if not missing:
        return []
    heads = modified_heads(question)
    unlisted = [w for w in missing if _held(heads.get(w.lower()), held)]
    rest = [w for w in missing if w not in unlisted]
    async with tenant_tx(ctx.db, state["tenant_id"], state["user_id"]) as conn:
        rest = await unused_words(conn, rest)
    candidates = passage_words(chunks)
    far = set(await far_from({**dict.fromkeys(rest, NEAR), **dict.fromkeys(unlisted, SAME)}, candidates))
    return [w for w in missing if w in far]


def _held(word: str | None, held: set[str]) -> bool:
    return word is not None and word[:TERM_CHARS] in held


def never_mentioned(words: Sequence[str]) -> str | None:
    """The notice that tells the reader what their documents never mention (None when nothing)."""
    if not words:
        return None
    quoted = [f"“{w}”" for w in words]
    named = quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"
    return f"Nothing in your documents mentions {named}."
