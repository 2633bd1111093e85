"""The composite grounding metric: behaviour, feedback, and what DSPy optimizers do with its value."""

from __future__ import annotations

import inspect

import dspy
import pytest

from groundqa.datasets.examples import to_example
from groundqa.datasets.loaders import Question
from groundqa.judges import get_judge
from groundqa.metrics.composite import (
    PASS_THRESHOLD,
    GroundingScore,
    grounding_metric,
    make_grounding_metric,
    score_item,
)
from groundqa.signatures.types import AbstainReason, GroundedResult, Passage

PASSAGES = [
    Passage(chunk_id="harbor-0", doc_id="harbor-lights", title="The Harbor Lights of Port Vessany",
            text="Port Vessany installed its first tidal-powered harbor lights in 1987. The lights were "
                 "designed by engineer Odile Marchetti."),
    Passage(chunk_id="lib-0", doc_id="lorvin-library", title="Lorvin Maritime Library",
            text="The Lorvin Maritime Library opened in 1968 in a former customs house."),
]
WHO = Question(id="q1", question="Who designed the harbor lights of Port Vessany?", answers=["Odile Marchetti"],
               type="single", gold_docs=["harbor-lights"])
PREMISE = Question(id="q2", question="Why did Paolo Marchetti design the harbor lights?", should_abstain=True,
                   type="false_premise", false_premise="Paolo Marchetti designed the harbor lights")


def result(answer: str, abstained: bool = False, reason: AbstainReason | None = None) -> GroundedResult:
    return GroundedResult(question="q", answer=answer, passages=PASSAGES, abstained=abstained, abstain_reason=reason)


@pytest.fixture(scope="module", autouse=True)
def _warm_judge():
    get_judge("offline").warm_up([p.title + "\n" + p.text for p in PASSAGES])


def test_abstaining_on_should_abstain_scores_one():
    out = grounding_metric(to_example(PREMISE), result("", abstained=True, reason=AbstainReason.PREMISE_UNSUPPORTED))
    assert float(out) == 1.0 and out.item.premise_detected
    assert "abstained" in out.feedback.lower()


def test_answering_should_abstain_scores_zero_with_feedback():
    out = grounding_metric(to_example(PREMISE), result("Paolo Marchetti designed them for fun [1]."))
    assert float(out) == 0.0
    assert out.feedback.startswith("Should have abstained")
    assert "Paolo Marchetti designed the harbor lights" in out.feedback  # names the false premise


def test_correct_cited_answer_scores_high():
    out = grounding_metric(to_example(WHO), result("The lights were designed by Odile Marchetti [1]."))
    assert out.score == pytest.approx(1.0)
    assert out.item.citation_recall == 1.0 and out.item.citation_precision == 1.0 and out.item.str_em == 1.0
    assert bool(out)


def test_wrong_citations_score_lower_and_say_why():
    good = grounding_metric(to_example(WHO), result("The lights were designed by Odile Marchetti [1]."))
    wrong = grounding_metric(to_example(WHO), result("The lights were designed by Odile Marchetti [2]."))
    missing = grounding_metric(to_example(WHO), result("The lights were designed by Odile Marchetti [5]."))
    uncited = grounding_metric(to_example(WHO), result("The lights were designed by Odile Marchetti."))
    extra = grounding_metric(to_example(WHO), result("The lights were designed by Odile Marchetti [1][2]."))
    for worse in (wrong, missing, uncited):
        assert worse < good
        assert float(worse) == pytest.approx(0.5)  # correct, but recall = precision = 0
    assert good > extra > wrong  # precision 1/2 for the superfluous [2]
    assert "not supported by [2]" in wrong.feedback
    assert "cites [5] but only [1]-[2] exist" in missing.feedback
    assert "has no citation" in uncited.feedback
    assert "cites [2] unnecessarily" in extra.feedback
    assert "None of the cited passages comes from the gold document" in wrong.feedback


def test_wrong_answer_feedback_names_missing_gold_fact():
    out = grounding_metric(to_example(WHO), result("Port Vessany installed the lights in 1987 [1]."))
    assert "Answer missing the gold fact 'Odile Marchetti'" in out.feedback
    assert 0.0 < float(out) < 0.75 and not bool(out)


def test_abstaining_on_answerable_scores_zero():
    out = grounding_metric(to_example(WHO), result("", abstained=True, reason=AbstainReason.NO_EVIDENCE))
    assert float(out) == 0.0
    assert "Abstained on an answerable question" in out.feedback and "Odile Marchetti" in out.feedback
    assert out.item.citation_recall is None  # citations are scored on answered items only
    assert out.item.token_f1 == 0.0


