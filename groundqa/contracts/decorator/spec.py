"""What ``@contract`` learns from a module class at definition time (and its definition errors)."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import dspy

from groundqa.contracts.decorator.schedule import RetrySchedule
from groundqa.contracts.errors import ContractDefinitionError
from groundqa.contracts.options import ContractOptions


@dataclass(frozen=True)
class ContractSpec:
    """Everything ``@contract`` learned from the class at definition time."""

    cls_name: str
    input_name: str
    input_type: Any
    generator_input_type: Any
    output_name: str
    output_type: Any
    has_pre: bool
    has_act: bool
    act_type: Any
    act_takes_kwargs: bool
    has_post: bool
    pre_remedy: bool
    post_remedy: bool
    accumulate_errors: bool
    graceful: bool
    schedule: RetrySchedule
    remedy_lm: Any
    seed: int | None
    output_options: ContractOptions = field(init=False)

    def __post_init__(self) -> None:
        tries = self.schedule.tries if self.post_remedy else 1
        options = ContractOptions(max_attempts=tries, policy="raise", accumulate_errors=self.accumulate_errors)
        object.__setattr__(self, "output_options", options)

    def generator_signature(self, prompt: str) -> type[dspy.Signature]:
        """Signature of the contract's generator: ``<input> -> <output>`` with the prompt."""
        return dspy.Signature(
            {
                self.input_name: (self.generator_input_type, dspy.InputField()),
                self.output_name: (self.output_type, dspy.OutputField()),
            },
            prompt,
        )

    def repair_signature(self) -> type[dspy.Signature]:
        """Signature of the pre-remedy: ``task, <input>, problems -> repaired_<input>``."""
        return dspy.Signature(
            {
                "task": (str, dspy.InputField(desc="What the module does with its input")),
                self.input_name: (self.input_type, dspy.InputField(desc="The rejected input")),
                "problems": (str, dspy.InputField(desc="Why the input was rejected")),
                f"repaired_{self.input_name}": (
                    self.input_type, dspy.OutputField(desc="The input corrected so that it is accepted")
                ),
            },
            "The input below was rejected by a precondition of the task. Return a corrected input that "
            "fixes every problem listed, changing as little as possible.",
        )


def inspect_class(cls: type, knobs: dict[str, Any]) -> ContractSpec:
    name = cls.__name__
    forward = cls.__dict__.get("forward") or getattr(cls, "forward", None)
    if forward is None:
        raise ContractDefinitionError(f"{name} has no forward method; @contract wraps forward.")
    signature = inspect.signature(forward)
    params = [p for p in list(signature.parameters.values())[1:]
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    if not params:
        raise ContractDefinitionError(f"{name}.forward must take the contract's input as its first parameter.")
    if signature.return_annotation is inspect.Signature.empty:
        raise ContractDefinitionError(
            f"{name}.forward has no return annotation; @contract needs it to generate and check the output "
            "(e.g. `def forward(self, text: str) -> Summary:`)."
        )
    hints = _hints(forward)
    input_name = params[0].name
    input_type = hints.get(input_name, params[0].annotation)
    output_type = hints.get("return", signature.return_annotation)
    for method in ("pre", "post", "act"):
        if hasattr(cls, method) and not callable(getattr(cls, method)):
            raise ContractDefinitionError(f"{name}.{method} must be a method.")
    has_act = callable(getattr(cls, "act", None))
    act_type, act_takes_kwargs = inspect.Parameter.empty, False
    if has_act:
        act_signature = inspect.signature(cls.act)
        act_type = _hints(cls.act).get("return", act_signature.return_annotation)
        act_takes_kwargs = any(p.kind is p.VAR_KEYWORD for p in act_signature.parameters.values())
    has_pre = callable(getattr(cls, "pre", None))
    if knobs["pre_remedy"] and not has_pre:
        raise ContractDefinitionError(f"{name}: pre_remedy=True needs a pre(self, input) method.")
    generator_input = act_type if has_act and act_type is not inspect.Parameter.empty else input_type
    return ContractSpec(
        cls_name=name,
        input_name=input_name,
        input_type=input_type,
        generator_input_type=Any if generator_input is inspect.Parameter.empty else generator_input,
        output_name="result" if input_name == "output" else "output",
        output_type=output_type,
        has_pre=has_pre,
        has_act=has_act,
        act_type=act_type,
        act_takes_kwargs=act_takes_kwargs,
        has_post=callable(getattr(cls, "post", None)),
        **knobs,
    )


def _hints(function: Callable[..., Any]) -> dict[str, Any]:
    try:
        return typing.get_type_hints(function)
    except Exception:  # unresolved forward references: fall back to the raw annotations
        return {}


def prompt_of(instance: Any, cls: type) -> str:
    prompt = getattr(instance, "prompt", None)
    if isinstance(prompt, str) and prompt.strip():
        return prompt.strip()
    if cls.__doc__ and cls.__doc__.strip():
        return inspect.cleandoc(cls.__doc__)
    raise ContractDefinitionError(
        f"{cls.__name__}: @contract needs a `prompt` string attribute (or a class docstring) that tells the "
        "LM what the module produces."
    )
