"""Cited synthesis: an answer from numbered passages whose citations are checked in code.

Contracts on the generating predictor:

* **Assert** (hard): the answer is non-empty, every ``[n]`` names a passage of this run, and every
  factual sentence cites at least one passage (only the first 3 citations of a sentence count).
* **Suggest** (soft): the answer addresses the question (a *when* question gets a date, *how many* a
  number, *who* a name; see :mod:`answer_checks`).

Violation keys (visible in the result's ``violations``): ``format`` (unparseable reply), ``empty``,
``citations``, ``support`` and ``relevance``.

* **Suggest** (soft): every cited sentence is supported by its cited passages per the entailment
  judge. After the last attempt the prediction says which sentences are unsupported, so the
  pipeline can drop them (or abstain when nothing is left).

A retry reaches the predictor with the previous answer and the feedback (the contracts runtime).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import dspy
from dspy.utils.exceptions import AdapterParseError

from groundqa.contracts import Assert, Suggest
from groundqa.judges import get_judge
from groundqa.refusals import looks_like_abstention
from groundqa.runtime.run import stage_scope
from groundqa.signatures.qa import NOT_IN_SOURCES, CitedAnswer

from .answer_checks import answer_problem
from .citations import SentenceCheck, analyse, citation_feedback
from .formats import FORMAT_INSTRUCTIONS


@dataclass
class SentenceSupport:
    index: int
    supported: bool
    confidence: float


class CitedSynthesizer(dspy.Module):
    """``forward(question, context, passages, format) -> dspy.Prediction(answer, declined, support)``."""

    def __init__(self, judge: Literal["offline", "lm"] = "offline", reasoning: bool = False,
                 support_threshold: float = 0.5) -> None:
        super().__init__()
        self.generate = dspy.ChainOfThought(CitedAnswer) if reasoning else dspy.Predict(CitedAnswer)
        self.judge_kind = judge
        self.support_threshold = support_threshold

    def support(self, checks: list[SentenceCheck], passages: list[str]) -> list[SentenceSupport]:
        """Judge every factual, validly cited sentence against the passages it cites."""
        judge = get_judge(self.judge_kind)
        results: list[SentenceSupport] = []
        for check in checks:
            if not check.factual or not check.cited or check.out_of_range:
                continue
            verdict = judge.judge(check.claim, [passages[n - 1] for n in check.cited])
            ok = verdict.entailed and verdict.support >= self.support_threshold
            results.append(SentenceSupport(check.index, ok, float(verdict.support)))
        return results

    def forward(self, question: str, context: str, passages: list[str], format: str = "prose") -> dspy.Prediction:
        n = len(passages)
        try:
            with stage_scope("answer"):
                answer = str(self.generate(
                    question=question, passages=context, format=FORMAT_INSTRUCTIONS.get(format, format),
                ).answer or "").strip()
        except AdapterParseError as exc:
            answer = ""
            Assert(False, "The reply did not follow the output format: give the field `answer` "
                          f"({type(exc).__name__}).", target=self.generate, key="format")
        if answer and looks_like_abstention(answer, instructed=True):  # the LM said the passages do not answer
            return dspy.Prediction(answer=answer, declined=True, support=[], checks=[], relevant=True)
        checks = analyse(answer, n)
        problems = citation_feedback(checks, n)
        Assert(bool(answer), "The answer is empty: answer from the passages with citations, or reply "
                             f"exactly {NOT_IN_SOURCES}.", target=self.generate, key="empty")
        Assert(not problems, " ".join(problems) or "Citations must name listed passages.", target=self.generate,
               key="citations")
        support = self.support(checks, passages)
        weak = [s for s in support if not s.supported]
        Suggest(
            not weak,
            " ".join(f"Sentence {s.index + 1} is not supported by the passages it cites; state only what "
                     "they say, or cite the passage that says it." for s in weak) or "Cited sentences are supported.",
            target=self.generate, key="support",
        )
        off_topic = answer_problem(question, answer)
        Suggest(off_topic is None, off_topic or "The answer addresses the question.", target=self.generate,
                key="relevance")
        return dspy.Prediction(answer=answer, declined=False, support=support, checks=checks,
                               relevant=off_topic is None)
