"""A verdict denies its opposite: "acquitted" says the claim that he was convicted is false, "cleared" that
the inquiry blamed him (:func:`groundqa.programs.contradiction.find_contradiction`)."""

from __future__ import annotations

import pytest

from groundqa.programs.contradiction import find_contradiction
from groundqa.signatures.types import Passage


def _passage(text: str, title: str) -> Passage:
    return Passage(chunk_id=f"{title}#0", doc_id=title, title=title, text=text, score=0.9)


@pytest.mark.parametrize(("claim", "sentence"), [
    ("Silas Orrand convicted in the 1952 animal-welfare case",
     "In the 1952 animal-welfare case the jury acquitted Silas Orrand on all counts."),
    ("the inquiry blamed motorman Edvin Strell for the Sallow Hill accident",
     "The inquiry into the Sallow Hill accident cleared motorman Edvin Strell."),
])
def test_a_verdict_denies_its_opposite(claim, sentence):
    found = find_contradiction(claim, [_passage(sentence, "Cases")], 0.6)
    assert found is not None and found.kind == "antonym"


def test_the_same_verdict_denies_nothing():
    assert find_contradiction("Silas Orrand convicted in the 1952 case",
                              [_passage("In the 1952 case Silas Orrand was convicted of cruelty.", "Cases")], 0.6) is None


def test_a_verdict_said_of_the_named_person_holds_of_the_page_case():
    """The sentence names only the person; the case (and its year) is what its page is about."""
    page = _passage("Kessel Society v. Orrand was a 1952 court case about the animal-welfare rules of Circus Marovell. "
                    "The trial lasted eleven days. The jury acquitted Silas Orrand on all counts.",
                    "Kessel Society v. Orrand")
    found = find_contradiction("Silas Orrand convicted in the 1952 animal-welfare case", [page], 0.6)
    assert found is not None and "acquitted" in found.sentence


def test_a_direction_elsewhere_on_the_page_denies_nothing():
    """"to the *south* of the Old Mill" is where the shed stands, not which way its glazing faces."""
    page = _passage("The weaving shed at Ashgate Mill is a building added in 1853 to the south of the Old Mill. "
                    "It covers 5,200 square metres under a saw-tooth roof whose north-facing glazing gave even daylight.",
                    "Ashgate weaving shed")
    assert find_contradiction("the Ashgate weaving shed roof north-facing glass", [page], 0.6) is None


def test_cleared_of_any_blame_denies_the_blame_of_the_one_its_page_named():
    """"the motorman", on a page that named "its motorman, Edvin Strell", is Edvin Strell; "cleared … of any blame"
    clears him."""
    page = _passage("The Sallow Hill tram accident occurred in January 1927. Its motorman, Edvin Strell, survived. "
                    "The official inquiry found that the brake had been poorly maintained. It cleared the motorman of "
                    "any blame.", "Sallow Hill tram accident")
    found = find_contradiction("the inquiry blame motorman Edvin Strell for the Sallow Hill accident", [page], 0.6)
    assert found is not None and found.sentence.startswith("It cleared")
    other = _passage(page.text.replace("Its motorman, Edvin Strell,", "The conductor"), page.title)
    assert find_contradiction("the inquiry blame motorman Edvin Strell for the Sallow Hill accident", [other], 0.6) is None


def test_a_refused_act_is_denied_by_its_doing():
    page = _passage("The boatmen's strike of 1912 stopped the canal for seven weeks. The Dray Carrying Company settled "
                    "after five weeks.", "Boatmen's strike of 1912")
    claim = "the Dray Carrying Company refuse to settle the 1912 boatmen's strike"
    found = find_contradiction(claim, [page], 0.6)
    assert found is not None and found.kind == "negation" and "settled" in found.sentence
    refused = _passage(page.text.replace("Company settled", "Company refused to settle"), page.title)
    assert find_contradiction(claim, [refused], 0.6) is None
