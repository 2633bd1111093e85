"""The attempt loop of a contracted call: retries with feedback, trace hygiene, policies."""

from __future__ import annotations

import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import dspy
from dspy.dsp.utils.settings import settings

from groundqa.contracts.errors import ContractConfigurationError, ContractDefinitionError, ContractError
from groundqa.contracts.feedback import feedback_adapter
from groundqa.contracts.options import ContractOptions
from groundqa.contracts.records import AttemptRecord, ContractReport, ReportOutcome
from groundqa.contracts.state import RUN_KEY, ContractCallState, ContractHalt, current_contract_call

logger = logging.getLogger(__name__)

#: Key of the report collector in ``dspy.settings`` overrides (see :func:`collect_reports`).
REPORTS_KEY = "_groundqa_contract_reports"
_NEVER_ABSORBED = (ContractDefinitionError, ContractConfigurationError)


@contextmanager
def collect_reports() -> Iterator[list[ContractReport]]:
    """Collect the report of every contracted call made inside the block (this context only)."""
    reports: list[ContractReport] = []
    with settings.context(**{REPORTS_KEY: reports}):
        yield reports


def run_contract(
    root: dspy.Module,
    name: str,
    options: ContractOptions,
    call: Callable[[], Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    pause: Callable[[int], None] | None = None,
) -> Any:
    """Run ``call`` until it satisfies its constraints or the attempts run out; apply the policy."""
    run, outer_trace, adapter = _start(root, name, options)
    for number in range(1, options.attempts_allowed + 1):
        if number > 1 and pause is not None:
            pause(number)
        with _attempt(run, adapter) as record:
            output = call()
            _check_constraints(run, args, kwargs, output, root)
            record.output, record.has_output = output, True
        if _finished(run):
            break
    return _finish(run, outer_trace, args, kwargs)


async def arun_contract(
    root: dspy.Module,
    name: str,
    options: ContractOptions,
    call: Callable[[], Awaitable[Any]],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> Any:
    """Async twin of :func:`run_contract` (the fallback may be sync or async)."""
    run, outer_trace, adapter = _start(root, name, options)
    for _number in range(options.attempts_allowed):
        with _attempt(run, adapter) as record:
            output = await call()
            _check_constraints(run, args, kwargs, output, root)
            record.output, record.has_output = output, True
        if _finished(run):
            break
    result = _finish(run, outer_trace, args, kwargs)
    if inspect.isawaitable(result):
        return _attach(await result, run.report)
    return result


def _start(root: dspy.Module, name: str, options: ContractOptions) -> tuple[ContractCallState, Any, Any]:
    run = ContractCallState(root=root, name=name, options=options, parent=current_contract_call())
    return run, settings.trace, feedback_adapter(settings.adapter)


@contextmanager
def _attempt(run: ContractCallState, adapter: Any) -> Iterator[AttemptRecord]:
    """One attempt under its own trace list, the feedback adapter and this run's state."""
    record = run.begin_attempt()
    start = time.perf_counter()
    try:
        with settings.context(adapter=adapter, trace=record.trace, **{RUN_KEY: run}):
            yield record
    except ContractHalt as halt:
        if halt.run is not run:
            raise
        record.outcome = "halted"
    except Exception as exc:
        if not _absorb(run, record, exc):
            raise
    else:
        record.settle()
    finally:
        record.latency_ms = (time.perf_counter() - start) * 1000.0
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug("%s attempt %d: %s in %.2f ms %s", run.name, record.number, record.outcome,
                         record.latency_ms, record.messages)


def _absorb(run: ContractCallState, record: AttemptRecord, exc: Exception) -> bool:
    """Turn a retryable exception into a hard violation of the attempt; False to propagate."""
    if isinstance(exc, _NEVER_ABSORBED):
        return False
    text = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, run.options.retry_on):
        message = "The previous output could not be used: " + _shorten(str(exc) or type(exc).__name__, 400)
        target = run.failed_caller or run.last_predictor()
        run.record_violation("hard", message, key=f"error:{type(exc).__name__}", target=target, source="error")
        record.error, record.outcome = _shorten(text, 500), "error"
        return True
    if record.hard:
        # With a non-halting Assert, code after it may fail on the bad value: a consequence.
        record.error, record.outcome = _shorten(text, 500), "halted"
        return True
    return False


def _check_constraints(
    run: ContractCallState, args: tuple[Any, ...], kwargs: dict[str, Any], output: Any, root: dspy.Module
) -> None:
    """Evaluate the declarative constraints on the finished attempt."""
    constraints = run.options.constraints
    if not constraints:
        return
    inputs: dict[str, Any] | None = None
    for constraint in constraints:
        if constraint.predictor is None:
            if inputs is None:
                inputs = _call_inputs(root, args, kwargs)
            if not constraint.holds(inputs, output):
                run.record_violation(
                    constraint.kind, constraint.render(inputs, output),
                    key=constraint.key, target=constraint.target, source="Constraint",
                )
            continue
        watched = run.resolve_targets(constraint.predictor)
        for predictor, call_inputs, prediction in list(run.current.trace):
            if not any(predictor is p for p in watched):
                continue
            if not constraint.holds(call_inputs, prediction):
                target = constraint.target if constraint.target is not None else predictor
                run.record_violation(
                    constraint.kind, constraint.render(call_inputs, prediction),
                    key=constraint.key, target=target, source="Constraint",
                )


def _call_inputs(root: dspy.Module, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The call's arguments by parameter name (positional ones bound to ``forward``'s names)."""
    if not args:
        return dict(kwargs)
    try:
        bound = inspect.signature(type(root).forward).bind(root, *args, **kwargs)
    except TypeError:
        return {"args": args, **kwargs}
    arguments = dict(bound.arguments)
    arguments.pop(next(iter(arguments)), None)  # self
    return arguments


def _finished(run: ContractCallState) -> bool:
    return run.current.outcome == "passed" or run.options.policy == "noop"


def _select(run: ContractCallState) -> tuple[AttemptRecord | None, ReportOutcome | None]:
    """The attempt to return, if any: a clean one first, then what the policy allows."""
    completed = [a for a in run.attempts if a.has_output]
    clean = [a for a in completed if not a.hard]
    if clean:
        if run.options.soft_keep == "last":
            return clean[-1], "accepted"
        return min(clean, key=lambda a: (a.soft, -a.number)), "accepted"
    if not completed:
        return None, None
    policy = run.options.policy
    if policy == "noop":
        return completed[0], "noop"
    if policy == "return_best":
        return min(completed, key=lambda a: (a.hard, a.soft, -a.number)), "returned_best"
    if policy == "return_last":
        return completed[-1], "returned_last"
    return None, None


def _finish(run: ContractCallState, outer_trace: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    options = run.options
    report = ContractReport(module=run.name, policy=options.policy, max_attempts=options.max_attempts,
                            attempts=run.attempts)
    run.report = report
    chosen, outcome = _select(run)
    if chosen is not None and outcome is not None:
        chosen.accepted = True
        report.outcome, report.accepted_attempt = outcome, chosen.number
        _extend_trace(outer_trace, chosen.trace)
        _publish(report)
        output = chosen.output
        # The result and the caller's trace hold these; keeping them here too would make reference
        # cycles (result -> report -> attempt -> result) that only the garbage collector can free.
        chosen.output, chosen.trace = None, []
        return _attach(output, report)
    if options.policy == "fallback":
        report.outcome = "fallback"
        _publish(report)
        fallback_trace: list[Any] = []
        with settings.context(trace=fallback_trace):
            result = options.fallback(*args, attempts=list(run.attempts), **kwargs)  # type: ignore[misc]
        _extend_trace(outer_trace, fallback_trace)
        return result if inspect.isawaitable(result) else _attach(result, report)
    if options.policy == "refrain":
        report.outcome = "refrained"
        _publish(report)
        return _attach(_refrained_prediction(run), report)
    report.outcome = "raised"
    _publish(report)
    raise ContractError(_failure_message(run), module=run.name, attempts=run.attempts, report=report)


def _failure_message(run: ContractCallState) -> str:
    hard = list(dict.fromkeys(v.message for a in run.attempts for v in a.violations if v.kind == "hard"))
    produced = any(a.has_output for a in run.attempts)
    why = "" if produced or run.options.policy not in ("return_best", "return_last") else (
        " (no attempt produced an output to return)"
    )
    shown = " | ".join(_shorten(m, 200) for m in hard[-5:]) or "no message"
    return f"{run.name}: hard constraints still violated after {len(run.attempts)} attempt(s){why}: {shown}"


def _refrained_prediction(run: ContractCallState) -> dspy.Prediction:
    """A Prediction whose fields (those seen in any attempt) are all None."""
    keys: list[str] = []
    for attempt in run.attempts:
        if attempt.has_output and isinstance(attempt.output, dspy.Example):
            names = list(attempt.output.keys())
            keys.extend(k for k in names if k not in keys)
    if not keys:
        for attempt in reversed(run.attempts):
            if attempt.trace:
                keys = list(attempt.trace[-1][2].keys())
                break
    return dspy.Prediction(**dict.fromkeys(keys))


def _extend_trace(trace: Any, entries: list[Any]) -> None:
    """Append the accepted attempt's entries to the caller's trace, honouring ``max_trace_size``."""
    if trace is None or not entries:
        return
    limit = settings.max_trace_size
    if limit <= 0:
        return
    for entry in entries:
        if len(trace) >= limit:
            trace.pop(0)
        trace.append(entry)


def _publish(report: ContractReport) -> None:
    reports = settings.get(REPORTS_KEY)
    if reports is not None:
        reports.append(report)


def _attach(output: Any, report: ContractReport) -> Any:
    """Expose the report on a returned Prediction as ``.contract`` (plus ``.violations``, ``.refrained``).

    These are plain attributes, not Prediction fields: they never reach ``keys()``, demos or saved state.
    """
    if isinstance(output, dspy.Example):
        object.__setattr__(output, "contract", report)
        store = output._store
        if "violations" not in store:
            object.__setattr__(output, "violations", report.violations)
        if "refrained" not in store:
            object.__setattr__(output, "refrained", report.refrained)
    return output


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
