"""Aggregate per-question scores into every metric, overall and per question type, with counts.

Means are over the items a metric applies to (``None`` item scores are skipped): citation recall /
precision and faithfulness over answered items (ALCE: answered items only), EM / token F1 / STR-EM over
answerable items with gold answers (an abstention or error there scores 0, as in SQuAD 2.0's HasAns),
abstention and premise detection over all items; the gold-page-cited rate over answered items whose
question names gold pages. A metric with no applicable item — e.g. a type with zero
questions — is ``None``, never a division by zero, and is left out of the macro means over types.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, Field

from groundqa.datasets.loaders import Question
from groundqa.judges import EntailmentJudge
from groundqa.metrics.abstention import abstention_scores, premise_detection_scores
from groundqa.metrics.composite import ItemScores, score_item

MEAN_METRICS = (
    "score", "citation_recall", "citation_precision", "faithfulness", "exact_match", "token_f1", "str_em",
    "gold_page_cited",
)
SET_METRICS = (
    "abstain_precision", "abstain_recall", "abstain_f1", "over_abstention_rate",
    "premise_macro_f1", "premise_recall", "premise_precision",
)
RATE_METRICS = ("answer_rate", "abstain_rate", "error_rate")
METRICS: tuple[str, ...] = MEAN_METRICS + SET_METRICS + RATE_METRICS
"""Every aggregate metric, in display order (``score`` is the composite grounding metric)."""

COUNTS = ("n", "answered", "abstained", "errors", "should_abstain", "answerable", "false_premise")


class GroupMetrics(BaseModel):
    """Metrics and counts of one group of questions (all, or one type)."""

    counts: dict[str, int] = Field(default_factory=dict)
    metrics: dict[str, float | None] = Field(default_factory=dict)


class AggregateMetrics(BaseModel):
    """Every metric overall, per question type, and the macro mean over types."""

    overall: GroupMetrics
    by_type: dict[str, GroupMetrics] = Field(default_factory=dict)
    macro: dict[str, float | None] = Field(default_factory=dict)


def _mean(values: Iterable[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def group_metrics(items: Sequence[ItemScores]) -> GroupMetrics:
    """Metrics and counts of ``items`` (any number, including zero)."""
    n = len(items)
    counts = {
        "n": n,
        "answered": sum(i.answered for i in items),
        "abstained": sum(i.abstained for i in items),
        "errors": sum(i.error is not None for i in items),
        "should_abstain": sum(i.should_abstain for i in items),
        "answerable": sum(not i.should_abstain for i in items),
        "false_premise": sum(i.false_premise for i in items),
    }
    metrics: dict[str, float | None] = {name: _mean(getattr(i, name) for i in items) for name in MEAN_METRICS}
    metrics.update(abstention_scores([i.should_abstain for i in items], [i.abstained for i in items]))
    metrics.update(premise_detection_scores([i.false_premise for i in items], [i.premise_detected for i in items]))
    metrics["answer_rate"] = counts["answered"] / n if n else None
    metrics["abstain_rate"] = counts["abstained"] / n if n else None
    metrics["error_rate"] = counts["errors"] / n if n else None
    return GroupMetrics(counts=counts, metrics={name: metrics.get(name) for name in METRICS})


def aggregate_scores(
    types: Sequence[str], items: Sequence[ItemScores], all_types: Iterable[str] = ()
) -> AggregateMetrics:
    """Aggregate already-scored items; ``types[i]`` is the question type of ``items[i]``.

    ``all_types`` lists types to report even when no question has them (their metrics are ``None``).
    """
    if len(types) != len(items):
        raise ValueError(f"{len(types)} types for {len(items)} scored items")
    names = list(dict.fromkeys([*types, *all_types]))
    by_type = {t: group_metrics([it for ty, it in zip(types, items, strict=True) if ty == t]) for t in names}
    macro = {m: _mean(g.metrics.get(m) for g in by_type.values()) for m in METRICS}
    return AggregateMetrics(overall=group_metrics(items), by_type=by_type, macro=macro)


def aggregate(
    questions: Sequence[Question],
    results: Sequence[Any],
    judge: EntailmentJudge | str = "offline",
    all_types: Iterable[str] = (),
) -> AggregateMetrics:
    """Score ``results[i]`` against ``questions[i]`` and aggregate, overall and per ``question.type``.

    A result may be a ``GroundedResult``, a prediction (see :mod:`groundqa.metrics.coerce`), ``None`` or an
    exception instance (both count as a program error for that question).
    """
    if len(questions) != len(results):
        raise ValueError(f"{len(questions)} questions but {len(results)} results")
    items = []
    for question, result in zip(questions, results, strict=True):
        if isinstance(result, BaseException):
            items.append(score_item(question, None, judge, error=f"{type(result).__name__}: {result}"))
        else:
            items.append(score_item(question, result, judge))
    return aggregate_scores([q.type for q in questions], items, all_types)
