"""ALCE citation recall / precision on hand-computed cases.

A scripted judge makes entailment explicit, so the expected numbers follow from ALCE's rules alone:
``SUPPORT[hypothesis]`` lists the sets of passage texts that (jointly) entail it.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from groundqa.judges import Verdict
from groundqa.metrics.citations import citation_scores, format_passage, passage_texts
from groundqa.metrics.faithfulness import answer_claims, faithfulness
from groundqa.signatures.types import Passage
from groundqa.text import MAX_CITATIONS

DOCS = ["doc one", "doc two", "doc three", "doc four"]
SUPPORT: dict[str, list[set[str]]] = {
    "Alpha holds": [{"doc one"}],  # [1] alone
    "Beta holds": [{"doc two", "doc three"}],  # only [2] and [3] together
    "Gamma holds": [{"doc one"}, {"doc two"}],  # [1] or [2] alone
}


class ScriptedJudge:
    name = "scripted"

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[str, ...]]] = []

    def judge(self, hypothesis: str, premises: Sequence[str]) -> Verdict:
        self.calls.append((hypothesis, tuple(premises)))
        have = set(premises)
        ok = any(need <= have for need in SUPPORT.get(hypothesis.rstrip("."), []))
        return Verdict(entailed=ok, confidence=1.0, evidence=[], rationale="scripted")


@pytest.fixture
def judge() -> ScriptedJudge:
    return ScriptedJudge()


def score(answer: str, judge: ScriptedJudge, docs: Sequence[str] = DOCS):
    return citation_scores(answer, list(docs), judge)


def test_supported_sentence_full_recall_and_precision(judge):
    s = score("Alpha holds [1].", judge)
    assert (s.recall, s.precision) == (1.0, 1.0)
    assert s.sentences[0].hypothesis == "Alpha holds."
    assert judge.calls == [("Alpha holds.", ("doc one",))]  # one citation: no precision re-check


def test_unsupported_citation_counts_in_precision_denominator(judge):
    s = score("Alpha holds [2]. Alpha holds [1].", judge)
    assert s.recall == pytest.approx(0.5)
    assert s.precision == pytest.approx(0.5)  # 1 relevant of 2 counted citations
    assert s.n_citations == 2


def test_irrelevant_citation_lowers_precision_only(judge):
    s = score("Alpha holds [1][2].", judge)
    assert s.recall == 1.0
    assert s.precision == pytest.approx(0.5)
    assert s.sentences[0].relevant == [1] and s.sentences[0].irrelevant == [2]


def test_jointly_needed_citations_are_both_relevant(judge):
    s = score("Beta holds [2][3].", judge)
    assert (s.recall, s.precision) == (1.0, 1.0)
    assert s.sentences[0].irrelevant == []


def test_each_citation_alone_sufficient_is_relevant(judge):
    # ALCE condition A: a citation that alone entails is relevant, even if the others also would.
    s = score("Gamma holds [1][2].", judge)
    assert (s.recall, s.precision) == (1.0, 1.0)


def test_out_of_range_citation_fails_sentence_and_leaves_denominator(judge):
    # ALCE: flag = 0 and total_citations is not incremented for a sentence with an out-of-range id.
    s = score("Alpha holds [1]. Alpha holds [5].", judge)
    assert s.recall == pytest.approx(0.5)
    assert s.precision == 1.0
    assert s.n_citations == 1
    assert s.out_of_range == [5]


def test_out_of_range_next_to_valid_citation(judge):
    s = score("Alpha holds [1][5].", judge)
    assert (s.recall, s.precision) == (0.0, 0.0)
    assert s.sentences[0].counted == []
    assert judge.calls == []  # rejected on format, never judged


def test_citation_zero_is_out_of_range(judge):
    s = score("Alpha holds [0].", judge)
    assert s.sentences[0].out_of_range == [0]
    assert s.recall == 0.0


def test_no_citation_means_precision_zero(judge):
    s = score("Alpha holds.", judge)
    assert (s.recall, s.precision) == (0.0, 0.0)
    s = score("Alpha holds [1]. Alpha holds.", judge)
    assert s.recall == pytest.approx(0.5) and s.precision == 1.0


def test_only_first_three_citations_count(judge):
    assert MAX_CITATIONS == 3
    # [1][4][2] are counted; [3] is dropped, so "Beta" (needs 2+3) is unsupported.
    s = score("Beta holds [1][4][2][3].", judge)
    assert s.sentences[0].counted == [1, 4, 2]
    assert (s.recall, s.precision, s.n_citations) == (0.0, 0.0, 3)
    # [2][3][1] are counted; [1] is irrelevant, [4] is dropped.
    s = score("Beta holds [2][3][1][4].", judge)
    assert s.recall == 1.0
    assert s.precision == pytest.approx(2 / 3)
    assert s.sentences[0].irrelevant == [1]


def test_range_check_runs_before_the_cap(judge):
    # ALCE checks every cited id, including a 4th one that the cap would drop.
    s = score("Alpha holds [1][2][3][9].", judge)
    assert s.sentences[0].out_of_range == [9]
    assert (s.recall, s.precision) == (0.0, 0.0)


def test_duplicate_citation_counts_once(judge):
    s = score("Alpha holds [1][1].", judge)
    assert s.sentences[0].counted == [1]
    assert s.precision == 1.0


def test_empty_answer_has_no_scores(judge):
    s = score("", judge)
    assert s.recall is None and s.precision is None and s.n_sentences == 0


def test_no_passages_every_citation_out_of_range(judge):
    s = score("Alpha holds [1].", judge, docs=[])
    assert (s.recall, s.precision) == (0.0, 0.0)


@pytest.mark.parametrize("answer", [
    "Alpha holds [1]. Beta holds [2][3]. Gamma holds [4].",
    "Alpha holds [1][2][3][4]. Beta holds.",
    "- Alpha holds [1]\n- Gamma holds [2][9]",
])
def test_scores_are_bounded(judge, answer):
    s = score(answer, judge)
    assert 0.0 <= s.recall <= 1.0 and 0.0 <= s.precision <= 1.0


def test_passage_texts_and_format():
    p = Passage(chunk_id="c", doc_id="d", title="T", text="Body.")
    assert passage_texts([p, "raw", {"title": "U", "text": "x"}]) == ["Title: T\nBody.", "raw", "Title: U\nx"]
    assert format_passage("", "Body.") == "Body."


def test_faithfulness_sentence_claims(judge):
    assert answer_claims("Alpha holds [1]. Beta holds [2][3].") == ["Alpha holds.", "Beta holds."]
    f = faithfulness("Alpha holds [3]. Delta holds [1].", DOCS, judge)
    assert f.score == pytest.approx(0.5)  # citations are ignored: Alpha is in the context, Delta is not
    assert f.unsupported_claims == ["Delta holds."]
    assert faithfulness("", DOCS, judge).score is None
    assert faithfulness("Alpha holds.", [], judge).score == 0.0