def test_generic_predictions():
    ctx = [f"{p.title}\n{p.text}" for p in PASSAGES]
    out = grounding_metric(to_example(WHO), dspy.Prediction(answer="Odile Marchetti designed them [1].", context=ctx))
    assert float(out) == pytest.approx(1.0)
    refusal = grounding_metric(to_example(PREMISE), dspy.Prediction(answer="NOT IN SOURCES"))
    assert float(refusal) == 1.0 and refusal.item.premise_detected
    wrapped = grounding_metric(to_example(WHO), dspy.Prediction(result=result("Odile Marchetti designed them [1].")))
    assert float(wrapped) == pytest.approx(1.0)
    empty = grounding_metric(to_example(WHO), dspy.Prediction(answer=""))
    assert float(empty) == 0.0 and empty.item.abstained
    failed = grounding_metric(to_example(WHO), dspy.Prediction(result=None, error="RuntimeError: boom"))
    assert float(failed) == 0.0 and "boom" in failed.feedback and failed.item.error == "RuntimeError: boom"


def test_no_gold_answer_uses_citation_terms_only():
    q = Question(id="q3", question="What happened in 1987?", type="single")
    out = grounding_metric(to_example(q), result("Port Vessany installed its first harbor lights in 1987 [1][2]."))
    assert out.item.correctness is None
    assert float(out) == pytest.approx(0.5 * 1.0 + 0.5 * 0.5)


def test_behaves_as_float_for_dspy():
    scores = [grounding_metric(to_example(WHO), result(a)) for a in (
        "Odile Marchetti designed them [1].", "Odile Marchetti designed them [2].", "")]
    assert isinstance(scores[0], GroundingScore) and isinstance(scores[0], dspy.Prediction)
    assert sum(scores) == pytest.approx(1.5)  # dspy.Evaluate sums raw metric values
    assert round(100 * sum(scores) / len(scores), 1) == 50.0
    assert scores[0] >= 0.9 and scores[1] < scores[0] and scores[2] <= 0  # metric_threshold comparisons
    assert max(scores, key=float) is scores[0]
    assert [bool(s) for s in scores] == [True, False, False]  # BootstrapFewShot without a threshold
    assert bool(dspy.Prediction(score=0.0))  # why GroundingScore overrides __bool__


def test_signature_accepted_by_gepa_and_feedback_contract():
    inspect.signature(grounding_metric).bind(None, None, None, None, None)
    out = grounding_metric(to_example(WHO), result("Odile Marchetti designed them [2]."), [], "synth", [])
    assert hasattr(out, "feedback") and out["feedback"] and "score" in out
    assert 0.0 <= out["score"] <= 1.0


def test_pass_threshold_and_full_mode():
    strict = make_grounding_metric(pass_threshold=0.99, full=True)
    out = strict(to_example(WHO), result("Odile Marchetti designed them [1][2]."))
    assert not bool(out) and out.score < 0.99
    assert out.item.faithfulness == 1.0
    assert PASS_THRESHOLD == 0.75


@pytest.mark.parametrize("answer", ["", "x", "[1]", "Odile [9][1][2][3]. 1987 [1].", "NOT IN SOURCES"])
def test_scores_are_bounded(answer):
    for q in (WHO, PREMISE):
        item = score_item(q, result(answer), "offline")
        assert 0.0 <= item.score <= 1.0
        for value in (item.citation_recall, item.citation_precision, item.faithfulness, item.token_f1):
            assert value is None or 0.0 <= value <= 1.0


def test_bootstrap_fewshot_keeps_only_passing_demos():
    """BootstrapFewShot (no metric_threshold) uses the metric value as a bool when tracing."""
    from dspy.utils.dummies import DummyLM

    train = [to_example(PREMISE), to_example(WHO)]
    lm = DummyLM({PREMISE.question: {"answer": "NOT IN SOURCES"}, WHO.question: {"answer": "Paolo did [1]."}})
    student = dspy.Predict("question -> answer")
    with dspy.context(lm=lm):
        compiled = dspy.BootstrapFewShot(metric=grounding_metric, max_bootstrapped_demos=2,
                                         max_labeled_demos=0, max_rounds=1).compile(student, trainset=train)
    demos = compiled.demos
    assert [d.question for d in demos] == [PREMISE.question]  # the wrong answer (score 0.0) is not a demo
    assert demos[0].answer == "NOT IN SOURCES"
