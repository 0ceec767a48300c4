"""Plain-text helpers shared by the agent's nodes and the offline engine.

Nothing here calls a language model: splitting sentences, quoting them, picking the most
relevant or central ones, finding requirement clauses and recency words, and rendering an audit
report. Keeping them outside the LLM layer lets the online nodes use them without depending on
the offline engine's internals.
"""
