"""One call of a ``@contract`` module: input validation, act, output validation, forward."""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import dspy
from dspy.dsp.utils.settings import settings

from groundqa.contracts.constraints import Assert
from groundqa.contracts.decorator.native_types import coerce, type_name
from groundqa.contracts.decorator.perf import timed
from groundqa.contracts.decorator.spec import ContractSpec
from groundqa.contracts.errors import ContractConfigurationError, ContractDefinitionError, ContractError
from groundqa.contracts.records import AttemptRecord, Violation
from groundqa.contracts.runner import run_contract
from groundqa.contracts.state import current_contract_call

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


def state_of(instance: Any) -> CallState | None:
    """The running call of ``instance`` in this context, else its last finished call here."""
    for var in (_current_call, _last_call):
        state = var.get()
        if state is not None and state.owner is instance:
            return state
    return None


def run_call(self: Any, spec: ContractSpec, original_forward: Callable[..., Any],
             args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Run the contract pipeline for one call of ``self`` and return what ``forward`` returns."""
    value, extra, rebuild = _bind_input(spec, args, kwargs)
    _require_lms(self, spec)
    state = CallState(owner=self)
    token = _current_call.set(state)
    timings: dict[str, float] = {}
    rng = random.Random(spec.seed) if spec.schedule.jittered else None  # seeding costs ~20 µs
    try:
        with timed(timings, "total"):
            current, stage = value, "input_validation"
            try:
                with timed(timings, stage):
                    current = _validate_input(self, spec, value, rng)
                if spec.has_act:
                    stage = "act"
                    with timed(timings, stage):
                        current = _act(self, spec, current, extra)
                stage = "output_validation"
                with timed(timings, stage):
                    state.result = _generate_output(self, spec, current, rng)
                state.successful = True
            except _PROGRAMMING_ERRORS:
                raise
            except ContractError as exc:
                state.exception = exc
            except Exception as exc:  # e.g. an LM error: the contract fails, forward still runs
                state.exception = ContractError(
                    f"{spec.cls_name}: {stage} failed: {type(exc).__name__}: {exc}", module=spec.cls_name, stage=stage
                )
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


def _validate_input(self: Any, spec: ContractSpec, value: Any, rng: random.Random | None) -> Any:
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


def _generate_output(self: Any, spec: ContractSpec, value: Any, rng: random.Random | None) -> Any:
    """Generate a candidate, type-check it and run ``post``; regenerate with feedback on failure."""
    generator = self.contract_generator

    def attempt() -> Any:
        run = current_contract_call()
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
