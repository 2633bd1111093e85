"""Correctness (SQuAD EM / F1, STR-EM), abstention and premise-detection metrics, hand-computed."""

from __future__ import annotations

import pytest

from groundqa.datasets.loaders import Question
from groundqa.metrics.abstention import (
    abstention_scores,
    detects_false_premise,
    is_false_premise,
    premise_detection_scores,
)
from groundqa.metrics.coerce import as_result, gold_of
from groundqa.metrics.correctness import correctness, exact_match, normalize_answer, str_em, token_f1
from groundqa.refusals import looks_like_abstention
from groundqa.signatures.types import AbstainReason, GroundedResult, Passage


def test_squad_normalisation():
    assert normalize_answer("The  Cat, sat!") == "cat sat"
    assert normalize_answer("An apple a day") == "apple day"


def test_exact_match_and_f1_hand_computed():
    assert exact_match("the Cat sat.", "cat sat") == 1.0
    # pred tokens [cat, sat], gold [cat, sat, on, mat]: P = 1, R = 0.5, F1 = 2/3
    assert token_f1("the cat sat", "cat sat on the mat") == pytest.approx(2 / 3)
    assert token_f1("dog", "cat") == 0.0
    assert token_f1("", "") == 1.0 and token_f1("", "cat") == 0.0


def test_str_em_is_substring_after_normalisation():
    assert str_em("It was designed by Odile Marchetti in 1987.", ["odile marchetti"]) == 1.0
    assert str_em("It was designed by Paolo.", ["Odile Marchetti", "Marchetti"]) == 0.0


def test_correctness_max_over_golds_and_citations_removed():
    c = correctness("Odile Marchetti [1].", ["Paolo", "Odile Marchetti"])
    assert c.exact_match == 1.0 and c.token_f1 == 1.0 and c.str_em == 1.0
    assert c.best_gold == "Odile Marchetti" and c.correctness == 1.0
    c = correctness("Marchetti designed them [1][2].", ["Odile Marchetti"])
    assert c.exact_match == 0.0 and c.str_em == 0.0
    assert c.token_f1 == pytest.approx(2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2))
    assert correctness("anything", []).token_f1 is None


def test_abstention_scores_hand_computed():
    gold = [True, True, True, False, False, False, False]
    pred = [True, True, False, True, False, False, False]
    s = abstention_scores(gold, pred)
    assert s["abstain_precision"] == pytest.approx(2 / 3)
    assert s["abstain_recall"] == pytest.approx(2 / 3)
    assert s["abstain_f1"] == pytest.approx(2 / 3)
    assert s["over_abstention_rate"] == pytest.approx(1 / 4)


def test_abstention_undefined_ratios_are_none():
    s = abstention_scores([False, False], [False, False])
    assert s["abstain_precision"] is None and s["abstain_recall"] is None and s["abstain_f1"] is None
    assert s["over_abstention_rate"] == 0.0
    s = abstention_scores([], [])
    assert all(v is None for v in s.values())
    s = abstention_scores([True], [False])
    assert s["abstain_f1"] == 0.0 and s["abstain_precision"] is None and s["over_abstention_rate"] is None


def test_premise_macro_f1_hand_computed():
    gold = [True, True, False, False, False]
    det = [True, False, True, False, False]
    # false-premise class: TP 1, FP 1, FN 1 -> F1 0.5; normal class: TP 2, FP 1, FN 1 -> F1 2/3
    s = premise_detection_scores(gold, det)
    assert s["premise_macro_f1"] == pytest.approx((0.5 + 2 / 3) / 2)
    assert s["premise_recall"] == 0.5 and s["premise_precision"] == 0.5
    assert premise_detection_scores([True, True], [True, False])["premise_macro_f1"] is None


def test_premise_detection_definition():
    fp = Question(id="a", question="Why did X?", type="false_premise", should_abstain=True)
    fp_field = Question(id="b", question="When did X?", type="negative_existence", false_premise="X did it")
    normal = Question(id="c", question="Who?", answers=["Y"])
    assert is_false_premise(fp) and is_false_premise(fp_field) and not is_false_premise(normal)
    other = GroundedResult(question="q", abstained=True, abstain_reason=AbstainReason.NO_EVIDENCE)
    premise = GroundedResult(question="q", abstained=True, abstain_reason=AbstainReason.PREMISE_UNSUPPORTED)
    answered = GroundedResult(question="q", answer="Y [1].")
    assert detects_false_premise(fp, other, True)  # any abstention on a false-premise item
    assert not detects_false_premise(normal, other, True)  # no-evidence abstention is not a premise claim
    assert detects_false_premise(normal, premise, True)  # a false alarm
    assert not detects_false_premise(fp, answered, False)


@pytest.mark.parametrize("text,expected", [
    ("NOT IN SOURCES", True), ("I don't know.", True), ("This cannot be answered from the passages.", True),
    ("The passages do not mention when the library opened.", True), ("", True), ("   ", True),
    ("Unknown.", True), ("The library does not contain maps before 1900 [1].", False),
    ("Odile Marchetti designed the lights [1].", False), ("None of the twelve lights failed [1].", False),
])
def test_looks_like_abstention(text, expected):
    assert looks_like_abstention(text) is expected


def test_as_result_generic_prediction():
    import dspy

    r = as_result(dspy.Prediction(answer="X [1].", context=["first text", "second text"]), question="q")
    assert r is not None and r.answer == "X [1]." and [p.text for p in r.passages] == ["first text", "second text"]
    assert not r.abstained
    r = as_result(dspy.Prediction(answer="Y", passages="[1] alpha text\n[2] beta text"))
    assert [p.text for p in r.passages] == ["alpha text", "beta text"]
    assert as_result(dspy.Prediction(answer="NOT IN SOURCES")).abstained
    assert as_result(dspy.Prediction(answer="fine", abstained=True, abstain_reason="premise_unsupported")
                     ).abstain_reason == AbstainReason.PREMISE_UNSUPPORTED
    inner = GroundedResult(question="q", answer="a", passages=[Passage(chunk_id="c", doc_id="d", text="t")])
    assert as_result(dspy.Prediction(result=inner)) is inner
    assert as_result(None) is None and as_result(dspy.Prediction(error="boom")) is None


def test_gold_of_example_and_dict():
    import dspy

    ex = dspy.Example(question="q?", answers=("a", "b"), should_abstain=False, type="multi").with_inputs("question")
    g = gold_of(ex)
    assert g.answers == ["a", "b"] and g.type == "multi" and g.question == "q?"
    assert gold_of({"question": "q", "answer": "single"}).answers == ["single"]
