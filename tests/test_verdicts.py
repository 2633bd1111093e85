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
