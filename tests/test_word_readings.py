"""Words read as passages mean them: "own" and "mine" are content where they are a verb or a noun ("Did Gideon Hask
ever *own* a coal *mine*?"), not in "its own" or "of mine"; "stepped down" says what "step down" asks (resigned),
"questioned" what "interviewed" asks; and a "No" in other words must share a word of what was asked beyond the
names (:func:`groundqa.programs.polar.polar_answer`)."""

from __future__ import annotations

from groundqa.judges.base import Verdict
from groundqa.judges.lexical import features, stem
from groundqa.judges.paraphrase import said_otherwise
from groundqa.programs.context import build_context
from groundqa.programs.polar import polar_answer
from groundqa.signatures.types import Passage


def test_own_and_mine_are_content_as_a_verb_and_a_noun():
    assert {stem("own"), stem("mine")} <= features("Gideon Hask own a coal mine").content
    # "owned" stays a stop word: "the charity that *owns* …" is not "*owned* by the Vennick family until 1952"
    assert stem("own") not in features("the company owned two boats").content
    assert stem("own") not in features("a boat of its own").content
    assert stem("own") not in features("their own boat").content
    assert stem("mine") not in features("it is mine").content


def test_stepping_down_and_questioning_are_said_otherwise():
    assert stem("step") in said_otherwise(stem("resign"))
    assert stem("questioned") in said_otherwise(stem("interview"))
    assert stem("visitation") in said_otherwise(stem("inspection"))


class _Never:
    """An entailment judge that entails nothing: only a denial can answer."""

    def judge(self, claim: str, passages: list[str]) -> Verdict:
        return Verdict(entailed=False, confidence=1.0, rationale="scripted")


def _passage(text: str) -> Passage:
    return Passage(chunk_id="gideon-hask#0", doc_id="gideon-hask", title="Gideon Hask", text=text, score=0.9)


def test_a_denial_in_other_words_shares_a_word_of_what_was_asked():
    unrelated = _passage("Gideon Hask (1851–1919) was a coal merchant and shipowner. Gideon Hask never learned to swim, "
                         "a fact that his obituary noted with some amusement.")
    question = "Did Gideon Hask ever own a coal mine?"
    assert polar_answer(question, build_context([unrelated], 4000), _Never(), 0.5, 0.6, denial_similarity=0.3) is None
    related = _passage("Gideon Hask (1851–1919) was a coal merchant. Gideon Hask never held a share in any coal pit.")
    answer = polar_answer(question, build_context([related], 4000), _Never(), 0.5, 0.6, denial_similarity=0.3)
    assert answer is not None and answer.verdict == "no" and "never held" in answer.sentence


def test_a_denial_in_other_words_may_share_only_the_object_named():
    page = Passage(chunk_id="anselm-varrick#0", doc_id="anselm-varrick", title="Anselm Varrick", score=0.9,
                   text="Anselm Varrick was a mountain guide. Varrick never set foot on the Grauzahn, which he regarded "
                        "as loose and unlucky.")
    answer = polar_answer("Did Anselm Varrick ever climb the Grauzahn?", build_context([page], 4000), _Never(), 0.5,
                          0.6, denial_similarity=0.3)
    assert answer is not None and answer.verdict == "no" and "set foot" in answer.sentence
