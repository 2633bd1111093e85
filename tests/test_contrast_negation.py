"""What "instead of" and "rather than" deny (:func:`groundqa.judges.lexical.features`' ``negated``): the
alternative set aside, except for a word said on both sides of the contrast ("the Schrödinger equation instead of
Newtonian equations" sets one equation against another and denies no equation)."""

from __future__ import annotations

from groundqa.judges.lexical import features
from groundqa.judges.offline import OfflineJudge

FORCE = ('The notion "force" keeps its meaning in quantum mechanics, though the physics is now described by the '
         "Schrödinger equation instead of Newtonian equations.")


def test_a_word_on_both_sides_of_a_contrast_is_not_denied():
    assert not features(FORCE).negated
    assert features("The engine burned coal instead of gas.").negated == {"gas"}
    assert "ridg" in features("The party took the valley path rather than the ridge.").negated
    # a plain negation is read as before, whatever else the sentence says
    assert "climb" in features("He never climbed the peak, although he climbed the ridge twice.").negated


def test_a_premise_about_the_contrasted_noun_is_supported():
    judge = OfflineJudge()
    verdict = judge.judge("keeps its meaning through both Newtonian and Schrodinger physics equations", [FORCE])
    assert "negation" not in verdict.rationale
