"""The action table and the lookups every layer uses.

Readers look the table up when they need it (never copy it at import), so the one table is the
only list of actions: a deployment that adds a record, or a test that adds one in a fixture,
changes every layer at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TypeVar

from shared.actions.spec import ActionSpec, ActionTask
from shared.actions.table import BUILT_IN

TABLE: tuple[ActionSpec, ...] = BUILT_IN

V = TypeVar("V")


def action_specs() -> tuple[ActionSpec, ...]:
    return TABLE


def action_names() -> tuple[str, ...]:
    return tuple(spec.name for spec in TABLE)


def action_spec(name: str) -> ActionSpec:
    for spec in TABLE:
        if spec.name == name:
            return spec
    raise KeyError(f"unknown action {name!r}; one of {', '.join(action_names())}")


def action_tasks() -> dict[str, ActionTask]:
    """Every model task an action calls, by name."""
    return {task.name: task for spec in TABLE for task in spec.tasks}


class Derived(Mapping[str, V]):
    """A read-only mapping rebuilt from the table on every read: fixed entries plus what the
    table contributes, for lookups that were dicts before actions became records."""

    def __init__(self, fixed: Mapping[str, V], from_tasks: Callable[[ActionTask], V]) -> None:
        self._fixed = fixed
        self._from_tasks = from_tasks

    def _current(self) -> dict[str, V]:
        return {**self._fixed, **{name: self._from_tasks(task) for name, task in action_tasks().items()}}

    def __getitem__(self, key: str) -> V:
        return self._current()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._current())

    def __len__(self) -> int:
        return len(self._current())
