"""Options of a contracted module, validated once when the contract is declared."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, get_args

from dspy.utils.exceptions import AdapterParseError

from groundqa.contracts.constraints import Constraint
from groundqa.contracts.errors import ContractDefinitionError

#: What happens when a hard constraint is still violated after the last attempt.
Policy = Literal["raise", "fallback", "return_best", "return_last", "refrain", "noop"]
#: Which output to keep when only soft constraints remain violated.
SoftKeep = Literal["best", "last"]

POLICIES: tuple[str, ...] = get_args(Policy)


@dataclass(frozen=True)
class ContractOptions:
    """How a contracted module retries and what it returns when its attempts run out.

    ``max_attempts`` counts every attempt, the first included (``noop`` makes exactly one).
    ``retry_on`` lists exceptions that count as a hard violation of the attempt (the target
    predictor is told why) instead of propagating; by default DSPy's adapter parse errors.
    """

    max_attempts: int = 3
    policy: Policy = "raise"
    fallback: Callable[..., Any] | None = None
    accumulate_errors: bool = True
    soft_keep: SoftKeep = "best"
    constraints: tuple[Constraint, ...] = ()
    retry_on: tuple[type[BaseException], ...] = (AdapterParseError,)

    def __post_init__(self) -> None:
        if isinstance(self.max_attempts, bool) or not isinstance(self.max_attempts, int) or self.max_attempts < 1:
            raise ContractDefinitionError(f"max_attempts must be an int >= 1, got {self.max_attempts!r}.")
        if self.policy not in POLICIES:
            raise ContractDefinitionError(f"policy must be one of {', '.join(POLICIES)}; got {self.policy!r}.")
        if self.policy == "fallback" and not callable(self.fallback):
            raise ContractDefinitionError("policy='fallback' needs fallback=<callable>.")
        if self.policy != "fallback" and self.fallback is not None:
            raise ContractDefinitionError(f"fallback= is only used with policy='fallback' (policy is {self.policy!r}).")
        if self.soft_keep not in get_args(SoftKeep):
            raise ContractDefinitionError(f"soft_keep must be 'best' or 'last', got {self.soft_keep!r}.")
        if not isinstance(self.accumulate_errors, bool):
            raise ContractDefinitionError("accumulate_errors must be a bool.")
        constraints = tuple(self.constraints)
        for item in constraints:
            if not isinstance(item, Constraint):
                raise ContractDefinitionError(f"constraints must be Constraint objects, got {type(item).__name__}.")
        object.__setattr__(self, "constraints", constraints)
        retry_on = tuple(self.retry_on)
        for item in retry_on:
            if not (isinstance(item, type) and issubclass(item, BaseException)):
                raise ContractDefinitionError(f"retry_on must hold exception classes, got {item!r}.")
        object.__setattr__(self, "retry_on", retry_on)

    @property
    def attempts_allowed(self) -> int:
        """Attempts actually run: ``max_attempts``, or one for ``noop``."""
        return 1 if self.policy == "noop" else self.max_attempts
