"""The last stage: answer or abstain, decided by a model the compile fits (selective answering).

Every stage before this one decides alone, from one signal and one gate: the evidence floor from the
retrieval score, the premise check from its judge, the answerability check from the asked type and
attribute, ``min_confidence`` from the confidence formula. On a corpus the rules were not written for, each
errs in its own direction, and no single gate can be moved to fix what the others do (a calibration that
lowers the premise floor answers the adversarial questions too). A selective-QA calibrator (Kamath, Jia and
Liang 2020, *Selective Question Answering under Domain Shift*) weighs the signals together: a logistic model
over the run's :class:`Signals` gives the probability that answering scores better than abstaining, and the
program answers only from ``threshold`` on. Where a stage refused but the model trusts the best passage
sentence, the program quotes it (cited, ``mode="extractive"``); where a stage answered and the model does not
trust the answer, it abstains (``low_confidence``, the probability in the message).

The model is program state (:class:`Selector`, a DSPy ``Parameter``: ``program.save``/``load`` round-trip it,
MLflow logs it, ``groundqa compare --diff`` shows it). It is empty by default, and then this stage does
nothing: the gates decide alone. ``python optimize.py --optimizer select`` fits it on the user's trainset and
keeps it only when it beats the unselected program in a grouped cross-validation on that trainset
(:mod:`groundqa.optimizers.select`). A run never refuses a question the selector cannot read: bad input and
stopped runs keep their exit reasons.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from pydantic import BaseModel, Field, field_validator

from groundqa.judges.lexical import TextFeatures, features
from groundqa.signatures.types import AbstainReason, Citation, GroundedResult, Passage
from groundqa.text import content_words

from .answerability import asked, check, holds_value
from .extractive import Extraction
from .state import StateModel

#: What a run can end in that the selector may overturn: an answer, or a refusal of the grounding stages.
#: (Bad input, a stopped run and a failed LM contract are not questions of grounding.)
SELECTABLE = {None, AbstainReason.PREMISE_UNSUPPORTED, AbstainReason.PREMISE_CONTRADICTED, AbstainReason.NOT_ANSWERED,
              AbstainReason.LOW_CONFIDENCE, AbstainReason.TOO_FEW_SOURCES, AbstainReason.NO_EVIDENCE}
_REASONS = {AbstainReason.PREMISE_UNSUPPORTED: "refused_premise", AbstainReason.PREMISE_CONTRADICTED: "contradicted",
            AbstainReason.NOT_ANSWERED: "not_answered", AbstainReason.LOW_CONFIDENCE: "low_confidence",
            AbstainReason.TOO_FEW_SOURCES: "few_sources", AbstainReason.NO_EVIDENCE: "few_sources"}
_KINDS = ("yes_no", "number", "date", "person", "place")


class Signals(BaseModel):
    """What one run says about whether to answer: the stages' verdicts and the candidate answer's scores."""

    answered: float = Field(0.0, description="1 when the stages answered")
    refused_premise: float = Field(0.0, description="1 when a presupposition was refused as unsupported")
    contradicted: float = Field(0.0, description="1 when a passage contradicted a presupposition")
    not_answered: float = Field(0.0, description="1 when no sentence held what was asked (not_answered)")
    low_confidence: float = Field(0.0, description="1 when the answer fell below min_confidence")
    few_sources: float = Field(0.0, description="1 when too few passages cleared the evidence floor")
    confidence: float = Field(0.0, description="the answer's confidence (0 when the stages refused)")
    retrieval_top: float = Field(0.0, description="best retrieval score for the question")
    retrieval_margin: float = Field(0.0, description="best minus second-best retrieval score")
    sentence_score: float = Field(0.0, description="the candidate sentence's extractive score")
    answerability: float = Field(0.0, description="the candidate's answerability (asked type and attribute)")
    has_type: float = Field(0.0, description="1 when the answerability check finds the asked type (no swapped "
                                             "word, every pinned name)")
    coverage: float = Field(0.0, description="share of the asked attribute the candidate covers")
    holds_value: float = Field(0.0, description="1 when the candidate sentence holds a value of the asked type")
    overlap: float = Field(0.0, description="share of the question's content words in the candidate")
    unseen_words: float = Field(1.0, description="share of the question's content words its passage lacks "
                                                 "(title included): a question about something else; 1 without "
                                                 "a candidate")
    unseen_names: float = Field(0.0, description="share of the question's name words its passage lacks")
    unseen_numbers: float = Field(0.0, description="1 when a number of the question is not in its passage")
    negated: float = Field(0.0, description="1 when the question negates a clause ('never', 'not', "
                                            "'didn't')")
    premise_min: float = Field(1.0, description="lowest judge confidence of a presupposition (1 when none)")
    premises: float = Field(0.0, description="presuppositions checked, capped at 3, over 3")
    generated: float = Field(0.0, description="1 when the answer was written by the LM")
    asks_yes_no: float = Field(0.0, description="1 for a yes/no question")
    asks_number: float = Field(0.0, description="1 for a how-many / how-much question")
    asks_date: float = Field(0.0, description="1 for a when question")
    asks_person: float = Field(0.0, description="1 for a who question")
    asks_place: float = Field(0.0, description="1 for a where question")

    def vector(self) -> dict[str, float]:
        return self.model_dump()


SIGNAL_NAMES = tuple(Signals.model_fields)


@dataclass(frozen=True)
class Candidate:
    """What the program would answer were it to answer: the best passage sentence(s), cited."""

    answer: str
    citations: list[Citation]
    passages: list[Passage]
    confidence: float

    def answer_in(self, result: GroundedResult) -> None:
        """Make ``result`` this extractive answer (what the stage does when it overturns a refusal, and what
        ``SelectAnswers`` scores as the choice to answer)."""
        result.abstained, result.abstain_reason, result.abstain_message, result.correction = False, None, "", None
        result.answer, result.citations, result.passages = self.answer, self.citations, self.passages
        result.mode, result.confidence = "extractive", self.confidence


def read_signals(question: str, result: GroundedResult, candidate: Extraction, passages: list[Passage]) -> Signals:
    """The :class:`Signals` of a finished run: its outcome, and ``candidate`` (the answer it gave, or the best
    passage sentence it would give) scored against what ``question`` asks."""
    what, q = asked(question), features(question)
    out = Signals(answered=float(not result.abstained), confidence=result.confidence or 0.0,
                  generated=float(result.mode == "generated"))
    if result.abstained and result.abstain_reason in _REASONS:
        setattr(out, _REASONS[result.abstain_reason], 1.0)
    scores = sorted((p.score for p in passages), reverse=True) + [0.0, 0.0]
    out.retrieval_top, out.retrieval_margin = scores[0], scores[0] - scores[1]
    best = candidate.chosen[-1] if candidate.chosen else None  # the answering sentence (a bridge's naming one leads)
    if best is not None:
        passage = passages[best.number - 1]
        verdict = check(what, best.text, title=passage.title)
        asks = set(content_words(question))
        out.sentence_score, out.answerability = best.score, verdict.score
        out.has_type, out.coverage = float(verdict.has_type), verdict.coverage
        out.holds_value = float(holds_value(what, best.text))
        out.overlap = len(asks & set(content_words(best.text))) / len(asks) if asks else 0.0
        source = features(f"{passage.title}. {passage.text}" if passage.title else passage.text)
        out.unseen_words = _share(q.content, source)
        out.unseen_names = _share({word for name in q.names for word in name}, source)
        out.unseen_numbers = float(bool(q.numbers - source.numbers))
    out.negated = float(bool(q.negated))
    if result.premises:
        out.premise_min = min(v.confidence for v in result.premises)
        out.premises = min(len(result.premises), 3) / 3
    if what.kind in _KINDS:
        setattr(out, f"asks_{what.kind}", 1.0)
    return out


def _share(words: set[str] | frozenset[str], source: TextFeatures) -> float:
    """Share of ``words`` that ``source`` does not cover (0 when there are none)."""
    return sum(1 for w in words if not source.covers(w)) / len(words) if words else 0.0


class Selector(StateModel):
    """A logistic model over :class:`Signals`: answer when ``probability >= threshold``. No weights: off."""

    weights: dict[str, float] = Field(default_factory=dict, description="weight of each signal (raw units)")
    bias: float = Field(0.0, description="the model's intercept")
    threshold: float = Field(0.5, ge=0.0, le=1.0, description="probability from which the program answers")
    fitted_on: int = Field(0, ge=0, description="questions the model was fitted on (0: not fitted)")

    @property
    def active(self) -> bool:
        return bool(self.weights)

    def probability(self, signals: Signals) -> float:
        values = signals.vector()
        z = self.bias + sum(w * values.get(name, 0.0) for name, w in self.weights.items())
        return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))

    def answers(self, signals: Signals) -> bool:
        return self.probability(signals) >= self.threshold

    @field_validator("weights")
    @classmethod
    def _known_signals(cls, weights: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(weights) - set(SIGNAL_NAMES))
        if unknown:
            raise ValueError(f"the selector weighs unknown signal(s): {', '.join(unknown)}")
        return weights


__all__ = ["SELECTABLE", "Candidate", "SIGNAL_NAMES", "Selector", "Signals", "read_signals"]
