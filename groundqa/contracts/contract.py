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

import inspect
import logging
import random
import typing
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import dspy
from dspy.dsp.utils.settings import settings

from groundqa.contracts.constraints import Assert
from groundqa.contracts.errors import ContractConfigurationError, ContractDefinitionError, ContractError
from groundqa.contracts.native_types import coerce, type_name
from groundqa.contracts.options import ContractOptions
from groundqa.contracts.perf import PerfRecorder, timed
from groundqa.contracts.records import AttemptRecord, Violation
from groundqa.contracts.retry import RetrySchedule
from groundqa.contracts.runner import run_contract
from groundqa.contracts.state import current_run

logger = logging.getLogger(__name__)

_PROGRAMMING_ERRORS = (ContractDefinitionError, ContractConfigurationError)


@dataclass
class CallState:
    """What one contracted call exposes to ``forward`` as ``self.contract_*``."""

    owner: Any
    successful: bool = False
    result: Any = None
    exception: BaseException | None = None


_current_call: ContextVar[CallState | None] = ContextVar("groundqa_contract_call", default=None)
_last_call: ContextVar[CallState | None] = ContextVar("groundqa_contract_last_call", default=None)


def _state_of(instance: Any) -> CallState | None:
    """The running call of ``instance`` in this context, else its last finished call here."""
    for var in (_current_call, _last_call):
        state = var.get()
        if state is not None and state.owner is instance:
            return state
    return None


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
    spec = _inspect_class(cls, knobs)
    original_init = cls.__init__
    original_forward = cls.forward

    def __init__(self: dspy.Module, *args: Any, **kwargs: Any) -> None:  # noqa: N807
        original_init(self, *args, **kwargs)
        self._contract_prompt = _prompt_of(self, cls)
        self.contract_generator = dspy.Predict(spec.generator_signature(self._contract_prompt))
        self._contract_perf = PerfRecorder()

    def forward(self: dspy.Module, *args: Any, **kwargs: Any) -> Any:
        return _run_call(self, spec, original_forward, args, kwargs)

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
        state = _state_of(self)
        return default if state is None else getattr(state, attribute)

    return getter


def _contract_perf_stats(self: Any) -> dict[str, dict[str, float]]:
    """Per stage (input_validation, act, output_validation, forward, total): count, total, mean,
    std, min, max (seconds) and percent of the total, over every call of this instance."""
    return self._contract_perf.stats()


# -- definition-time checks ---------------------------------------------------------------------
def _inspect_class(cls: type, knobs: dict[str, Any]) -> ContractSpec:
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


def _prompt_of(instance: Any, cls: type) -> str:
    prompt = getattr(instance, "prompt", None)
    if isinstance(prompt, str) and prompt.strip():
        return prompt.strip()
    if cls.__doc__ and cls.__doc__.strip():
        return inspect.cleandoc(cls.__doc__)
    raise ContractDefinitionError(
        f"{cls.__name__}: @contract needs a `prompt` string attribute (or a class docstring) that tells the "
        "LM what the module produces."
    )


