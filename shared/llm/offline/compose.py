"""Composing an extractive answer: which sentences to say, and how to cite them.

Relevance is the sentence's cosine similarity to the question plus a bonus for the question's
rare terms it contains (inverse document frequency over the candidate sentences): a defined
term, a name or a figure that the question repeats makes a sentence relevant even when it sits
in a short multi-topic chunk whose embedding is an average of its topics.

The best sentence leads. Another joins only while it is nearly as relevant as the best one and
covers a question term the answer does not cover yet, so the answer stops once the question is
answered instead of padding itself with related sentences. Sentences that follow each other in
one passage are said together and cited once. Tuned on the dev split of examples/eval.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np

from shared.text.filing_forms import is_filing_form
from shared.text.search_query import asks_reason
from shared.text.sentences import Sentence, next_in_document, split_sentences, walk
from shared.text.tables import contents_line, printed_parts


class HasPassageText(Protocol):
    document_id: str
    page: int | None
    text: str
    page_breaks: list[int]


TERM = re.compile(r"[a-z0-9]+(?:[.'-][a-z0-9]+)*")
STEM_CHARS = 6
STOPWORDS = frozenset(
    re.findall(
        r"\w+",
        """
        a about above after again against all am an and any are as at be because been before being below between
        both but by can could did do does doing down during each few for from further had has have having he her
        here hers him his how i if in into is it its itself just me more most my no nor not now of off on once
        only or other our ours out over own same she should so some such than that the their theirs them then
        there these they this those through to too under until up very was we were what when where which while
        who whom why will with would you your yours my me us shall may must might also tell give say says said
        please doc document documents one ones get got
        """,
    )
)
# A short line without a closing mark whose words are mostly capitalised is a heading ("MOZILLA
# PUBLIC LICENSE Version 1.1"): it names a topic, it does not answer a question about it. (A
# sentence cut off at a chunk's end is short and unclosed too, but reads in lower case.)
UNCLOSED_SHORT = re.compile(r"^.{0,80}[^.!?:;)\]\"'”…]$")
CAPITALISED_SHARE = 0.6


def heading_like(text: str) -> bool:
    if not UNCLOSED_SHORT.match(text):
        return False
    words = text.split()
    return sum(w[0].isupper() or w[0].isdigit() or not w[0].isalpha() for w in words) >= CAPITALISED_SHARE * len(words)


# A sentence that only sends the reader elsewhere ("See Note 5 — Debt for additional information.",
# "For more details, refer to section 4.") names the topic without saying anything about it.
POINTER = re.compile(
    r"^\W*(?:see|refer\s+to|for\s+(?:additional|more|further)\s+(?:information|details|discussion)\b[^.]{0,40}?"
    r"\b(?:see|refer\s+to))\b",
    re.I,
)
# A sentence that only says where the information is, or what to read it with ("Information relating to
# … market risk is set forth below and in Item 2 of Part I", "These consolidated financial statements
# should be read in conjunction with the audited consolidated financial statements … in Item 8"): a
# filing prints such sentences under every heading, so they match a broad question's words everywhere.
REFERS = re.compile(
    r"\b(?:should|must|is\s+to|are\s+to)\s+be\s+read\s+(?:together|in\s+conjunction)\s+with\b|"
    r"\b(?:is|are)\s+set\s+forth\s+(?:below|above|in)\b",
    re.I,
)
# A filing's safe-harbour notice ("This Quarterly Report on Form 10-Q includes forward-looking statements
# within the meaning of the Private Securities Litigation Reform Act of 1995") is about the report, not
# its subject, unless the question asks about such statements.
SAFE_HARBOUR = re.compile(r"\b(?:includes?|contains?)\s+forward-looking\s+statements\b", re.I)
FORWARD_LOOKING = re.compile(r"\bforward[-\s]looking\b", re.I)
LEXICAL_WEIGHT = 0.15
# A question about an amount ("how much", "what was the gross margin", "what percentage") is answered
# by a sentence that states one: of two sentences about the same thing, the one with the figure
# answers and the other only talks about it. A statement's row or a sentence with "$1.2 billion"
# gets this much more relevance (a fifth of a typical gap between a relevant and an unrelated sentence).
QUANTITY_QUESTION = re.compile(
    r"\bhow (?:much|many)\b|\b(?:amounts?|totals?|figures?|percentage|percent|rates?|ratios?|revenues?|sales|"
    r"income|margins?|expenses?|expenditures?|costs?|spen[dt]|spending|cash|earnings|profits?|loss(?:es)?|debt|"
    r"prices?|values?|size|scale|extent|balances?|levels?|paid)\b",
    re.I,
)
STATED_FIGURE = re.compile(r"\$\s?\d|\d\s?%|(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d])|\d\s(?:million|billion)\b")
FIGURE_WEIGHT = 0.05
# A question asking why ("What drove the rise in gross margin?") or what something did ("How did
# exchange rates affect net sales?") is answered by a sentence that states a cause or an effect ("had an
# unfavorable impact on"), not by the row whose figure rose: it gets the weight a figure gets for an amount.
STATED_CAUSE = re.compile(
    r"\b(?:due\s+(?:\w+\s+)?to|because|driven\s+(?:\w+\s+)?by|as\s+a\s+result\s+of|result(?:s|ed)?\s+from|"
    r"attributable\s+to|owing\s+to|caused\s+by|reflect(?:s|ed|ing)?|primarily\s+(?:from|by)|"
    r"(?:favou?rable|unfavou?rable|adverse|positive|negative)\s+(?:[\w-]+\s+){0,2}(?:impacts?|effects?)|"
    r"(?:impacted|affected)\s+by|had\s+an?\s+(?:\w+\s+)?(?:impact|effect)\s+on)\b",
    re.I,
)
RELATIVE_KEEP = 0.85
NEAR_DUPLICATE = 0.92


def terms(text: str) -> set[str]:
    """Content words of a text, crudely stemmed by their first letters (cheap, language-light)."""
    return {w[:STEM_CHARS] for w in TERM.findall(text.lower()) if w not in STOPWORDS and (len(w) > 2 or w.isdigit())}


@dataclass(frozen=True)
class Scored:
    index: int
    similarity: float
    score: float
    covers: frozenset[str]
    heading: bool = False


def score_sentences(question: str, sentences: Sequence[Sentence], similarities: np.ndarray) -> list[Scored]:
    """Each sentence's relevance: similarity plus the IDF-weighted share of the question's terms it holds."""
    wanted = terms(question)
    bags = [terms(s.text) for s in sentences]
    n = len(sentences)
    idf = {t: math.log((n + 1) / (1 + sum(t in b for b in bags))) + 1.0 for t in wanted}
    total = sum(idf.values()) or 1.0
    wants_cause = asks_reason(question)
    wants_figure = bool(QUANTITY_QUESTION.search(question)) and not wants_cause
    asks_forward_looking = bool(FORWARD_LOOKING.search(question))
    out = []
    for i, bag in enumerate(bags):
        covers = frozenset(wanted & bag)
        lexical = sum(idf[t] for t in covers) / total
        relevance = float(similarities[i]) + LEXICAL_WEIGHT * lexical
        if (wants_figure and STATED_FIGURE.search(sentences[i].text)) or (
            wants_cause and STATED_CAUSE.search(sentences[i].text)
        ):
            relevance += FIGURE_WEIGHT
        # A sentence with nothing beyond the question's own words ("How to create a DOCX file.")
        # restates it, like a heading, a pointer or a contents line does, and answers nothing. A
        # table row is not such a sentence: it pairs its label with a value under a header, which is
        # the answer even when the question names it ("Groups for Business — Product Name: groups"
        # for "the product name for Groups for Business"; "is the default 18?"). The tail of a
        # sentence cut before it (a chunk's start, a page break) is set aside the same way
        # (shared/text/sentences.py).
        text = sentences[i].text
        restates = bag <= wanted and printed_parts(text) is None
        about_report = REFERS.search(text) or (not asks_forward_looking and SAFE_HARBOUR.search(text))
        pointer = bool(POINTER.match(text) or about_report) or contents_line(text)
        heading = heading_like(text) or restates or pointer or sentences[i].tail
        out.append(Scored(i, float(similarities[i]), relevance, covers, heading))
    return out


# A passage repeated far apart in one document is a form, not an answer: a filing's two officers'
# certifications ("I have reviewed this quarterly report on Form 10-Q of…"), running headers and
# footers, a contract's signature block. Adjacent chunks share their overlap, so a sentence counts
# as repeated only when its passages start at least this many pages apart.
FORM_PAGES_APART = 2


def repeated_far_apart(passages: Sequence[HasPassageText]) -> set[str]:
    """Sentences (lower-cased) that one document says in passages far apart."""
    seen: dict[tuple[str, str], set[int]] = {}
    for passage in passages:
        for text in split_sentences(passage.text, passage.page_breaks):
            seen.setdefault((passage.document_id, text.lower()), set()).add(passage.page or 0)
    return {key for (_, key), pages in seen.items() if max(pages) - min(pages) >= FORM_PAGES_APART}


def set_aside_forms(
    scored: list[Scored], sentences: Sequence[Sentence], forms: set[str], *, filing_forms: bool = True
) -> list[Scored]:
    """Repeated form sentences, and (unless asked about) a filing's certifications and exhibit index,
    are ranked like headings: never the answer while a statement is there."""

    def form(text: str) -> bool:
        return text.lower() in forms or (filing_forms and is_filing_form(text))

    return [replace(s, heading=True) if form(sentences[s.index].text) else s for s in scored]


# A sentence that names the user's location or industry states the rule that binds them: when it is
# relevant too (at least this share of the best sentence's score, and above the floor) it leads the
# answer, whether or not the general ranking picked it. Below that share it is about something else.
PROFILE_KEEP = 0.7
# Endings of trades ("Banking", "Insurance", "Retailers"); a place keeps its whole name as the prefix
# ("Malaysia" → "Malaysian"), so "Austria" never names "Australian".
_ENDINGS = re.compile(r"(?:ing|ance|ence|ers|er|s)$")


def name_pattern(name: str) -> re.Pattern[str] | None:
    """Words starting like each word of `name`, crudely inflected: "banks", "Malaysian" and
    "insurers" name "Banking", "Malaysia" and "Insurance"."""
    stems = []
    for word in TERM.findall(name.lower()):
        if word in STOPWORDS:
            continue
        stem = _ENDINGS.sub("", word)
        stems.append(re.escape(stem if len(stem) >= 4 else word))
    return re.compile(r"\b" + r"\w*\W+".join(stems), re.I) if stems else None


def naming(names: Sequence[str], text: str) -> list[str]:
    """Which of `names` the text names."""
    return [n for n in names if (pattern := name_pattern(n)) and pattern.search(text)]


def lead_with_own_rules(
    scored: list[Scored], picked: list[Scored], sentences: Sequence[Sentence], names: Sequence[str], *, floor: float
) -> list[Scored]:
    """`picked` with the most relevant sentence naming the user's place or trade first (added if the
    ranking left it out); unchanged when no relevant sentence names them."""
    if not names or not picked:
        return picked
    best = max(s.score for s in scored)
    own = [
        s
        for s in scored
        if not s.heading
        and s.similarity >= floor
        and s.score >= PROFILE_KEEP * best
        and naming(names, sentences[s.index].text)
    ]
    if not own:
        return picked
    lead = max(own, key=lambda s: s.score)
    return [lead, *(p for p in picked if p.index != lead.index)]


def pick(scored: list[Scored], vectors: np.ndarray, *, k: int, floor: float) -> list[Scored]:
    """The leading sentence, then only sentences nearly as relevant that add an uncovered question term."""
    ranked = sorted(scored, key=lambda s: s.score, reverse=True)
    statements = [s for s in ranked if not s.heading]
    ranked = statements or ranked
    if not ranked or ranked[0].similarity < floor:
        return []
    best = ranked[0]
    picked, covered = [best], set(best.covers)
    for candidate in ranked[1:]:
        if len(picked) >= k or candidate.score < RELATIVE_KEEP * best.score:
            break
        new = candidate.covers - covered
        duplicate = max(float(vectors[candidate.index] @ vectors[p.index]) for p in picked) >= NEAR_DUPLICATE
        if new and not duplicate and candidate.similarity >= floor:
            picked.append(candidate)
            covered |= new
    return picked


def runs(picked: list[Scored], sentences: Sequence[Sentence]) -> list[list[int]]:
    """Picked sentence indices grouped into runs of neighbours in one passage, most relevant run first.

    Candidate sentences are listed in passage order, so neighbours have consecutive indices; a
    sentence read out of a line on its own (`Sentence.alone`) has no neighbours.
    """
    chosen = sorted(p.index for p in picked)
    groups: list[list[int]] = []
    for i in chosen:
        after = groups and i == groups[-1][-1] + 1 and sentences[i].chunk_index == sentences[i - 1].chunk_index
        if after and not (sentences[i].alone or sentences[i - 1].alone):
            groups[-1].append(i)
        else:
            groups.append([i])
    rank = {p.index: r for r, p in enumerate(picked)}
    return sorted(groups, key=lambda g: min(rank[i] for i in g))


# A sentence that announces what follows it ("subject to the following conditions:", "was as
# follows (in millions):", "do at least ONE of the following:") says nothing on its own, so what
# follows it in its document comes with it: the next sentence, and after it the rest of a list it
# starts ("a) …", "(ii) …", "2. …"), up to FOLLOWING sentences. A line of a statement's printed text
# ending in a label ("… 98,024 83,838 Investing activities:") announces nothing. A question announces
# its answer: a help centre's "Can I change the email address on my account?" is closest to a
# reader's question and answers nothing, so the sentences after it come with it, up to the next
# question (questions straight after it, before any answer, are passed over: the same question
# asked again).
FOLLOWING = 4
ANNOUNCES = re.compile(r":\s*$")
ASKS = re.compile(r"\?\s*$")
FIGURE = re.compile(r"\d[\d,.]*")
ANNOUNCER_FIGURES = 3
# A statement's printed line ends in the next group's label after its row's figures, whatever the
# number of columns ("Cash generated by operating activities 98,024 83,838 Investing activities:",
# "… beginning balances $ 35,929 $ 39,789 Operating activities:").
ROW_THEN_LABEL = re.compile(r"(?:\(?\$?\s?\d(?:[\d,.]*\d)?\)?%?\s+){2,}[A-Z][^.:;,\d]{0,60}:\s*$")
LIST_ITEM = re.compile(r"^\s*(?:\(?[a-z]\)|\(?[ivx]{1,4}\)|\(?\d{1,2}[.)]|[•*–-])\s")


def announces(text: str) -> bool:
    """Whether the sentence ends by announcing what follows it (a colon closing prose, not a row's
    label; or a question)."""
    if ASKS.search(text):
        return True
    return (
        bool(ANNOUNCES.search(text))
        and len(FIGURE.findall(text)) < ANNOUNCER_FIGURES
        and not ROW_THEN_LABEL.search(text)
    )


def _follows(announcer: str, after: list[int], candidate: Sentence) -> bool:
    """Whether `candidate`, next in the passage, still belongs to what `announcer` announces."""
    if ASKS.search(announcer):
        return not ASKS.search(candidate.text)
    return not after or bool(LIST_ITEM.match(candidate.text))


def with_what_follows(picked: list[Scored], sentences: Sequence[Sentence]) -> list[Scored]:
    """The picks, each announcing one followed by the sentences after it in its document (from whichever
    passage holds them); an announcing sentence with nothing after it in the passages is left out,
    unless it is the only pick."""
    taken = {p.index for p in picked}
    out: list[Scored] = []
    for p in picked:
        announcer = sentences[p.index]
        if not announces(announcer.text):
            out.append(p)
            continue
        after: list[int] = []
        asks = bool(ASKS.search(announcer.text))
        for i in walk(sentences, p.index, limit=FOLLOWING):
            nxt = sentences[i]
            if asks and not after and ASKS.search(nxt.text):
                # The question asked again before its answer (a help page's title over its
                # breadcrumb, "Is it safe?" after "How is the data stored?"): the answer follows.
                continue
            if not _follows(announcer.text, after, nxt):
                break
            after.append(i)
        if not after and len(picked) > 1:
            continue
        out.append(p)
        out += [Scored(i, p.similarity, p.score, frozenset()) for i in after if i not in taken]
        taken.update(after)
    return out


def answered_in_turn(scored: list[Scored], sentences: Sequence[Sentence]) -> list[Scored]:
    """A question of the passages that restates the reader's (a help centre's "How do I close my
    account?" asked word for word) is set aside like a heading, yet the sentence after it is its
    answer: that sentence ranks at least as the question does. Otherwise a later sentence sharing
    more of the question's words ("We close it within five business days") led the answer, and
    the one saying how ("Write to support@example.com …") ranked below it."""
    out = list(scored)
    for s in scored:
        question = sentences[s.index]
        nxt = next_in_document(sentences, s.index) if s.heading and ASKS.search(question.text) else None
        if nxt is None or ASKS.search(sentences[nxt].text):
            continue
        current = out[nxt]
        out[nxt] = replace(current, similarity=max(current.similarity, s.similarity), score=max(current.score, s.score))
    return out
