"""The LM entailment judge: asks the configured DSPy LM with :class:`groundqa.signatures.qa.JudgeClaim`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import dspy
from dspy.utils.exceptions import AdapterParseError

from groundqa.judges.base import JudgeNotConfiguredError, Verdict
from groundqa.signatures.qa import JudgeClaim


class LMJudge:
    """Entailment by the configured DSPy LM, with :class:`groundqa.signatures.qa.JudgeClaim`.

    Uses ``lm`` if given, else ``dspy.settings.lm``; raises :class:`JudgeNotConfiguredError` if neither
    exists. An unparseable LM answer gives ``entailed=False, confidence=0.0``. The judge's own LM calls
    are kept out of the caller's trace (so a metric using it does not
    pollute BootstrapFewShot's demos). ``entailed`` requires ``supported`` and ``confidence >=
    min_confidence``.
    """

    name = "lm"

    def __init__(self, lm: Any | None = None, min_confidence: float = 0.5) -> None:
        self.lm = lm
        self.min_confidence = min_confidence
        self._predict = dspy.Predict(JudgeClaim)

    def judge(self, hypothesis: str, premises: Sequence[str]) -> Verdict:
        """Ask the LM whether the numbered ``premises`` support ``hypothesis``."""
        lm = self.lm or dspy.settings.lm
        if lm is None:
            raise JudgeNotConfiguredError(
                "LMJudge needs a language model: call dspy.configure(lm=dspy.LM(...)) or pass "
                "LMJudge(lm=...); use get_judge('offline') for the deterministic offline judge."
            )
        if not premises:
            return Verdict(entailed=False, confidence=1.0, rationale="no premises")
        passages = "\n\n".join(f"[{i}] {text}" for i, text in enumerate(premises, start=1))
        try:
            with dspy.context(lm=lm, trace=None):
                out = self._predict(claim=hypothesis, passages=passages)
        except AdapterParseError as exc:  # an unparseable verdict is "not shown to be entailed", unsure
            return Verdict(entailed=False, confidence=0.0, rationale=f"LM judge output unparseable: {exc}"[:500])
        try:
            confidence = float(out.confidence)
        except (TypeError, ValueError):
            confidence = 0.5
        confidence = min(1.0, max(0.0, confidence))
        supported = bool(out.supported)
        evidence: list[int] = []
        for n in out.evidence or []:
            try:
                idx = int(n) - 1
            except (TypeError, ValueError):
                continue
            if 0 <= idx < len(premises) and idx not in evidence:
                evidence.append(idx)
        entailed = supported and confidence >= self.min_confidence
        return Verdict(
            entailed=entailed,
            confidence=confidence if supported == entailed else 1.0 - confidence,
            evidence=sorted(evidence) if entailed else [],
            rationale=str(out.rationale or ""),
        )
