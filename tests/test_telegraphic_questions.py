"""Questions asked as a bare noun phrase, and a possessive that names a value of its owner.

People type "Aurel Falk birth year?", "Height of the Vallisch Cup trophy?" or "calder wren top speed": no wh-word, so
the answer type is read off the head noun (a year or date: a date; a measure: a number). Without it the type check
cannot reject "He was born in Dunmere, the son of a weaver" for a birth year. "Johanna Ferrant's nickname?" asks a
name of Johanna Ferrant herself: it is no description of another entity ("Port Vessany's twin town" is), so no second
hop is searched for it. Unit tests of the reading; then the whole program on the real embedded LM over a corpus
written for this test.
"""

from __future__ import annotations

import pytest
from embedded_programs import embedded_program

from groundqa.datasets.loaders import Document
from groundqa.programs.answer_values import has_type
from groundqa.programs.answerability import asked, check, describes_entity, telegraphic
from groundqa.programs.grounded_qa import GroundedQA


@pytest.mark.parametrize(("question", "kind"), [
    ("Aurel Falk birth year?", "date"), ("Tobias Quennell date of birth?", "date"),
    ("Opening date of the lace museum?", "date"), ("Year Caddick was knighted?", "date"),
    ("Altbrenna Ski Club founding year?", "date"),
    ("Height of the Vallisch Cup trophy?", "number"), ("Seating capacity of the Great Canvas?", "number"),
    ("calder wren top speed", "number"), ("Corran Bay gross tonnage?", "number"),
    ("Navigation Board peak headcount?", "number"),
    ("Johanna Ferrant's nickname?", "name"), ("Kessenbrunn's nickname?", "name"),
    ("What was the local nickname of the Varnholt Bridge?", "name"),
    # not a bare noun phrase, or no head the type can be read from: as before
    ("Who was nicknamed the Iron Widow?", "person"), ("Was Johanna Ferrant nicknamed the Iron Widow?", "yes_no"),
    ("Stellmark founder?", None), ("Books lost in the 1923 fire?", None), ("What is the annual budget?", None),
])
def test_the_type_of_a_bare_noun_phrase_is_its_head(question: str, kind: str | None) -> None:
    assert asked(question).kind == kind


def test_only_a_question_without_a_wh_word_or_auxiliary_is_telegraphic() -> None:
    assert telegraphic("Aurel Falk birth year?") and telegraphic("calder wren top speed")
    assert not telegraphic("In what year was Aurel Falk born?")
    assert not telegraphic("Ines Halloran's cousin builds boats. What year was he born?")
    assert not telegraphic("Was the bridge opened in 1911?")


def test_a_bare_measure_is_not_answered_by_the_year_something_happened() -> None:
    speed = asked("calder wren top speed")
    assert not has_type(speed.kind, "She was launched in 1911.", frozenset(), speed.question)
    assert has_type(speed.kind, "She could make 17 knots.", frozenset(), speed.question)


def test_a_narrowing_measures_a_width() -> None:
    width = asked("Corran Sound narrowest width?")
    assert width.kind == "number"
    assert check(width, "It runs for about 18 km and narrows to 900 metres at Marrin Point.", "Corran Sound").score == 1.0
    assert check(width, "Pilotage is compulsory for vessels over 60 metres in length.", "Corran Sound").score < 0.6


def test_a_possessive_value_is_asked_of_its_owner_a_possessive_thing_is_a_hop_away() -> None:
    assert not describes_entity("Johanna Ferrant's nickname?")
    assert not describes_entity("What was the Amsel's length?")
    assert describes_entity("Which river flows through Port Vessany's twin town?")
    assert describes_entity("Which paper does Oswin Tarrant's niece write for?")


CORPUS = [
    Document(id="margit-holloway", title="Margit Holloway",
             text="Margit Holloway (1851–1923) was the director of the Brenwick Salt Baths from 1889 to 1915. "
                  "She was born in Tallowmere, the daughter of a ferryman, and trained as a bookkeeper. "
                  "Bath attendants nicknamed her \"the Iron Abbess\" because of her strict rules. "
                  "She opened the Lower Bath House in 1897 for working visitors."),
    Document(id="lower-bath-house", title="Lower Bath House",
             text="The Lower Bath House was a public bath on the river bank in Brenwick, opened in 1897. "
                  "Local people called it \"the Tuppenny Tub\". It was demolished in 1961."),
    Document(id="brenwick-salt-baths", title="Brenwick Salt Baths",
             text="The Brenwick Salt Baths are a spa in the town of Brenwick, built around a brine spring. "
                  "The main bath hall, with a glass dome 18 metres high, opened in 1862."),
]


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> GroundedQA:
    return embedded_program(tmp_path_factory, CORPUS, "telegraphic")


@pytest.mark.integration
@pytest.mark.usefixtures("embedded_dspy")
@pytest.mark.parametrize(("question", "answer", "wrong"), [
    ("Margit Holloway's nickname?", "Iron Abbess", "Tuppenny Tub"),
    ("Margit Holloway birth year?", "1851", "Tallowmere"),
])
def test_the_head_noun_picks_the_sentence(program: GroundedQA, question: str, answer: str, wrong: str) -> None:
    result = program.run(question)
    assert not result.abstained, result.abstain_message
    assert answer in result.answer and wrong not in result.answer
    assert result.citations and result.citations[0].doc_id == "margit-holloway"
    assert not any(note.startswith("bridge:") for note in result.notes)
