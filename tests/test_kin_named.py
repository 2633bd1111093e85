"""The name of a named person's relative is a person's name said of that relative: "her late husband's business" and
"his father, a pit foreman" name no one, nor does someone else's marriage; "Her husband, Silas Quayle", "his father
Anton Korvath" and "she married the grain merchant Silas Quayle" do (:mod:`groundqa.programs.answerability`)."""

from __future__ import annotations

import pytest

from groundqa.programs.answerability import asked, check

HUSBAND = "What was the name of Hester Quayle's husband?"
FATHER = "What was the name of Anselm Korvath's father?"
WIFE = "What was Tobias Wrenfield's wife called?"


def test_the_name_of_a_persons_relative_is_asked_for_a_person():
    assert asked(HUSBAND).kind == "person"
    assert asked(WIFE).kind == "person"
    assert asked("What was the name of the Calder Marine Station's research boat?").kind == "name"


@pytest.mark.parametrize(("question", "sentence"), [
    (HUSBAND, "She inherited her late husband's trading business in 1815 and built it into the largest grain house "
              "on the Ostwater."),
    (FATHER, "Born in the mining town of Tessendal, he learned the game from his father, a pit foreman."),
    ("What was the name of Aurele Velloury's wife?", "Adeline married the glassmaker Fabien Vey in 1871."),
    (FATHER, "Born at Hobb's Cross, the son of a cooper, he was apprenticed to a Domeny maltster."),
])
def test_a_relative_left_unnamed_is_no_answer(question, sentence):
    assert check(asked(question), sentence, title="Hester Quayle. ").score == 0.0


@pytest.mark.parametrize(("question", "sentence"), [
    (HUSBAND, "Her husband, Silas Quayle, was a grain merchant."),
    (HUSBAND, "In 1801 she married the grain merchant Silas Quayle."),
    (FATHER, "He learned the game from his father Anton Korvath."),
    (WIFE, "In 1858 he married Clara Ashe, a miller's daughter."),
    ("What was the name of Aurele Velloury's wife?", "In 1871 Aurele Velloury married Adeline Brassac."),
])
def test_a_relative_named_is_an_answer(question, sentence):
    assert check(asked(question), sentence).score > 0.5
