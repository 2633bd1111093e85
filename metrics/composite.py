"""One composite metric for DSPy optimizers, with feedback: :func:`grounding_metric`.

Score in [0, 1]:

* should-abstain items: 1.0 if the program abstained, else 0.0;
* answerable items: 0.0 if it abstained (or raised), else
  ``0.5 * max(token F1, STR-EM) + 0.25 * citation recall + 0.25 * citation precision`` (ALCE citation
  scores, see :mod:`groundqa.metrics.citations`); without gold answers the correctness term is dropped
  and the two citation terms weigh 0.5 each.

RAGAS answer relevancy is deliberately not used (it zeroes correct abstentions).

The metric returns a :class:`GroundingScore`, a ``dspy.Prediction(score=..., feedback=...)`` that:

* converts with ``float()``, adds (``sum`` in ``dspy.Evaluate``), compares (``>=`` for
  ``metric_threshold`` in BootstrapFewShot / MIPROv2) — all from DSPy 3.4.1's ``Prediction``;
* is read by SIMBA (``score`` + metadata) and GEPA (``feedback``; GEPA also requires the 5-argument
  signature ``(gold, pred, trace, pred_name, pred_trace)``);
* is truthy iff ``score >= pass_threshold`` (0.75 by default). This matters: BootstrapFewShot without a
  ``metric_threshold`` uses the metric value as a bool when ``trace`` is set, and a plain ``Prediction``
  is *always* truthy (it defines ``__len__``), which would accept every demo.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import dspy
from pydantic import BaseModel, Field

from groundqa.judges import EntailmentJudge, get_judge
from groundqa.metrics.abstention import PREMISE_REASONS, detects_false_premise, is_false_premise
from groundqa.metrics.citations import CitationScores, citation_scores
from groundqa.metrics.coerce import as_result, gold_of, is_abstention
from groundqa.metrics.correctness import correctness
from groundqa.metrics.faithfulness import faithfulness
from groundqa.metrics.pages import gold_page_cited
from groundqa.signatures.types import GroundedResult
from groundqa.text import truncate

CORRECTNESS_WEIGHT = 0.5
RECALL_WEIGHT = 0.25
PRECISION_WEIGHT = 0.25
PASS_THRESHOLD = 0.75


class GroundingScore(dspy.Prediction):
    """``dspy.Prediction(score, feedback)`` whose truth value is ``score >= pass_threshold``."""

    def __init__(self, *args: Any, pass_threshold: float = PASS_THRESHOLD, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._pass_threshold = pass_threshold
        self._item: ItemScores | None = None

    def __bool__(self) -> bool:
        return float(self) >= self._pass_threshold

    @property
    def item(self) -> ItemScores | None:
        """Every component score behind this score (set by :func:`make_grounding_metric`)."""
        return self._item


class ItemScores(BaseModel):
    """All scores of one question: the composite and its parts (``None`` = not applicable)."""

    score: float = 0.0
    feedback: str = ""
    abstained: bool = False
    answered: bool = False
    error: str | None = None
    should_abstain: bool = False
    false_premise: bool = False
    premise_detected: bool = False
    citation_recall: float | None = None
    citation_precision: float | None = None
    n_sentences: int = 0
    n_citations: int = 0
    out_of_range: list[int] = Field(default_factory=list)
    faithfulness: float | None = None
    exact_match: float | None = None
    token_f1: float | None = None
    str_em: float | None = None
    correctness: float | None = None
    gold_page_cited: float | None = Field(
        default=None, description="1 if the answer cites one of the question's gold pages (only where given)")


def _quote(text: str, limit: int = 90) -> str:
    return "'" + truncate(" ".join(text.split()), limit) + "'"


def _range(n: int) -> str:
    if n == 0:
        return "no passages were retrieved"
    return "only [1] exists" if n == 1 else f"only [1]-[{n}] exist"


def _citation_feedback(cites: CitationScores, n_passages: int) -> list[str]:
    notes: list[str] = []
    for s in cites.sentences:
        where = f"Sentence {s.index} ({_quote(s.hypothesis, 70)})"
        if not s.cited:
            notes.append(f"{where} has no citation; end it with the [n] of the passage that states it.")
        elif s.out_of_range:
            marks = "".join(f"[{n}]" for n in s.out_of_range)
            notes.append(f"Sentence {s.index} cites {marks} but {_range(n_passages)}.")
        elif not s.supported:
            marks = "".join(f"[{n}]" for n in s.counted)
            notes.append(f"{where} is not supported by {marks} ({s.rationale}); "
                         "cite the passage that states it or drop the sentence.")
        elif s.irrelevant:
            marks = "".join(f"[{n}]" for n in s.irrelevant)
            keep = "".join(f"[{n}]" for n in s.relevant)
            notes.append(f"Sentence {s.index} cites {marks} unnecessarily: {keep} already support(s) it.")
        if len(s.cited) > len(s.counted) and s.counted:
            notes.append(f"Sentence {s.index} has {len(s.cited)} citations; only the first {len(s.counted)} count.")
    return notes


def _should_abstain_feedback(gold: Any, result: GroundedResult) -> str:
    if gold.false_premise:
        why = f"the question presupposes {_quote(gold.false_premise)}, which the corpus does not support"
    elif gold.type == "off_corpus":
        why = "the corpus does not cover this topic"
    elif gold.type == "bad_input":
        why = "the input is not a well-formed question"
    elif gold.type == "false_premise":
        why = "the question rests on a false premise"
    else:
        why = f"the corpus does not answer this question (type '{gold.type}')"
    return f"Should have abstained: {why}. Instead it answered {_quote(result.answer)}."


def score_item(
    example: Any,
    pred: Any,
    judge: EntailmentJudge | str = "offline",
    *,
    full: bool = True,
    error: str | None = None,
) -> ItemScores:
    """Every score of one prediction against its gold example, plus the composite and its feedback.

    ``full=False`` skips faithfulness (not part of the composite) for speed inside optimizers.
    ``error`` (or a prediction with an ``error`` field and no result) marks a program failure.
    """
    judge = get_judge(judge)
    gold = gold_of(example)
    if error is None and pred is not None and not isinstance(pred, GroundedResult):
        err = pred.get("error") if isinstance(pred, dict | dspy.Prediction) else getattr(pred, "error", None)
        error = str(err) if err else None
    result = as_result(pred, question=gold.question)
    fp_gold = is_false_premise(gold)
    item = ItemScores(should_abstain=gold.should_abstain, false_premise=fp_gold)
    if result is None:
        item.error = error or "the program returned no answer"
        item.feedback = f"The program failed to produce an answer ({item.error}); score 0."
        if gold.answers and not gold.should_abstain:
            item.exact_match = item.token_f1 = item.str_em = item.correctness = 0.0
        return item

    abstained = is_abstention(result)
    item.abstained = abstained
    item.answered = not abstained
    item.premise_detected = detects_false_premise(gold, result, abstained)
    golds = [a for a in gold.answers if a.strip()]
    has_gold = bool(golds) and not gold.should_abstain

    if gold.should_abstain:
        item.score = 1.0 if abstained else 0.0
        if abstained:
            item.feedback = "Correctly abstained."
            if fp_gold and result.abstain_reason is not None and result.abstain_reason not in PREMISE_REASONS:
                item.feedback += (f" (The real reason is a false premise; abstain_reason "
                                  f"'{result.abstain_reason.value}' could say premise_unsupported.)")
        else:
            item.feedback = _should_abstain_feedback(gold, result)
    elif abstained:
        item.score = 0.0
        reason = f" (reason: {result.abstain_reason.value})" if result.abstain_reason else ""
        answer = f"; the gold answer is {_quote(golds[0])}" if golds else ""
        docs = f" (in {', '.join(gold.gold_docs)})" if gold.gold_docs else ""
        item.feedback = f"Abstained on an answerable question{reason}{answer}{docs}."
    corr = correctness(result.answer if not abstained else "", golds if has_gold else [])
    if has_gold:
        item.exact_match, item.token_f1, item.str_em = corr.exact_match, corr.token_f1, corr.str_em
        item.correctness = corr.correctness

    if abstained:
        return item

    cites = citation_scores(result.answer, result.passages, judge)
    item.citation_recall, item.citation_precision = cites.recall, cites.precision
    item.gold_page_cited = gold_page_cited(gold, result)
    item.n_sentences, item.n_citations, item.out_of_range = cites.n_sentences, cites.n_citations, cites.out_of_range
    if full:
        item.faithfulness = faithfulness(result.answer, result.passages, judge).score
    if gold.should_abstain:
        return item

    recall = cites.recall or 0.0
    precision = cites.precision or 0.0
    notes: list[str] = []
    if has_gold and item.correctness is not None:
        item.score = CORRECTNESS_WEIGHT * item.correctness + RECALL_WEIGHT * recall + PRECISION_WEIGHT * precision
        if not item.str_em:
            best = corr.best_gold or golds[0]
            notes.append(f"Answer missing the gold fact {_quote(best, 60)} (token F1 {item.token_f1:.2f}).")
        formula = (f"{CORRECTNESS_WEIGHT}*correctness {item.correctness:.2f} + {RECALL_WEIGHT}*citation recall "
                   f"{recall:.2f} + {PRECISION_WEIGHT}*citation precision {precision:.2f}")
    else:
        item.score = 0.5 * recall + 0.5 * precision
        formula = f"0.5*citation recall {recall:.2f} + 0.5*citation precision {precision:.2f} (no gold answer)"
    notes.extend(_citation_feedback(cites, len(result.passages)))
    if gold.gold_docs and result.passages:
        cited_docs = {result.passages[n - 1].doc_id for s in cites.sentences for n in s.counted}
        if cited_docs and not cited_docs & set(gold.gold_docs):
            notes.append(f"None of the cited passages comes from the gold document(s) {', '.join(gold.gold_docs)}.")
    if not notes:
        notes.append("Correct, and every sentence is supported by its citations.")
    item.score = max(0.0, min(1.0, item.score))
    item.feedback = " ".join(notes) + f" Score {item.score:.2f} = {formula}."
    return item


def make_grounding_metric(
    judge: EntailmentJudge | str = "offline",
    pass_threshold: float = PASS_THRESHOLD,
    full: bool = False,
) -> Callable[..., GroundingScore]:
    """A :func:`grounding_metric` bound to ``judge`` (``"offline"``, ``"lm"``, ``"auto"`` or a judge).

    ``full=True`` also computes faithfulness (stored on ``GroundingScore.item``, not in the score).
    """

    def grounding_metric(
        example: Any,
        pred: Any,
        trace: Any = None,
        pred_name: str | None = None,
        pred_trace: Any = None,
    ) -> GroundingScore:
        """Composite grounding score in [0, 1] with textual feedback (see :mod:`groundqa.metrics.composite`)."""
        item = score_item(example, pred, judge, full=full)
        out = GroundingScore(score=item.score, feedback=item.feedback, pass_threshold=pass_threshold)
        out._item = item
        return out

    return grounding_metric


grounding_metric = make_grounding_metric()
"""The composite metric with the offline judge: ``grounding_metric(example, pred, trace=None, pred_name=None,
pred_trace=None) -> GroundingScore``."""
