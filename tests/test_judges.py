"""Entailment judges: the offline judge on clear cases, agreement with the hand labels, the LM judge."""

from __future__ import annotations

import sys
from pathlib import Path

import dspy
import pytest

from groundqa.judges import (
    EntailmentJudge,
    JudgeNotConfiguredError,
    LMJudge,
    OfflineJudge,
    Verdict,
    get_judge,
)
from groundqa.metrics.citations import format_passage

# `benchmarks/` is not an installed package: make it importable however pytest is started.
_REPO = str(Path(__file__).resolve().parents[1])
if _REPO not in sys.path:
    sys.path.insert(0, _REPO)

LIGHTS = format_passage(
    "The Harbor Lights of Port Vessany",
    "Port Vessany installed its first tidal-powered harbor lights in 1987. The lights were designed by "
    "engineer Odile Marchetti, who spent four years testing turbines in the Vessany Strait. Each of the "
    "twelve lights draws power from a small turbine anchored beneath the pier.",
)
MARCHETTI = format_passage(
    "Odile Marchetti",
    "Odile Marchetti (born 1951) is an engineer from Lorvin. She retired in 2011. Her brother, Paolo "
    "Marchetti, is a cartographer and has never worked in engineering.",
)
LIBRARY = format_passage("Lorvin Maritime Library", "The Lorvin Maritime Library opened in 1968 in a former customs house.")


@pytest.fixture(scope="module")
def judge() -> OfflineJudge:
    j = get_judge("offline")
    assert isinstance(j, OfflineJudge)
    j.warm_up([LIGHTS, MARCHETTI, LIBRARY])
    return j


@pytest.mark.parametrize("hypothesis", [
    "Port Vessany installed its first tidal-powered harbor lights in 1987.",  # verbatim
    "The harbor lights of Port Vessany were designed by Odile Marchetti.",  # paraphrase
    "Port Vessany has twelve harbor lights, each powered by a turbine under the pier.",  # paraphrase
])
def test_entailed_paraphrases(judge, hypothesis):
    v = judge.judge(hypothesis, [LIGHTS])
    assert v.entailed, v.rationale
    assert v.evidence == [0]


@pytest.mark.parametrize("hypothesis,why", [
    ("Port Vessany installed its first tidal-powered harbor lights in 1978.", "year changed"),
    ("Port Vessany has fourteen harbor lights.", "number word changed"),
    ("The harbor lights were designed by engineer Paolo Marchetti.", "namesake swapped"),
    ("The harbor lights were designed by engineer Odile Marchetti and funded by Lorvin Bank.", "partial"),
    ("The Lorvin Maritime Library opened in 1968.", "unrelated premise"),
])
def test_not_entailed(judge, hypothesis, why):
    v = judge.judge(hypothesis, [LIGHTS])
    assert not v.entailed, why
    assert v.evidence == []


def test_negation_mismatch_and_namesake_in_same_passage(judge):
    assert judge.judge("Paolo Marchetti is a cartographer.", [MARCHETTI]).entailed
    assert not judge.judge("Paolo Marchetti worked in engineering.", [MARCHETTI]).entailed
    assert judge.judge("Paolo Marchetti never worked in engineering.", [MARCHETTI]).entailed
    assert judge.judge("Odile Marchetti retired in 2011.", [MARCHETTI]).entailed  # "She" + title
    assert not judge.judge("Paolo Marchetti retired in 2011.", [MARCHETTI]).entailed


def test_joint_support_needs_both_passages(judge):
    hyp = "The harbor lights were designed by an engineer from Lorvin who was born in 1951."
    assert not judge.judge(hyp, [LIGHTS]).entailed
    assert not judge.judge(hyp, [MARCHETTI]).entailed
    both = judge.judge(hyp, [LIGHTS, MARCHETTI])
    assert both.entailed, both.rationale
    assert both.evidence == [0, 1]
    # no shared name between the passages: no joint support
    assert not judge.judge("The Lorvin Maritime Library installed twelve harbor lights.", [LIGHTS, LIBRARY]).entailed


def test_verdict_contract_and_determinism(judge):
    hyp = "Port Vessany installed its first harbor lights in 1987."
    a = judge.judge(hyp, [LIGHTS, LIBRARY])
    judge._verdicts.clear()
    b = judge.judge(hyp, [LIGHTS, LIBRARY])
    assert a == b and isinstance(a, Verdict) and isinstance(judge, EntailmentJudge)
    assert 0.0 <= a.confidence <= 1.0 and 0.0 <= a.support <= 1.0
    assert not judge.judge("", [LIGHTS]).entailed
    assert not judge.judge("Yes.", [LIGHTS]).entailed
    assert not judge.judge(hyp, []).entailed


