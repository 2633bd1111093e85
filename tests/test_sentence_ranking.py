"""How passage sentences are ranked against a question (:func:`groundqa.programs.extractive.rank_sentences`): by
embedding similarity and by the question's words the sentence shares, compared by stem, so that an inflected verb
("studied" for "study") counts as said."""

from __future__ import annotations

from groundqa.programs.context import build_context
from groundqa.programs.extractive import extractive_answer, rank_sentences
from groundqa.programs.gates import Gates
from groundqa.signatures.types import Passage

ORLANC = ("Edith Orlanc (1901–1979) directed the Orlanc Glassworks from 1931 to 1967, the first woman to lead the firm. "
          "She was the granddaughter of the founder, Tobias Orlanc, and the only daughter of Heinrich Orlanc. "
          "Having studied chemistry at Altenbrück, she took charge at the age of thirty, just as a severe slump in "
          "exports began. During the Blowers' Strike of 1934 she negotiated directly with the union.")
QUESTION = "What subject did Edith Orlanc study before running the firm?"


def context():
    return build_context([Passage(chunk_id="edith-orlanc#0", doc_id="edith-orlanc", title="Edith Orlanc",
                                  text=ORLANC, score=0.6)], 4000)


def test_an_inflected_word_of_the_question_counts_as_shared():
    ranked = {s.text: s.score for s in rank_sentences(QUESTION, context())}
    studied = next(t for t in ranked if t.startswith("Having studied"))
    strike = next(t for t in ranked if t.startswith("During"))
    # "studied" is the question's "study": that sentence shares three of its six words (Edith and Orlanc by the
    # title, study), the strike sentence two (by the title)
    assert ranked[studied] > ranked[strike]
    assert ranked[studied] >= Gates().answer_floor


def test_the_sentence_with_the_inflected_verb_is_quoted_over_the_floor():
    found = extractive_answer(QUESTION, context(), floor=Gates().answer_floor, answerability=Gates().answerability)
    assert found.chosen and "chemistry" in found.answer
