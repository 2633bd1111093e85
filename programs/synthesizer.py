"""Cited synthesis: an answer from numbered passages whose citations are checked in code.

Contracts on the generating predictor:

* **Assert** (hard): the answer is non-empty, every ``[n]`` names a passage of this run, and every
  factual sentence cites at least one passage (only the first 3 citations of a sentence count).
* **Suggest** (soft): the answer contains what the question asks for — the asked type (a *when*
  question gets a date, *how many* a number, *who* a name) and the asked attribute — at least
  ``gates.answerability`` of it (see :mod:`.answerability`).

* **Suggest** (soft): every cited sentence is supported by its cited passages per the entailment
  judge (support at least ``gates.support_threshold``). After the last attempt the prediction says
  which sentences are unsupported, so the pipeline can drop them (or abstain when nothing is left).

Violation keys (visible in the result's ``violations``): ``format`` (unparseable reply), ``empty``,
``citations``, ``support`` and ``answerability``.

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
from groundqa.text import opening

from . import answerability
from .citations import SentenceCheck, analyse, citation_feedback
from .formats import FORMAT_INSTRUCTIONS
from .gates import Gates


@dataclass
class SentenceSupport:
    index: int
    supported: bool
    confidence: float


class CitedSynthesizer(dspy.Module):
    """``forward(question, context, passages, format, titles) -> dspy.Prediction(answer, declined, support,
    relevant, answerability)``; thresholds come with each call (the program's :class:`Gates`)."""

    def __init__(self, judge: Literal["offline", "lm"] = "offline", reasoning: bool = False) -> None:
        super().__init__()
        self.generate = dspy.ChainOfThought(CitedAnswer) if reasoning else dspy.Predict(CitedAnswer)
        self.judge_kind = judge

    def support(self, checks: list[SentenceCheck], passages: list[str], threshold: float) -> list[SentenceSupport]:
        """Judge every factual, validly cited sentence against the passages it cites."""
        judge = get_judge(self.judge_kind)
        results: list[SentenceSupport] = []
        for check in checks:
            if not check.factual or not check.cited or check.out_of_range:
                continue
            verdict = judge.judge(check.claim, [passages[n - 1] for n in check.cited])
            ok = verdict.entailed and verdict.support >= threshold
            results.append(SentenceSupport(check.index, ok, float(verdict.support)))
        return results

    def forward(self, question: str, context: str, passages: list[str], format: str = "prose",
                titles: list[str] | None = None, gates: Gates | None = None,
                max_tokens: int | None = None) -> dspy.Prediction:
        gates = gates if gates is not None else Gates()
        n = len(passages)
        limit = {"config": {"max_tokens": max_tokens}} if max_tokens else {}
        try:
            with stage_scope("answer"):
                answer = str(self.generate(
                    question=question, passages=context, format=FORMAT_INSTRUCTIONS.get(format, format), **limit,
                ).answer or "").strip()
        except AdapterParseError as exc:
            answer = ""
            Assert(False, "The reply did not follow the output format: give the field `answer` "
                          f"({type(exc).__name__}).", target=self.generate, key="format")
        if answer and looks_like_abstention(answer, instructed=True):  # the LM said the passages do not answer
            return dspy.Prediction(answer=answer, declined=True, support=[], checks=[], relevant=True, answerability=0.0)
        checks = analyse(answer, n)
        problems = citation_feedback(checks, n)
        Assert(bool(answer), "The answer is empty: answer from the passages with citations, or reply "
                             f"exactly {NOT_IN_SOURCES}.", target=self.generate, key="empty")
        Assert(not problems, " ".join(problems) or "Citations must name listed passages.", target=self.generate,
               key="citations")
        support = self.support(checks, passages, gates.support_threshold)
        weak = [s for s in support if not s.supported]
        Suggest(
            not weak,
            " ".join(f"Sentence {s.index + 1} is not supported by the passages it cites; state only what "
                     "they say, or cite the passage that says it." for s in weak) or "Cited sentences are supported.",
            target=self.generate, key="support",
        )
        what = answerability.asked(question)
        cited = list(dict.fromkeys(n for c in checks for n in c.cited if 1 <= n <= len(passages)))
        cited_titles = " ".join(dict.fromkeys((titles or [])[n - 1] for n in cited if titles))
        openings = " ".join(opening(passages[n - 1]) for n in cited)
        found = answerability.check(what, answer, title=cited_titles, conflict_coverage=gates.contradiction,
                                    about=openings)
        answers = found.score >= gates.answerability
        Suggest(answers, found.feedback(what), target=self.generate, key="answerability")
        return dspy.Prediction(answer=answer, declined=False, support=support, checks=checks, relevant=answers,
                               answerability=found.score)
