"""Abstention and false-premise detection.

Abstention (SQuAD 2.0's HasAns / NoAns split), positive class = "should abstain":

* precision = correct abstentions / abstentions; recall = correct abstentions / should-abstain items;
  F1 = 2·TP / (2·TP + FP + FN);
* over-abstention rate = abstentions on answerable items / answerable items.

A program error counts as "did not abstain". Undefined ratios (empty denominators) are ``None``.

Premise detection (CREPE-style macro-F1 over the classes false-premise / normal):

* gold false-premise: ``question.type == "false_premise"`` or ``question.false_premise`` is set;
* the prediction *detects* a false premise iff it abstained **and** either its ``abstain_reason`` is
  ``premise_unsupported`` or ``premise_contradicted`` or the item is gold false-premise (any abstention on a false-premise item
  counts, so programs without reasons — e.g. a plain ChainOfThought RAG — are credited; an abstention
  for another reason on a normal item is *not* a premise claim and is not a false alarm);
* macro-F1 = mean of the F1 of both classes; ``None`` unless both gold classes are present.
"""

from __future__ import annotations

from collections.abc import Sequence

from groundqa.datasets.loaders import Question
from groundqa.signatures.types import AbstainReason, GroundedResult

#: Abstain reasons that claim the question's premise is false (unsupported by or contradicted in the corpus).
PREMISE_REASONS = frozenset({AbstainReason.PREMISE_UNSUPPORTED, AbstainReason.PREMISE_CONTRADICTED})


def is_false_premise(question: Question) -> bool:
    """Gold label: the question rests on a premise the corpus contradicts or lacks."""
    return question.type == "false_premise" or bool(question.false_premise)


def detects_false_premise(question: Question, result: GroundedResult | None, abstained: bool) -> bool:
    """Whether the prediction counts as flagging a false premise (see the module docstring)."""
    if result is None or not abstained:
        return False
    return result.abstain_reason in PREMISE_REASONS or is_false_premise(question)


def _f1(tp: int, fp: int, fn: int) -> float | None:
    denom = 2 * tp + fp + fn
    return 2 * tp / denom if denom else None


def abstention_scores(should_abstain: Sequence[bool], abstained: Sequence[bool]) -> dict[str, float | None]:
    """Abstention precision, recall, F1 (positive = should abstain) and the over-abstention rate."""
    pairs = list(zip(should_abstain, abstained, strict=True))
    tp = sum(g and p for g, p in pairs)
    fp = sum((not g) and p for g, p in pairs)
    fn = sum(g and (not p) for g, p in pairs)
    answerable = sum(not g for g, _ in pairs)
    return {
        "abstain_precision": tp / (tp + fp) if tp + fp else None,
        "abstain_recall": tp / (tp + fn) if tp + fn else None,
        "abstain_f1": _f1(tp, fp, fn),
        "over_abstention_rate": fp / answerable if answerable else None,
    }


def premise_detection_scores(gold: Sequence[bool], detected: Sequence[bool]) -> dict[str, float | None]:
    """CREPE-style macro-F1 over false-premise / normal, plus recall and precision of detection."""
    pairs = list(zip(gold, detected, strict=True))
    tp = sum(g and p for g, p in pairs)
    fp = sum((not g) and p for g, p in pairs)
    fn = sum(g and (not p) for g, p in pairs)
    tn = len(pairs) - tp - fp - fn
    f1_fp = _f1(tp, fp, fn)
    f1_normal = _f1(tn, fn, fp)
    both = any(gold) and not all(gold)
    return {
        "premise_macro_f1": (f1_fp + f1_normal) / 2 if both and f1_fp is not None and f1_normal is not None
        else None,
        "premise_recall": tp / (tp + fn) if tp + fn else None,
        "premise_precision": tp / (tp + fp) if tp + fp else None,
    }
