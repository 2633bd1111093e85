"""The judge interface: ``judge(hypothesis, premises) -> Verdict`` (pick one with :mod:`.registry`).

Both the programs (the synthesizer's support check, the premise verifier) and the metrics (ALCE
citation scores, faithfulness) judge entailment, so the interface lives here, below both: a program
never has to import its own evaluation package to check what it wrote.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, Field


class JudgeNotConfiguredError(RuntimeError):
    """The LM judge was asked to judge but no DSPy LM is configured."""


class Verdict(BaseModel):
    """A judge's decision on one hypothesis against a set of premises."""

    entailed: bool
    confidence: float = Field(ge=0.0, le=1.0, description="confidence in the verdict as given")
    evidence: list[int] = Field(default_factory=list, description="0-based indices of supporting premises")
    rationale: str = ""

    @property
    def support(self) -> float:
        """Probability-like support for *entailed*: ``confidence`` if entailed else ``1 - confidence``."""
        return self.confidence if self.entailed else 1.0 - self.confidence


@runtime_checkable
class EntailmentJudge(Protocol):
    """Decides whether the premises (jointly) entail the hypothesis."""

    name: str

    def judge(self, hypothesis: str, premises: Sequence[str]) -> Verdict: ...
