"""Per-call state of a contracted module, kept in ``dspy.context`` (one per call, never global).

The state lives in DSPy's context overrides (a ``contextvars`` variable), so concurrent calls in
other threads never see it, and DSPy's own workers (``dspy.Parallel``) inherit it with the rest of
the settings.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import dspy
from dspy.dsp.utils.settings import settings
from dspy.utils import magicattr

from groundqa.contracts.errors import ContractDefinitionError
from groundqa.contracts.records import ALL_PREDICTORS, AttemptRecord, ContractReport, Kind, Violation

if TYPE_CHECKING:
    from groundqa.contracts.options import ContractOptions

#: Key of the contracted call's state in ``dspy.settings`` overrides.
RUN_KEY = "_groundqa_contract_run"
_ALL = ALL_PREDICTORS


class ContractHalt(BaseException):
    """Raised by a failing ``Assert`` to stop the attempt; caught by the runner that owns ``run``.

    A ``BaseException`` so that a ``forward`` catching ``Exception`` cannot swallow it.
    """

    def __init__(self, run: ContractCallState, violation: Violation) -> None:
        super().__init__(violation.message)
        self.run = run
        self.violation = violation


@dataclass(frozen=True)
class Injection:
    """What a target predictor receives on a retry: feedback text and its previous prediction."""

    feedback: str
    past: Any
    attempt: int


_named_cache: weakref.WeakKeyDictionary[Any, list[tuple[str, Any]]] = weakref.WeakKeyDictionary()
_named_lock = threading.Lock()


def named_predictors(root: dspy.Module) -> list[tuple[str, Any]]:
    """``root.named_predictors()``, cached per module while every cached path still holds its predictor.

    DSPy walks every attribute (histories included) on each call, which costs up to a millisecond.
    """
    with _named_lock:
        cached = _named_cache.get(root)
    if cached is not None and all(_holds(root, name, predictor) for name, predictor in cached):
        return cached
    fresh = list(root.named_predictors())
    with _named_lock:
        _named_cache[root] = fresh
    return fresh


def _holds(root: Any, name: str, predictor: Any) -> bool:
    if name == "self":
        return root is predictor
    try:
        parts = name.split(".")
        if all(part.isidentifier() for part in parts):
            found = root
            for part in parts:
                found = getattr(found, part)
            return found is predictor
        return magicattr.get(root, name) is predictor
    except Exception:
        return False


def current_contract_call() -> ContractCallState | None:
    """The state of the innermost contracted call in this context, if any."""
    return settings.get(RUN_KEY)


class ContractCallState:
    """Mutable state of one contracted call: its attempts, violations and planned feedback.

    One per call of a contracted module, nested calls chained by ``parent``; a whole question's run
    (budgets, usage, trace) is :class:`groundqa.runtime.run.RunState`.
    """

    def __init__(self, *, root: dspy.Module, name: str, options: ContractOptions, parent: ContractCallState | None) -> None:
        self.root = root
        self.name = name
        self.options = options
        self.parent = parent
        self.attempts: list[AttemptRecord] = []
        self.halt_default = options.policy in ("raise", "fallback", "refrain")
        self.last_caller: Any = None
        self.failed_caller: Any = None
        self._feedback: dict[int | str, str] = {}
        self._objects: dict[int, Any] = {}
        self._named: list[tuple[str, Any]] | None = None
        self.report: ContractReport | None = None

    # -- attempts -------------------------------------------------------------------------
    @property
    def current(self) -> AttemptRecord:
        """The attempt in progress."""
        return self.attempts[-1]

    @property
    def attempt_number(self) -> int:
        """Number (1-based) of the attempt in progress."""
        return len(self.attempts)

    def begin_attempt(self) -> AttemptRecord:
        """Plan the feedback from the previous attempts and open a new attempt."""
        self._feedback = self._plan_feedback() if self.attempts else {}
        record = AttemptRecord(number=len(self.attempts) + 1)
        record.feedback = {self._key_name(key): text for key, text in self._feedback.items()}
        self.attempts.append(record)
        self.last_caller = self.failed_caller = None
        return record

    # -- violations -----------------------------------------------------------------------
    def record_violation(
        self, kind: Kind, message: str, *, key: str | None, target: Any, source: str
    ) -> Violation:
        """Add a violation to the attempt in progress, with its feedback targets resolved."""
        objects = self.resolve_targets(target)
        for obj in objects:
            self._objects[id(obj)] = obj
        violation = Violation(
            kind=kind,
            message=message,
            key=key or message,
            attempt=self.attempt_number,
            source=source,
            targets=tuple(self.predictor_name(o) for o in objects) or (_ALL,),
            target_objects=objects,
        )
        self.current.violations.append(violation)
        return violation

    def should_halt(self, halt: bool | None) -> bool:
        """Whether a failing Assert stops the attempt (its own ``halt=`` first, then the policy)."""
        return self.halt_default if halt is None else halt

    # -- targets --------------------------------------------------------------------------
    def resolve_targets(self, target: Any) -> tuple[Any, ...]:
        """Predictors that receive the feedback; ``()`` means every predictor."""
        if target is None:
            last = self.last_predictor()
            return (last,) if last is not None else ()
        if isinstance(target, str):
            return self._predictors_named(target)
        if isinstance(target, dspy.Predict):
            return (target,)
        if isinstance(target, dspy.Module):
            found = tuple(p for _, p in named_predictors(target))
            if not found:
                raise ContractDefinitionError(f"{self.name}: target {type(target).__name__} holds no predictor.")
            return found
        raise ContractDefinitionError(
            f"{self.name}: target must be a predictor, a module or a predictor name, not {type(target).__name__}."
        )

    def last_predictor(self) -> Any:
        """The last predictor called in the attempt in progress (from its trace, else the adapter)."""
        trace = self.current.trace
        if trace:
            return trace[-1][0]
        return self.failed_caller or self.last_caller

    def predictor_name(self, predictor: Any) -> str:
        """The attribute path of ``predictor`` in the root module (its class name if not found)."""
        for name, candidate in self._named_predictors():
            if candidate is predictor:
                return name
        return type(predictor).__name__

    def _named_predictors(self) -> list[tuple[str, Any]]:
        if self._named is None:
            self._named = named_predictors(self.root)
        return self._named

    def _predictors_named(self, name: str) -> tuple[Any, ...]:
        named = self._named_predictors()
        exact = tuple(p for n, p in named if n == name)
        if exact:
            return exact
        nested = tuple(p for n, p in named if n.startswith(name + "."))
        if nested:
            return nested
        try:
            found = magicattr.get(self.root, name)
        except Exception:
            found = None
        if isinstance(found, dspy.Module):
            return self.resolve_targets(found)
        known = ", ".join(n for n, _ in named) or "none"
        raise ContractDefinitionError(f"{self.name}: target {name!r} names no predictor (known: {known}).")

    def _key_name(self, key: int | str) -> str:
        return _ALL if key == _ALL else self.predictor_name(self._objects[key])

    # -- feedback -------------------------------------------------------------------------
    def _plan_feedback(self) -> dict[int | str, str]:
        """Feedback text per target for the next attempt (all past attempts, or the last one)."""
        source = self.attempts if self.options.accumulate_errors else self.attempts[-1:]
        lines: dict[int | str, list[str]] = {}
        for attempt in source:
            for violation in attempt.violations:
                need = "must fix" if violation.kind == "hard" else "should fix"
                line = f"- Attempt {attempt.number} ({need}): {violation.message}"
                keys = [id(o) for o in violation.target_objects] or [_ALL]
                for key in keys:
                    bucket = lines.setdefault(key, [])
                    if line not in bucket:
                        bucket.append(line)
        return {key: "\n".join(bucket) for key, bucket in lines.items()}

    def latest_prediction(self, predictor: Any) -> Any:
        """The newest prediction ``predictor`` made in a previous attempt of this call."""
        for attempt in reversed(self.attempts[:-1]):
            for entry in reversed(attempt.trace):
                if entry[0] is predictor:
                    return entry[2]
        return None

    def injection_for(self, predictor: Any) -> Injection | None:
        """Feedback for ``predictor`` from this run and the enclosing contracted runs."""
        texts: list[str] = []
        past = None
        run: ContractCallState | None = self
        while run is not None:
            for key in (id(predictor), _ALL):
                text = run._feedback.get(key)
                if text and text not in texts:
                    texts.append(text)
                    if past is None:
                        past = run.latest_prediction(predictor)
            run = run.parent
        if not texts:
            return None
        return Injection(feedback="\n".join(texts), past=past, attempt=self.attempt_number)
