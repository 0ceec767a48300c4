"""Offline document resolution (task `doc_resolution`): which of the user's documents a message means.

Three kinds of evidence are merged (PolicyPal "Smart Context Resolution"), each in its module:

1. names (`names.py`) — a registry title quoted verbatim; a title's distinctive words matched
   fuzzily (rapidfuzz ≥ 85 per word) against the user's documents, or its acronym ("GDPR"); a
   version named in the message ("… guidelines 2025") or the conversation picks among versions
   of one title;
2. references back to the conversation (`references.py`) — pronouns ("it", "those two docs",
   "both", "all of them") take the most recent registry documents, typed references ("the
   policy", "that regulation", "these policies", "the policy above") take the registry documents
   of that kind (one → it, several → a PalAssist choice; none in the conversation → the user's
   documents of that kind);
3. the action's expected document shape (`shape.py`) — with nothing named, compare continues with
   the conversation's last two documents, summarize and audit with the last one.

A capitalised name with a document word ("the FSA guidelines") that matches none of the user's
documents is returned as `unresolved`: the caller asks the user to tag it. The words and records
the three share live in `vocabulary.py`; `resolve.py` merges the evidence into one `DocMatch`.
Evaluated against evals/doc_resolution_cases.jsonl by bench/labelled.py.
"""