# -- one call -------------------------------------------------------------------------------------
def _run_call(self: Any, spec: ContractSpec, original_forward: Callable[..., Any],
              args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    value, extra, rebuild = _bind_input(spec, args, kwargs)
    _require_lms(self, spec)
    state = CallState(owner=self)
    token = _current_call.set(state)
    timings: dict[str, float] = {}
    rng = random.Random(spec.seed)
    try:
        with timed(timings, "total"):
            current = value
            try:
                with timed(timings, "input_validation"):
                    current = _validate_input(self, spec, value, rng)
                if spec.has_act:
                    with timed(timings, "act"):
                        current = _act(self, spec, current, extra)
                with timed(timings, "output_validation"):
                    state.result = _generate_output(self, spec, current, rng)
                state.successful = True
            except _PROGRAMMING_ERRORS:
                raise
            except ContractError as exc:
                state.exception = exc
            except Exception as exc:
                state.exception = ContractError(f"{spec.cls_name}: contract failed: {exc}", module=spec.cls_name)
                state.exception.__cause__ = exc
            forward_args, forward_kwargs = rebuild(current if state.successful else value)
            with timed(timings, "forward"):
                output = original_forward(self, *forward_args, **forward_kwargs)
            return _check_return(spec, output)
    finally:
        self._contract_perf.add(timings)
        _current_call.reset(token)
        _last_call.set(state)


def _bind_input(spec: ContractSpec, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[
    Any, dict[str, Any], Callable[[Any], tuple[tuple[Any, ...], dict[str, Any]]]
]:
    """(the contract input, the other keyword arguments, a function rebuilding ``forward``'s
    arguments around a new input)."""
    if args:
        rest_args = args[1:]
        return args[0], dict(kwargs), lambda new: ((new, *rest_args), dict(kwargs))
    rest = dict(kwargs)
    for key in (spec.input_name, "input"):
        if key in rest:
            value = rest.pop(key)
            return value, rest, lambda new: ((), {spec.input_name: new, **rest})
    raise TypeError(
        f"{spec.cls_name}.forward needs an input: pass it as the first positional argument, "
        f"as {spec.input_name}=..., or as input=..."
    )


def _require_lms(self: Any, spec: ContractSpec) -> None:
    """Fail fast, naming the method, when an LM the contract needs is not configured."""
    if (self.contract_generator.lm or settings.lm) is None:
        raise ContractConfigurationError(
            f"{spec.cls_name}.forward: the contract generates its output with an LM, but none is configured "
            "(dspy.configure(lm=...) or dspy.context(lm=...))."
        )
    if spec.pre_remedy and (spec.remedy_lm or settings.lm) is None:
        raise ContractConfigurationError(
            f"{spec.cls_name}.pre: pre_remedy needs a remedy LM, but none is configured "
            "(pass remedy_lm= to @contract or configure an LM)."
        )


def _validate_input(self: Any, spec: ContractSpec, value: Any, rng: random.Random) -> Any:
    """Type check and ``pre``; with ``pre_remedy`` an LM repairs a rejected input up to ``tries``."""
    attempts: list[AttemptRecord] = []
    limit = spec.schedule.tries if spec.pre_remedy else 1
    for number in range(1, limit + 1):
        if number > 1:
            spec.schedule.pause(number, rng)
        record = AttemptRecord(number=number)
        if number > 1:
            record.feedback = {"input": _feedback_text(attempts, spec.accumulate_errors)}
        attempts.append(record)
        value, problem = coerce(value, spec.input_type)
        key = "input_type"
        if problem is not None:
            problem = f"The input is not a valid {type_name(spec.input_type)}: {problem}"
        elif spec.has_pre:
            problem, key = _run_check(self, spec, "pre", value), "pre"
        if problem is None:
            record.has_output = record.accepted = True
            return value
        record.outcome = "hard_violation"
        record.violations.append(
            Violation(kind="hard", message=problem, key=key, attempt=number, source="pre", targets=("input",))
        )
        if number < limit:
            problems = _feedback_text(attempts, spec.accumulate_errors)
            value = _repair_input(spec, self._contract_prompt, value, problems, record)
    raise ContractError(
        f"{spec.cls_name}.pre rejected the input after {len(attempts)} attempt(s): {attempts[-1].messages[-1]}",
        module=spec.cls_name, attempts=attempts, stage="input_validation",
    )


def _feedback_text(attempts: list[AttemptRecord], accumulate: bool) -> str:
    source = attempts if accumulate else attempts[-1:]
    return "\n".join(f"- Attempt {a.number}: {m}" for a in source for m in a.messages)


def _repair_input(spec: ContractSpec, task: str, value: Any, problems: str, record: AttemptRecord) -> Any:
    """Ask the remedy LM for a corrected input (kept out of the trace); on failure keep the input."""
    repair = dspy.Predict(spec.repair_signature())
    overrides: dict[str, Any] = {"trace": None}
    if spec.remedy_lm is not None:
        overrides["lm"] = spec.remedy_lm
    try:
        with dspy.context(**overrides):
            prediction = repair(task=task, problems=problems, **{spec.input_name: value})
        return prediction[f"repaired_{spec.input_name}"]
    except Exception as exc:
        record.error = f"{type(exc).__name__}: {exc}"[:500]
        return value


def _run_check(self: Any, spec: ContractSpec, method: str, value: Any) -> str | None:
    """Run ``pre`` / ``post``: None when it passes, the failure message when it raises."""
    try:
        result = getattr(self, method)(value)
    except _PROGRAMMING_ERRORS:
        raise
    except Exception as exc:
        return str(exc) or type(exc).__name__
    if result is None or result is True:
        return None
    if result is False:
        raise ContractDefinitionError(
            f"{spec.cls_name}.{method} returned False: a {method}-condition must raise an exception with a message "
            "(e.g. raise ValueError('...')) so that the failure can be reported and remedied."
        )
    raise ContractDefinitionError(
        f"{spec.cls_name}.{method} returned {type(result).__name__}; it must return None or True, or raise."
    )


def _act(self: Any, spec: ContractSpec, value: Any, kwargs: dict[str, Any]) -> Any:
    try:
        result = self.act(value, **kwargs) if spec.act_takes_kwargs else self.act(value)
    except _PROGRAMMING_ERRORS:
        raise
    except Exception as exc:
        error = ContractError(f"{spec.cls_name}.act failed: {exc}", module=spec.cls_name, stage="act")
        raise error from exc
    result, problem = coerce(result, spec.act_type)
    if problem is not None:
        raise ContractError(
            f"{spec.cls_name}.act returned a value that is not a {type_name(spec.act_type)}: {problem}",
            module=spec.cls_name, stage="act",
        )
    return result


def _generate_output(self: Any, spec: ContractSpec, value: Any, rng: random.Random) -> Any:
    """Generate a candidate, type-check it and run ``post``; regenerate with feedback on failure."""
    generator = self.contract_generator

    def attempt() -> Any:
        run = current_run()
        kwargs: dict[str, Any] = {spec.input_name: value}
        if spec.remedy_lm is not None and run is not None and run.attempt_number > 1:
            kwargs["lm"] = spec.remedy_lm
        candidate = generator(**kwargs)[spec.output_name]  # a fresh candidate on every attempt
        candidate, problem = coerce(candidate, spec.output_type)
        if problem is not None:
            Assert(False, f"The output is not a valid {type_name(spec.output_type)}: {problem}",
                   target=generator, key="output_type")
        if spec.has_post:
            problem = _run_check(self, spec, "post", candidate)
            if problem is not None:
                Assert(False, problem, target=generator, key="post")
        return candidate

    try:
        return run_contract(self, spec.cls_name, spec.output_options, attempt, (), {},
                            pause=lambda number: spec.schedule.pause(number, rng))
    except ContractError as exc:
        exc.stage = "output_validation"
        raise


def _check_return(spec: ContractSpec, output: Any) -> Any:
    wrapped, problem = coerce(output, spec.output_type)
    if problem is None:
        return wrapped
    if spec.graceful:
        logger.warning("%s.forward returned %s, not %s (graceful: returned as is).",
                       spec.cls_name, type(output).__name__, type_name(spec.output_type))
        return output
    raise ContractDefinitionError(
        f"{spec.cls_name}.forward returned {type(output).__name__}, not {type_name(spec.output_type)}: {problem}"
    )
