"""A count is of an act where the question says one right after what it counts ("How many students *failed* the
final exam?"): a sentence that counts the students does not answer it (:attr:`groundqa.programs.answerability.Asked.
counted_act`)."""

from __future__ import annotations

from groundqa.programs.answerability import asked, check

QUESTION = "How many students failed the horology school's final exam in 2010?"
BEFORE = "Brevaz School of Horology. Since 2010 final examinations have been set on the Calibre 77."


def test_the_act_counted_is_required():
    what = asked(QUESTION)
    assert what.counted_act == "fail" and "fail" in what.required
    assert check(what, "Today the school has 96 students and fourteen teachers.", title=BEFORE).score == 0.0
    assert check(what, "In 2010, 12 students failed the final examination.", title=BEFORE).score >= 0.6


def test_a_count_without_an_act_or_with_a_carrier_verb_requires_none():
    assert asked("How many seats does the hall have?").counted_act == ""
    assert asked("How many people sit on the Quennet steering committee?").counted_act == ""  # its members
    assert asked("how many core-hours did the allocation committee hand out in 2023").counted_act == ""
    # the act after a passive's auxiliary
    assert asked("how many jobs were lost in the November 2018 outage").counted_act == "los"
