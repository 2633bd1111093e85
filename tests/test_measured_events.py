"""What an answer must say of the asked dimension: a weight in a unit of mass, a death or a birth in so many words
or a lifespan (:func:`groundqa.programs.answer_values.lacks_measure`, :func:`~.life_event_unsaid`); the counted
noun of "how much rain fell" stays in what the question presupposes; a case's "v." ends no sentence."""

from __future__ import annotations

import pytest

from groundqa.programs.answer_values import lacks_measure, life_event_unsaid
from groundqa.programs.presuppositions import heuristic_presuppositions
from groundqa.text import split_sentences


@pytest.mark.parametrize(("question", "text", "lacking"), [
    ("How much does the Vallisch Cup trophy weigh?", "The trophy, a silver rook 48 cm tall, was made in 1921.", True),
    ("How much does the Vallisch Cup trophy weigh?", "The trophy weighs 2.4 kg.", False),
    ("How heavy is the tenor bell?", "The south tower, 71 metres high, holds a ring of twelve.", True),
    ("How heavy is the tenor bell?", "The tenor weighs 22 cwt.", False),
    ("How tall is the tower?", "The tower is 31 metres tall.", False),
])
def test_a_weight_is_given_in_a_unit_of_mass(question, text, lacking):
    assert lacks_measure(question, text) is lacking


@pytest.mark.parametrize(("question", "text", "unsaid"), [
    ("When did Runa Vennick-Dahl die?",
     "Runa Vennick-Dahl (born 1899) was master founder of the foundry from 1934 to 1968.", True),
    ("When did Runa Vennick-Dahl die?", "Runa Vennick-Dahl (1899–1981) was master founder of the foundry.", False),
    ("When did Runa Vennick-Dahl die?", "She died in Kelvasund in 1981.", False),
    ("When was Amos Quint born?", "He came to Calder Island in 1958 as its first resident doctor.", True),
    ("When was Amos Quint born?", "Amos Quint (1925-2009) was a physician.", False),
    ("When did the clinic open?", "It opened in 1961.", False),
])
def test_a_birth_or_a_death_is_said(question, text, unsaid):
    assert life_event_unsaid(question, text) is unsaid


def test_how_much_rain_fell_keeps_what_fell():
    claims = [c.claim for c in heuristic_presuppositions("How much rain fell at Nessa in 2012?")]
    assert claims == ["rain fell at Nessa in 2012"]
    assert [c.claim for c in heuristic_presuppositions("How many passengers used the ferry in 2019?")] == ["2019"]


def test_a_case_name_is_one_sentence():
    text = "Kessel Society v. Orrand was a 1952 court case. The jury acquitted him."
    assert split_sentences(text) == ["Kessel Society v. Orrand was a 1952 court case.", "The jury acquitted him."]
