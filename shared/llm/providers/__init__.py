"""Model providers behind the LLM service: OpenAI-compatible servers and the offline engine."""
