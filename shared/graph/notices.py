"""Status lines from inside a node that are not the node's own progress: the LLM service's notices
(the offline engine stood in for the model, an answer broke off) go to the thread as `status` events."""

from __future__ import annotations

import logging

from langgraph.config import get_config

from shared.graph.stream_parts import part_writer, status_part

log = logging.getLogger(__name__)


def model_notice(message: str) -> None:
    """Hand `message` to the running node's stream (the runner publishes it as a status event);
    outside a graph run (benchmarks, tools) there is no stream and the log has it."""
    try:
        node = get_config().get("metadata", {}).get("langgraph_node", "model")
        writer = part_writer()
    except RuntimeError:
        log.info("model notice outside a graph run: %s", message)
        return
    writer(status_part(node, message=message))
