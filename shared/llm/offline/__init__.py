"""The offline engine: deterministic, extractive implementations of the agent's LLM tasks.

It never writes text beyond fixed templates; every content sentence comes from a chunk and
carries its citation.
"""
