"""What a contracted call records: violations, attempts and the report attached to the result."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

Kind = Literal["hard", "soft"]
#: How an attempt ended. ``halted``: an Assert stopped it before it produced an output;
#: ``error``: it raised a retryable exception (by default an adapter parse error).
AttemptOutcome = Literal["passed", "soft_violation", "hard_violation", "halted", "error"]
#: How the call ended. ``accepted``: the returned attempt breaks no hard constraint.
ReportOutcome = Literal["accepted", "returned_best", "returned_last", "noop", "fallback", "refrained", "raised"]

ALL_PREDICTORS = "*"


@dataclass(frozen=True)
class Violation:
    """One failed Assert / Suggest / Constraint.

    ``targets`` names the predictors that receive the feedback on the next attempt
    (``"*"``: every predictor, when no predictor was known).
    """

    kind: Kind
    message: str
    key: str
    attempt: int
    source: str
    targets: tuple[str, ...] = ()
    target_objects: tuple[Any, ...] = field(default=(), repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "kind": self.kind,
            "message": self.message,
            "key": self.key,
            "attempt": self.attempt,
            "source": self.source,
            "targets": list(self.targets),
        }


@dataclass
class AttemptRecord:
    """One run of the module: its number (1-based), the feedback it was given, how it ended.

    ``output`` and ``trace`` keep what a rejected attempt produced; for the returned attempt they
    are released once the call ends (the result and the caller's trace hold them).
    """

    number: int
    feedback: dict[str, str] = field(default_factory=dict)
    outcome: AttemptOutcome = "passed"
    latency_ms: float = 0.0
    violations: list[Violation] = field(default_factory=list)
    error: str | None = None
    accepted: bool = False
    has_output: bool = False
    output: Any = field(default=None, repr=False, compare=False)
    trace: list[Any] = field(default_factory=list, repr=False, compare=False)

    @property
    def hard(self) -> int:
        """Number of hard violations in this attempt."""
        return sum(1 for v in self.violations if v.kind == "hard")

    @property
    def soft(self) -> int:
        """Number of soft violations in this attempt."""
        return sum(1 for v in self.violations if v.kind == "soft")

    @property
    def messages(self) -> list[str]:
        """The violation messages of this attempt."""
        return [v.message for v in self.violations]

    def settle(self) -> None:
        """Set :attr:`outcome` of an attempt that produced an output from its violations."""
        if self.hard:
            self.outcome = "hard_violation"
        elif self.soft:
            self.outcome = "soft_violation"
        else:
            self.outcome = "passed"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (without the output and the trace)."""
        return {
            "number": self.number,
            "feedback": dict(self.feedback),
            "outcome": self.outcome,
            "latency_ms": round(self.latency_ms, 3),
            "violations": [v.to_dict() for v in self.violations],
            "error": self.error,
            "accepted": self.accepted,
        }


@dataclass
class ContractReport:
    """Everything a metric or a trace needs about one contracted call.

    Counts (``violations``, ``hard_violations``, ``soft_violations``, ``by_key``) are over all
    attempts; ``final_violations`` are those of the returned attempt only.
    """

    module: str
    policy: str
    max_attempts: int
    attempts: list[AttemptRecord] = field(default_factory=list)
    outcome: ReportOutcome = "accepted"
    accepted_attempt: int | None = None

    @property
    def violations(self) -> int:
        """Total number of violations over every attempt."""
        return sum(len(a.violations) for a in self.attempts)

    @property
    def hard_violations(self) -> int:
        """Total hard violations over every attempt."""
        return sum(a.hard for a in self.attempts)

    @property
    def soft_violations(self) -> int:
        """Total soft violations over every attempt."""
        return sum(a.soft for a in self.attempts)

    @property
    def by_key(self) -> dict[str, int]:
        """Violation counts by message key, over every attempt."""
        return dict(Counter(v.key for a in self.attempts for v in a.violations))

    @property
    def final_violations(self) -> list[Violation]:
        """Violations of the returned attempt (empty for fallback / refrain / raise)."""
        for attempt in self.attempts:
            if attempt.number == self.accepted_attempt:
                return list(attempt.violations)
        return []

    @property
    def messages(self) -> list[str]:
        """Every violation message, in order."""
        return [v.message for a in self.attempts for v in a.violations]

    @property
    def refrained(self) -> bool:
        """True when the call ended with policy ``refrain``."""
        return self.outcome == "refrained"

    @property
    def satisfied(self) -> bool:
        """True when the returned output breaks no constraint at all."""
        return self.outcome == "accepted" and not self.final_violations

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "module": self.module,
            "policy": self.policy,
            "max_attempts": self.max_attempts,
            "outcome": self.outcome,
            "accepted_attempt": self.accepted_attempt,
            "violations": self.violations,
            "hard_violations": self.hard_violations,
            "soft_violations": self.soft_violations,
            "by_key": self.by_key,
            "attempts": [a.to_dict() for a in self.attempts],
        }
