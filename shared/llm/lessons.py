"""What was learned about each model, shared by every LLM service of the process and kept on disk.

Each stage worker builds its own LLM service, and workers restart. Learned per service, the same
lessons were paid for again by every worker on its first turns: the structured-output mode the
server refuses, and tasks whose answers a small model cannot write (each costs a call and a
corrective retry before the offline engine takes over). On a small local model that made the first
turn of each worker take minutes (docs/model-servers.md). A `LessonBook` is one per lessons file
(`PP_LLM_LESSONS_FILE`) in a process; the file carries the lessons to the next process, keyed by
server and model. Without a file (tests), each service keeps its own book, as before.

The file is advisory: unreadable or unwritable, the book works from memory and says so once in the log.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import time
from pathlib import Path
from typing import Any, ClassVar

log = logging.getLogger(__name__)


class LessonBook:
    """Per model: the structured-output mode its server accepts, and tasks whose answers stayed
    unusable, each until a wall-clock time (lessons expire: servers are upgraded, models swapped)."""

    _books: ClassVar[dict[Path, LessonBook]] = {}

    def __init__(self, path: Path | None = None) -> None:
        self._path = path
        self._lessons: dict[str, dict[str, Any]] = {}
        self._seen_mtime: float | None = None
        self._warned = False

    @classmethod
    def shared(cls, path: Path | None) -> LessonBook:
        """The process's book for `path`; a private one without a path."""
        if path is None:
            return cls()
        return cls._books.setdefault(path, cls(path))

    def _load(self) -> None:
        """Lessons another process wrote since the last look."""
        if self._path is None:
            return
        try:
            mtime = self._path.stat().st_mtime
            if mtime == self._seen_mtime:
                return
            stored = json.loads(self._path.read_text())
            self._seen_mtime = mtime
        except FileNotFoundError:
            return
        except (OSError, ValueError) as exc:
            self._warn(exc)
            return
        if isinstance(stored, dict):
            for key, lessons in stored.items():
                if isinstance(lessons, dict):
                    self._lessons.setdefault(key, {}).update(lessons)

    def _save(self) -> None:
        if self._path is None:
            return
        try:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            now = time.time()
            live = {k: {t: u for t, u in v.items() if u[1] > now} for k, v in self._lessons.items()}
            fd, tmp = tempfile.mkstemp(dir=self._path.parent, prefix=".lessons-")
            with os.fdopen(fd, "w") as out:
                json.dump({k: v for k, v in live.items() if v}, out)
            os.replace(tmp, self._path)  # whole or not at all: a reader never sees half a file
            self._seen_mtime = self._path.stat().st_mtime
        except OSError as exc:
            self._warn(exc)

    def _warn(self, exc: Exception) -> None:
        if not self._warned:
            log.warning("model lessons kept in memory only (%s: %s)", self._path, exc)
            self._warned = True

    def _get(self, model: str, topic: str) -> Any:
        self._load()
        value, until = self._lessons.get(model, {}).get(topic, (None, 0.0))
        return value if until > time.time() else None

    def _put(self, model: str, topic: str, value: Any, seconds: float) -> None:
        self._load()
        self._lessons.setdefault(model, {})[topic] = (value, time.time() + seconds)
        self._save()

    def mode(self, model: str) -> str | None:
        mode = self._get(model, "mode")
        return mode if isinstance(mode, str) else None

    def learn_mode(self, model: str, mode: str, seconds: float) -> None:
        self._put(model, "mode", mode, seconds)

    def unusable(self, model: str, task: str) -> bool:
        return bool(self._get(model, f"unusable:{task}"))

    def learn_unusable(self, model: str, task: str, seconds: float) -> None:
        self._put(model, f"unusable:{task}", True, seconds)

    def pace(self, model: str) -> tuple[float, float] | None:
        """Seconds per prompt token and per output token, as last measured (shared/llm/pace.py)."""
        pace = self._get(model, "pace")
        return (float(pace[0]), float(pace[1])) if isinstance(pace, list | tuple) and len(pace) == 2 else None

    def learn_pace(self, model: str, pace: tuple[float, float], seconds: float) -> None:
        self._put(model, "pace", list(pace), seconds)
