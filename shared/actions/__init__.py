"""Actions as records: the table of what each action is (docs/where-things-go.md, "A new action")."""

from shared.actions.registry import Derived, action_names, action_spec, action_specs, action_tasks
from shared.actions.spec import ActionSpec, ActionTask

__all__ = ["ActionSpec", "ActionTask", "Derived", "action_names", "action_spec", "action_specs", "action_tasks"]
