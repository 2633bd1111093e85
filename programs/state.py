"""Program state that is numbers, not prompts: a pydantic model that is also a DSPy ``Parameter``.

DSPy saves and loads a module's ``Parameter`` attributes (``named_parameters()``, ``dump_state`` /
``load_state``), so a model of this kind travels with ``program.save``/``load`` beside the predictors'
prompts and demos, and every optimizer's fresh copy keeps it. The gates (:mod:`.gates`) and the
answer-or-abstain model (:mod:`.selection`) are such state.
"""

from __future__ import annotations

from typing import Any, Self

from dspy.predict.parameter import Parameter
from pydantic import BaseModel, ConfigDict


class StateModel(BaseModel, Parameter):
    """A validated pydantic model that DSPy saves, loads and copies with the program."""

    model_config = ConfigDict(validate_assignment=True, extra="forbid")

    def dump_state(self, json_mode: bool = True) -> dict[str, Any]:
        return self.model_dump(mode="json" if json_mode else "python")

    def load_state(self, state: dict[str, Any]) -> Self:
        """Set every field from a saved state (validated as a whole first: nothing changes on an error)."""
        values = type(self).model_validate({**self.model_dump(), **dict(state)})
        for name in type(self).model_fields:
            object.__setattr__(self, name, getattr(values, name))
        return self

    def reset(self) -> None:
        """Optimizers call ``reset`` on a fresh copy; learnt numbers keep their values (they are not demos)."""


__all__ = ["StateModel"]
