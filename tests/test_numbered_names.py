"""A name that ends in its number ("the Calibre 12", "Route 5") is told from its kin by the number: a sentence about
the Calibre 41 does not answer a question about the Calibre 12 (:func:`groundqa.programs.answerability.check`)."""

from __future__ import annotations

from groundqa.programs.answerability import asked, check

QUESTION = "How many components make up a Calibre 12 movement?"


def test_a_sentence_about_another_number_of_the_name_does_not_answer():
    what = asked(QUESTION)
    other = check(what, "The Calibre 41 has 211 parts, including 21 jewels.", title="Calibre 41. ")
    assert other.score == 0.0 and "the name Calibre 12" in other.missing
    own = check(what, "The design consisted of 147 parts and used a lever escapement.", title="Calibre 12. ")
    assert own.score >= 0.6


def test_a_year_after_a_name_is_no_number_of_it():
    what = asked("How many dials were lost in the fire of March 1923?")
    verdict = check(what, "The fire of March 1923 destroyed about 1,800 dials.", title="Uhrgasse fire. ")
    assert not any(m.startswith("the name") for m in verdict.missing)


def test_a_version_family_is_no_numbered_name():
    what = asked("What's the minimum TLS version a Quorvane 4.x server will accept?")
    verdict = check(what, "The minimum TLS version was raised again, from 1.2 to TLS 1.3.", title="Quorvane 4.0. ")
    assert not any(m.startswith("the name Quorvane") for m in verdict.missing)
