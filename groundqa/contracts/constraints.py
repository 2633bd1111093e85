"""``Assert`` / ``Suggest`` for use inside ``forward``, and declarative :class:`Constraint` objects."""

from __future__ import annotations

import inspect
import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from groundqa.contracts.errors import ContractDefinitionError, ContractError
from groundqa.contracts.records import Kind
from groundqa.contracts.state import ContractHalt, current_contract_call

logger = logging.getLogger(__name__)

Target = Any  # a dspy.Predict, a dspy.Module holding predictors, an attribute path, or None


def Assert(condition: bool, message: str, *, target: Target = None, key: str | None = None,  # noqa: N802
           halt: bool | None = None) -> bool:
    """Hard constraint: when ``condition`` is False the attempt fails and the module runs again.

    ``target`` is the predictor that receives ``message`` and its previous outputs on the retry
    (a predictor, a module, or an attribute path such as ``"generate"``); by default the last
    predictor called in this attempt. ``key`` groups violations in the report (default: the
    message). ``halt`` stops the attempt at once; by default it does unless the policy can return
    a violating output (``return_best``, ``return_last``, ``noop``). Returns ``condition``.
    Outside a contracted module a failing Assert raises :class:`ContractError` at once.
    """
    if _check_call("Assert", condition, message):
        return True
    run = current_contract_call()
    if run is None:
        where = _call_site(2)
        raise ContractError(f"Assert failed in {where} (not inside a contracted module): {message}", module=where)
    violation = run.record_violation("hard", message, key=key, target=target, source="Assert")
    if run.should_halt(halt):
        raise ContractHalt(run, violation)
    return False


def Suggest(condition: bool, message: str, *, target: Target = None, key: str | None = None) -> bool:  # noqa: N802
    """Soft constraint: recorded, retried while attempts remain, never raised; returns ``condition``.

    After the last attempt the best (or last, see ``soft_keep``) output is kept. Outside a
    contracted module a failing Suggest only logs a warning.
    """
    if _check_call("Suggest", condition, message):
        return True
    run = current_contract_call()
    if run is None:
        logger.warning("Suggest failed in %s (not inside a contracted module): %s", _call_site(2), message)
        return False
    run.record_violation("soft", message, key=key, target=target, source="Suggest")
    return False


def _check_call(kind: str, condition: object, message: object) -> bool:
    """Validate the arguments of Assert / Suggest and return the condition as a bool."""
    if type(condition) is not bool:
        if type(condition).__name__ == "bool_" and type(condition).__module__ == "numpy":
            condition = bool(condition)
        else:
            shown = repr(condition)
            shown = shown if len(shown) <= 60 else shown[:57] + "..."
            raise ContractDefinitionError(
                f"{kind} in {_call_site(3)}: the condition must be a bool, got {type(condition).__name__} "
                f"({shown}); write bool(...) if truthiness is meant."
            )
    if not isinstance(message, str) or not message.strip():
        raise ContractDefinitionError(f"{kind} in {_call_site(3)}: the message must be a non-empty string.")
    return condition  # type: ignore[return-value]


def _call_site(depth: int) -> str:
    """``Class.method`` (or ``function``) of the frame ``depth`` levels above the caller."""
    frame = sys._getframe(depth)
    method = frame.f_code.co_name
    owner = frame.f_locals.get("self")
    return f"{type(owner).__name__}.{method}" if owner is not None else method


@dataclass(frozen=True)
class Constraint:
    """A declarative constraint checked after each attempt; it never halts an attempt.

    ``check`` takes ``(output)`` or ``(inputs, output)`` and returns a bool. Attached to the
    module (default), ``inputs`` are the call's arguments and ``output`` what ``forward`` returned.
    Attached to a predictor (``predictor="generate"`` or the predictor itself), it is checked on
    every call of that predictor in the attempt, with that call's inputs and prediction, and the
    feedback goes to that predictor unless ``target`` says otherwise. ``message`` may be a
    callable with the same arguments as ``check``.
    """

    check: Callable[..., bool]
    message: str | Callable[..., str]
    kind: Kind = "hard"
    target: Target = None
    predictor: Target = None
    key: str | None = None
    _arities: tuple[int, int] = field(default=(1, 1), init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.kind not in ("hard", "soft"):
            raise ContractDefinitionError(f"Constraint kind must be 'hard' or 'soft', got {self.kind!r}.")
        if not callable(self.check):
            raise ContractDefinitionError(f"Constraint check must be callable, got {type(self.check).__name__}.")
        message_arity = 0
        if callable(self.message):
            message_arity = _arity(self.message, "message")
        elif not isinstance(self.message, str) or not self.message.strip():
            raise ContractDefinitionError("Constraint message must be a non-empty string or a callable.")
        object.__setattr__(self, "_arities", (_arity(self.check, "check"), message_arity))

    @property
    def name(self) -> str:
        """The check's name, for error messages."""
        return getattr(self.check, "__qualname__", repr(self.check))

    def holds(self, inputs: dict[str, Any], output: Any) -> bool:
        """Run the check; a non-bool result is a definition error."""
        result = _call(self.check, self._arities[0], inputs, output)
        if type(result) is not bool:
            if type(result).__name__ == "bool_" and type(result).__module__ == "numpy":
                return bool(result)
            raise ContractDefinitionError(
                f"Constraint {self.name} must return a bool, got {type(result).__name__}."
            )
        return result

    def render(self, inputs: dict[str, Any], output: Any) -> str:
        """The violation message for this output."""
        if callable(self.message):
            return str(_call(self.message, self._arities[1], inputs, output))
        return self.message


def _arity(fn: Callable[..., Any], what: str) -> int:
    """1 when ``fn`` takes ``(output)``, 2 when it takes ``(inputs, output)``."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return 1
    for count in (2, 1):
        try:
            signature.bind(*range(count))
            return count
        except TypeError:
            continue
    raise ContractDefinitionError(f"Constraint {what} {fn!r} must take (output) or (inputs, output).")


def _call(fn: Callable[..., Any], arity: int, inputs: dict[str, Any], output: Any) -> Any:
    return fn(inputs, output) if arity == 2 else fn(output)
