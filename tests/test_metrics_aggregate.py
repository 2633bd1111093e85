"""Aggregation overall and per type: hand-computed means, counts, empty groups, errors."""

from __future__ import annotations

import math

import pytest

from groundqa.datasets.loaders import Question
from groundqa.metrics.aggregate import METRICS, aggregate, aggregate_scores, group_metrics
from groundqa.metrics.composite import ItemScores
from groundqa.signatures.types import AbstainReason, GroundedResult, Passage

P = [Passage(chunk_id="c1", doc_id="d1", title="Fenwick Glassworks",
             text="Fenwick Glassworks was established in 1872 by Margit Olen in Duvelle. It closed in 1968.")]
QS = [
    Question(id="a", question="Who founded Fenwick Glassworks?", answers=["Margit Olen"], type="single"),
    Question(id="b", question="When did it close?", answers=["1968"], type="single"),
    Question(id="c", question="Why did Teodor found it?", should_abstain=True, type="false_premise",
             false_premise="Teodor founded it"),
    Question(id="d", question="What is the capital of Mars?", should_abstain=True, type="off_corpus"),
]


def res(answer: str = "", abstained: bool = False, reason: AbstainReason | None = None) -> GroundedResult:
    return GroundedResult(question="q", answer=answer, passages=P, abstained=abstained, abstain_reason=reason)


def test_aggregate_hand_computed():
    results = [
        res("Margit Olen established Fenwick Glassworks in 1872 [1]."),  # correct, cited
        res("", abstained=True, reason=AbstainReason.LOW_CONFIDENCE),  # over-abstention
        res("", abstained=True, reason=AbstainReason.PREMISE_UNSUPPORTED),  # correct abstention
        res("Mars has no capital in the sources [1]."),  # should have abstained; answered
    ]
    agg = aggregate(QS, results, all_types=["multi"])
    o = agg.overall
    assert o.counts == {"n": 4, "answered": 2, "abstained": 2, "errors": 0, "should_abstain": 2,
                        "answerable": 2, "false_premise": 1}
    m = o.metrics
    assert set(m) == set(METRICS)
    assert m["score"] == pytest.approx((1.0 + 0.0 + 1.0 + 0.0) / 4)
    assert m["abstain_precision"] == 0.5 and m["abstain_recall"] == 0.5 and m["abstain_f1"] == 0.5
    assert m["over_abstention_rate"] == 0.5
    assert m["exact_match"] == 0.0 and m["str_em"] == pytest.approx(0.5)  # over answerable items
    assert m["premise_recall"] == 1.0 and m["premise_macro_f1"] == 1.0
    assert m["answer_rate"] == 0.5 and m["error_rate"] == 0.0
    # citation recall over the two answered items: 1 (supported) and 0 (unsupported sentence)
    assert m["citation_recall"] == pytest.approx(0.5)

    single = agg.by_type["single"].metrics
    assert single["score"] == pytest.approx(0.5) and single["abstain_recall"] is None
    assert single["over_abstention_rate"] == 0.5 and single["citation_recall"] == 1.0
    assert agg.by_type["false_premise"].metrics["abstain_recall"] == 1.0
    assert agg.by_type["false_premise"].metrics["premise_macro_f1"] is None  # one gold class only
    assert agg.by_type["off_corpus"].metrics["citation_recall"] == 0.0


def test_type_with_zero_questions_is_none_and_excluded_from_macro():
    items = [ItemScores(score=1.0, answered=True, citation_recall=1.0), ItemScores(score=0.0, answered=True,
                                                                                  citation_recall=0.5)]
    agg = aggregate_scores(["single", "multi"], items, all_types=["time_shift"])
    empty = agg.by_type["time_shift"]
    assert empty.counts["n"] == 0
    assert all(v is None for v in empty.metrics.values())
    assert agg.macro["score"] == pytest.approx(0.5)  # mean over single (1.0) and multi (0.0) only
    assert agg.macro["citation_recall"] == pytest.approx(0.75)


def test_empty_question_set():
    agg = aggregate([], [])
    assert agg.overall.counts["n"] == 0
    assert all(v is None for v in agg.overall.metrics.values())
    assert agg.by_type == {} and all(v is None for v in agg.macro.values())
    g = group_metrics([])
    assert not any(isinstance(v, float) and math.isnan(v) for v in g.metrics.values())


def test_errors_and_none_results_count_against_the_question():
    agg = aggregate(QS[:3], [RuntimeError("boom"), None, res("", abstained=True)])
    o = agg.overall
    assert o.counts["errors"] == 2 and o.counts["answered"] == 0 and o.counts["abstained"] == 1
    assert o.metrics["score"] == pytest.approx(1 / 3)
    assert o.metrics["token_f1"] == 0.0 and o.metrics["citation_recall"] is None
    assert o.metrics["error_rate"] == pytest.approx(2 / 3)


def test_length_mismatch_is_an_error():
    with pytest.raises(ValueError):
        aggregate(QS, [None])
