"""``@contract``: design-by-contract for a DSPy module class (after SymbolicAI's ``@contract``).

The decorated class declares ``forward(self, <input>: T, ...) -> R`` (the return annotation is
required), a ``prompt`` (or a docstring) describing the task, and optionally ``pre(input)``,
``act(input) -> T2`` and ``post(output)``. Each call runs:

1. **input validation** — the input is checked (and wrapped) against ``T``, then ``pre`` runs;
   ``pre`` and ``post`` signal failure by *raising* with a message. With ``pre_remedy`` an LM
   repairs a rejected input, driven by the failure messages.
2. **act** — optional transformation of the input.
3. **output validation** — the contract's own predictor ``contract_generator`` (a named
   ``dspy.Predict``, so optimizers see it) produces a candidate of type ``R``; it is type-checked
   and ``post`` runs. With ``post_remedy`` a failing candidate is regenerated with the failure
   messages and the previous candidate injected (the ``constrained`` runtime). The candidate is
   cleared on every attempt: only a candidate that passed every check can be the result.
4. **forward** — the user's ``forward`` always runs, with ``self.contract_successful``,
   ``self.contract_result`` and ``self.contract_exception`` set for this call (per call, per
   thread), receiving the processed input on success and the original input otherwise. Its
   return value is checked against ``R`` (``graceful=True`` returns a mismatch as is).

Input binding: the first positional argument, else the keyword named like ``forward``'s first
parameter, else ``input=``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import dspy

from groundqa.contracts.decorator.call import run_call, state_of
from groundqa.contracts.decorator.perf import PerfRecorder
from groundqa.contracts.decorator.schedule import RetrySchedule
from groundqa.contracts.decorator.spec import inspect_class, prompt_of
from groundqa.contracts.errors import ContractDefinitionError


def contract(
    cls: type | None = None,
    /,
    *,
    pre_remedy: bool = False,
    post_remedy: bool = True,
    accumulate_errors: bool = False,
    tries: int = 3,
    delay: float = 0.0,
    max_delay: float = 1.0,
    jitter: float | tuple[float, float] = 0.0,
    backoff: float = 2.0,
    graceful: bool = False,
    remedy_lm: Any = None,
    seed: int | None = None,
) -> Any:
    """Class decorator for a ``dspy.Module`` subclass; see the module docstring for the pipeline.

    ``tries`` counts every attempt of a remedy loop, the first included. ``delay``, ``backoff``,
    ``jitter`` and ``max_delay`` space the attempts (see :class:`RetrySchedule`; ``seed`` seeds the
    jitter). ``remedy_lm`` serves the remedies (input repair, regenerations); default: the
    configured LM. ``graceful`` returns a ``forward`` result of the wrong type instead of raising.
    """
    schedule = RetrySchedule(tries=tries, delay=delay, max_delay=max_delay, jitter=jitter, backoff=backoff)
    knobs = dict(pre_remedy=pre_remedy, post_remedy=post_remedy, accumulate_errors=accumulate_errors,
                 graceful=graceful, schedule=schedule, remedy_lm=remedy_lm, seed=seed)
    if cls is None:
        return lambda target: _decorate(target, knobs)
    return _decorate(cls, knobs)


def _decorate(cls: type, knobs: dict[str, Any]) -> type:
    if not (isinstance(cls, type) and issubclass(cls, dspy.Module)):
        raise ContractDefinitionError(f"@contract decorates a dspy.Module subclass, not {cls!r}.")
    spec = inspect_class(cls, knobs)
    original_init = cls.__init__
    original_forward = cls.forward

    def __init__(self: dspy.Module, *args: Any, **kwargs: Any) -> None:  # noqa: N807
        original_init(self, *args, **kwargs)
        self._contract_prompt = prompt_of(self, cls)
        self.contract_generator = dspy.Predict(spec.generator_signature(self._contract_prompt))
        self._contract_perf = PerfRecorder()

    def forward(self: dspy.Module, *args: Any, **kwargs: Any) -> Any:
        return run_call(self, spec, original_forward, args, kwargs)

    __init__.__wrapped__ = original_init  # type: ignore[attr-defined]
    forward.__wrapped__ = original_forward  # type: ignore[attr-defined]
    forward.__doc__ = original_forward.__doc__
    cls.__init__ = __init__  # type: ignore[method-assign]
    cls.forward = forward  # type: ignore[method-assign]
    cls._contract_spec = spec  # type: ignore[attr-defined]
    cls.contract_perf_stats = _contract_perf_stats  # type: ignore[attr-defined]
    for name, attribute in (("contract_successful", "successful"), ("contract_result", "result"),
                            ("contract_exception", "exception")):
        setattr(cls, name, property(_state_getter(attribute), doc=f"``{attribute}`` of this call."))
    return cls


def _state_getter(attribute: str) -> Callable[[Any], Any]:
    default = False if attribute == "successful" else None

    def getter(self: Any) -> Any:
        state = state_of(self)
        return default if state is None else getattr(state, attribute)

    return getter


def _contract_perf_stats(self: Any) -> dict[str, dict[str, float]]:
    """Per stage (input_validation, act, output_validation, forward, total): count, total, mean,
    std, min, max (seconds) and percent of the total, over every call of this instance."""
    return self._contract_perf.stats()
