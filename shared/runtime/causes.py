"""Finding the failure behind an exception: libraries wrap what went wrong (a model error around
an embedding timeout, a node error around a lost database connection) as its cause or context."""

from __future__ import annotations

from typing import TypeVar

E = TypeVar("E", bound=BaseException)


def cause_of(exc: BaseException, kind: type[E] | tuple[type[E], ...]) -> E | None:
    """`exc` itself or the first exception in its cause/context chain that is a `kind`."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, kind):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None
