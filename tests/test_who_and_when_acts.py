"""Two readings of "who" questions the rules got wrong.

* A place or a building names no one: "Who runs the Pellmouth branch at the moment?" is not answered by "It has run
  two regional branches, *at Osk Varrow* in the north and *at Pellmouth* in the south", nor "Who looks after the
  collection at the bell museum?" by "… is shown in the *Vennick Bell Museum*"; a body that did the act still answers
  ("built *by* the Harnsey Cross Rowing Club").
* An act the question pins to a year is not answered by a sentence that dates it to another: "Who *patented* a
  high-pressure compound engine in *1804*?" is not answered by "… invented in 1804 by Arthur Woolf, who *patented*
  his engine in *1805*", and the answer judge does not overrule that (``Answerability.other_question``).
"""

from __future__ import annotations

import pytest

from groundqa.judges.lexical import features
from groundqa.programs.answer_values import has_type
from groundqa.programs.answerability import act_dated_otherwise, asked, check


def _names_someone(question: str, sentence: str) -> bool:
    return has_type("person", sentence, features(question).tokens, question)


@pytest.mark.parametrize(("question", "sentence"), [
    ("who's running the Pellmouth branch at the moment",
     "It has run two regional branches, at Osk Varrow in the north and at Pellmouth in the south."),
    ("who looks after the collection at the bell museum these days",
     "One fragment of the old bell was kept and is shown in the Vennick Bell Museum."),
])
def test_a_place_or_a_building_names_no_one(question: str, sentence: str) -> None:
    assert not _names_someone(question, sentence)


@pytest.mark.parametrize("sentence", [
    "It was built by the Harnsey Cross Rowing Club in 1880.",
    "In 1880 Tobias Wrenfield built it at Carrow Quay.",
    "The Orlund family had it built, and Conrad Tiebel ran it from 1938.",
])
def test_someone_named_beside_a_place_still_answers(sentence: str) -> None:
    assert _names_someone("Who built the boathouse?", sentence)


def test_a_sentence_about_someone_answers_beside_a_building() -> None:
    # "she" is the page's person (Ilsa Mornay); the museum is only where she chairs the trustees
    assert _names_someone("Who has chaired the trustees, since 2020, of the museum that now holds the Almora's bell?",
                          "Since 2020 she has chaired the board of trustees of the Vellick Lantern Museum.")


WOOLF = ("A method to lessen the magnitude of this heating and cooling was invented in 1804 by British engineer Arthur "
         "Woolf, who patented his Woolf high-pressure compound engine in 1805.")


def test_an_act_dated_to_another_year_does_not_answer() -> None:
    what = asked("Who patented a high-pressure compound engine in 1804?")
    assert act_dated_otherwise(what, WOOLF) == "the sentence dates the patent to 1805"
    verdict = check(what, WOOLF, title="Steam engine")
    assert verdict.score == 0.0 and verdict.other_question  # the answer judge may not quote it either


@pytest.mark.parametrize(("question", "sentence"), [
    ("Who invented the method in 1804?", WOOLF),  # the act in the year asked
    ("Who won the Hornvelt Cup in 1977?", "Brodbeck won the Hornvelt Cup downhill in 1977 and again in 1979."),
    ("Who chaired the committee in 2001?", "Anna Brask chaired the committee from 1998 to 2004."),  # a term spans it
    ("Who founded the club in 1862?", "Tobias Wrenfield founded the club, and later rowed for it."),  # undated
    ("Who won the Hornvelt Cup in 1979?", "Brodbeck won the Hornvelt Cup in 1977 and Hansi Aller in 1979."),
    # the year dates the description (the strike), not the founding asked for
    ("Who founded the union that called the 1934 strike at the glassworks?",
     "It was founded in 1897 by Ferdl Nossek, a gatherer who had been dismissed from a glasshouse in Ossendorf."),
])
def test_an_act_dated_in_the_year_asked_or_undated_answers(question: str, sentence: str) -> None:
    assert act_dated_otherwise(asked(question), sentence) == ""


def test_a_count_in_a_list_of_years_is_no_misdated_act() -> None:
    # a count's "event" is the counted noun: "46,850 in 2023" goes on from "sold 41,300 tickets in 2019"
    what = asked("How many tickets did the Lanternmere Summer Festival sell in 2023?")
    verdict = check(what, "The festival sold 41,300 tickets in 2019 and 46,850 in 2023, its best result so far.",
                    title="Lanternmere Summer Festival")
    assert not verdict.other_question and verdict.score > 0
