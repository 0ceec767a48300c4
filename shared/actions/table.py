"""The four actions of PolicyPal, one record each (shared/actions/spec.py says what each field does)."""

from __future__ import annotations

import re

from shared.actions.spec import ActionSpec, ActionTask

# The words of the offline engine's intent rules (shared/llm/offline/intent.py), each action in its
# usual phrasings; evaluated against evals/intent_cases.jsonl by bench/labelled.py.
SUMMARIZE_WORDS = re.compile(
    r"\b(summari[sz]e\w*|summary|summaries|overview|tl;?dr|key points|main points|gist|recap|rundown|synopsis|"
    r"(?:key )?takeaways|highlights|brief me|condense|bullet points|in a nutshell|"
    r"boil (?:it |this |that )?down|sum(?:s|med)? (?:it )?up)\b",
    re.I,
)
COMPARE_WORDS = re.compile(
    r"\b(compar(?:e|es|ed|ing|ison)|juxtapos\w*|(?:are|is|be) (?:so |very |really )?different\b|"
    r"versus|vs\.?|differences?|differ|differs|contrast|side[- ]by[- ]side|"
    r"similarit(?:y|ies)|stack up|changed between|changes between|different (?:from|than|to)|"
    r"which (?:one )?of (?:the (?:two|2)|these|those|both|them)|stricter|more (?:strict|lenient|stringent)|"
    r"less (?:strict|lenient|stringent)|against (?:each other|one another))\b",
    re.I,
)
AUDIT_WORDS = re.compile(
    r"\b(audit\w*|compl(?:y|ies|ied|ying|iant)|non-?compliant|in compliance with|"
    r"compliance (?:check|review|gaps?|audit|issues?|problems?|risks?)|violat(?:e|es|ed|ing)|in violation of|"
    r"breach(?:es|ing)? (?:of )?(?:the|our|any|this|that|these|those)|conform\w*|gap analysis|"
    r"(?:falls?|falling|fell|runs?|running|ran) (?:a)?foul of|out of line with|"
    r"cross-?check\w*|gaps? (?:in|between|against)|"
    r"(?:check|review|verify|assess|evaluate|examine|screen|inspect|validate|vet|test)\b"
    r"[^.?!:]{0,60}\b(?:against|for compliance)|"
    r"in line with|in accordance with|adheres? to|abides? by|follows? (?:the|our|all|these|those|any)|"
    r"consistent with|meets? (?:the |all |our )?(?:requirements|standards?|obligations))\b",
    re.I,
)

SUMMARIZE = ActionSpec(
    name="summarize",
    label="Summarize",
    choice_label="Summarize",
    hint="Summaries of the tagged documents",
    status="Summarizing documents...",
    intent_description="summarize",
    node="services.actions.summarize:summarize",
    tasks=(
        ActionTask(
            "summarize",
            "small",
            0.3,
            1024,
            "Writing the summary",
            "Summarize the documents from the passages, citing [n]. With several documents write one section per "
            "document under its bold title so every statement stays attributed.",
        ),
    ),
    documents_needed=1,
    missing_docs="Please specify which document you would like to summarize by tagging it with @.",
    intent_pattern=SUMMARIZE_WORDS,
    mention_words=frozenset({"summarize", "summarise"}),
)

INQUIRE = ActionSpec(
    name="inquire",
    label="Inquire",
    choice_label="Ask a question",
    hint="A cited answer to your question",
    status="Researching your question...",
    intent_description="inquire (answer a question)",
    node="services.actions.inquire:inquire",
    tasks=(
        ActionTask(
            "inquire",
            "small",
            0.2,
            768,
            "Writing the answer",
            "Answer the question from the passages, citing each sentence's passage as [n].",
        ),
    ),
    # Support mode (§7.8): the inquire worker grades its answer and escalates to a human below the threshold.
    extra_nodes=("grade_confidence", "escalate"),
)

COMPARE = ActionSpec(
    name="compare",
    label="Compare",
    choice_label="Compare",
    hint="Differences between two or more documents",
    status="Comparing documents...",
    intent_description="compare",
    node="services.actions.compare:compare",
    tasks=(
        ActionTask(
            "compare_focused",
            "small",
            0.2,
            1024,
            "Writing the comparison",
            "Compare how each document addresses the focus topic: a markdown table | Document | What it says | "
            "with one row per document, then the figures or obligations that differ. Cite [n].",
        ),
        ActionTask(
            "compare_holistic",
            "large",
            0.3,
            1536,
            "Writing the comparison",
            "Compare the documents as a whole. Identify 3-5 themes, then write five sections: 1. Overview, 2. "
            "Common themes, 3. Key differences (figures, obligations), 4. Unique aspects (what only one document "
            "covers), 5. Implications. Cite [n].",
        ),
    ),
    documents_needed=2,
    missing_docs="Comparing requires at least two documents. Please tag the documents you would like to compare.",
    missing_docs_feedback="Compare requires at least 2 documents. Please @tag them and try again.",
    web_allowed=False,
    intent_pattern=COMPARE_WORDS,
    mention_words=frozenset({"compare"}),
)

AUDIT = ActionSpec(
    name="audit",
    label="Audit",
    choice_label="Audit",
    hint="Check documents against requirements",
    status="Auditing against regulations...",
    intent_description="audit (check documents against requirements)",
    node="services.actions.audit:audit",
    tasks=(
        ActionTask(
            "audit",
            "large",
            0.0,
            2048,
            "Checking the documents",
            "For each target document and each theme, check the theme against the target's passages: either the "
            "target must satisfy the requirement, or the audited statement must obey the target's rules. Report "
            "only problems as findings: severity Critical (contradicts, says what is prohibited, exceeds a limit), "
            "High (requirement not addressed), Medium (weaker modality, possible contradiction), Low (stricter "
            "than required). source_quote is the theme; quote the target exactly and give its passage number.",
        ),
    ),
    documents_needed=1,
    missing_docs="Please specify which document you would like to audit by tagging it with @.",
    missing_docs_feedback="I need a regulation document to run Audit. Please @tag one and try again.",
    needs_source=True,
    intent_pattern=AUDIT_WORDS,
    mention_words=frozenset({"audit"}),
)

# In the order the UI lists them and the intent rules try them.
BUILT_IN: tuple[ActionSpec, ...] = (SUMMARIZE, INQUIRE, COMPARE, AUDIT)