def test_lexical_only_mode_without_embeddings():
    j = OfflineJudge(use_embeddings=False)
    assert j.judge("Port Vessany installed its first tidal-powered harbor lights in 1987.", [LIGHTS]).entailed
    assert not j.judge("Port Vessany installed its first tidal-powered harbor lights in 1988.", [LIGHTS]).entailed


def test_agreement_with_hand_labels(judge):
    from benchmarks.judge_agreement import agreement, load_pairs

    pairs = load_pairs()
    assert len(pairs) >= 80
    assert {p["label"] for p in pairs} == {"entailed", "not_entailed"}
    # the two splits written last (the full set runs in `python -m benchmarks.judge_agreement`)
    pairs = [p for p in pairs if p["split"] in ("holdout", "final")]
    judge.warm_up([t for p in pairs for t in (p["hypothesis"], *p["premise_texts"])])
    gold = [p["gold"] for p in pairs]
    pred = [judge.judge(p["hypothesis"], p["premise_texts"]).entailed for p in pairs]
    figures = agreement(gold, pred)
    assert figures["accuracy"] >= 0.8, figures
    assert figures["kappa"] >= 0.6, figures


def test_agreement_statistics_hand_computed():
    from benchmarks.judge_agreement import agreement

    # tp 2, fp 1, fn 1, tn 4: acc 6/8; p_yes = 3/8 * 3/8, p_no = 5/8 * 5/8 -> expected 34/64
    m = agreement([True, True, True, False, False, False, False, False],
                  [True, True, False, True, False, False, False, False])
    assert m["accuracy"] == pytest.approx(0.75)
    assert m["precision"] == pytest.approx(2 / 3) and m["recall"] == pytest.approx(2 / 3)
    assert m["kappa"] == pytest.approx((0.75 - 34 / 64) / (1 - 34 / 64))


def test_get_judge():
    assert get_judge("offline") is get_judge("OFFLINE")
    assert isinstance(get_judge("lm"), LMJudge)
    custom = OfflineJudge(use_embeddings=False)
    assert get_judge(custom) is custom
    with dspy.context(lm=None):
        assert isinstance(get_judge("auto"), OfflineJudge)
    with pytest.raises(ValueError, match="unknown judge"):
        get_judge("nli-11b")


def test_lm_judge_without_lm_raises_clear_error():
    with dspy.context(lm=None), pytest.raises(JudgeNotConfiguredError, match="dspy.configure"):
        LMJudge().judge("x", ["y"])


def test_lm_judge_with_dummy_lm():
    from dspy.utils.dummies import DummyLM

    lm = DummyLM([
        {"supported": "True", "confidence": "0.9", "evidence": "[2, 7]", "rationale": "Passage 2 says so."},
        {"supported": "True", "confidence": "0.3", "evidence": "[1]", "rationale": "Weak."},
        {"supported": "False", "confidence": "0.8", "evidence": "[]", "rationale": "Not stated."},
        {"supported": "False", "confidence": "0.6", "evidence": "[]", "rationale": "No."},
        {"supported": "perhaps", "confidence": "high", "evidence": "one", "rationale": "Odd output."},
        {"supported": "perhaps", "confidence": "high", "evidence": "one", "rationale": "Odd output."},
    ])
    judge = LMJudge(lm=lm)
    v = judge.judge("claim", ["a", "b"])
    assert v.entailed and v.confidence == pytest.approx(0.9) and v.evidence == [1]
    v = judge.judge("claim", ["a", "b"])
    assert not v.entailed and v.confidence == pytest.approx(0.7)  # supported but under min_confidence
    v = judge.judge("claim", ["a", "b"])
    assert not v.entailed and v.confidence == pytest.approx(0.8) and v.evidence == []
    with dspy.context(trace=[]):  # the judge's own call must not enter the caller's trace
        judge.judge("claim", ["a"])
        assert dspy.settings.trace == []
    v = judge.judge("claim", ["a"])  # unparseable output (ChatAdapter, then its JSON fallback)
    assert not v.entailed and v.confidence == 0.0 and "unparseable" in v.rationale


def test_a_sentence_opening_on_a_number_word_entails_itself():
    """"Fourteen" at a sentence's start is a count, not a name the premise lacks (it normalises to 14)."""
    judge = get_judge("offline")
    for sentence in ("Fourteen fire engines fought the blaze for six hours.", "Four passengers were killed."):
        verdict = judge.judge(sentence, [f"The line closed in 1967. {sentence}"])
        assert verdict.entailed, verdict.rationale
    assert not judge.judge("Fifteen fire engines fought the blaze for six hours.",
                           ["Fourteen fire engines fought the blaze for six hours."]).entailed  # another count
