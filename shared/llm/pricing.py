"""Price table per model (USD per million tokens) and the cost of one call."""

from __future__ import annotations

import logging

from shared.config import Settings

log = logging.getLogger(__name__)

# (input, output) USD per 1M tokens, list prices of November 2026's public price pages.
PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-nano": (0.10, 0.40),
    "text-embedding-3-small": (0.02, 0.0),
    "text-embedding-3-large": (0.13, 0.0),
    "offline-extractive": (0.0, 0.0),
}


def cost_usd(model: str, input_tokens: int, output_tokens: int, settings: Settings) -> float:
    """Unknown models (self-hosted servers) cost nothing unless PP_LLM_PRICES names them."""
    price = settings.llm_prices.get(model) or PRICES.get(model)
    if price is None:
        log.debug("no price for model %s; counted as free", model)
        return 0.0
    return (input_tokens * price[0] + output_tokens * price[1]) / 1_000_000
