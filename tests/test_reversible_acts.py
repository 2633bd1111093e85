"""Acts that can be undone (opened/closed, raised/cut, started/ended) deny each other only when the opposite is said
of the claim's thing in the sentence itself, on the same occasion; "no <noun>" denies that noun, nothing else
(:func:`groundqa.programs.contradiction.find_contradiction`)."""

from __future__ import annotations

from groundqa.programs.contradiction import find_contradiction
from groundqa.signatures.types import Passage

CUT = ("The long partition originally permitted jobs of 14 days, but in September 2023 its limit was cut to seven "
       "days, because very long jobs were blocking maintenance windows.")
FIRE = ("The enamel room and the roof of the Lower Workshop were destroyed, together with about 1,800 finished dials, "
        "and the damage was estimated at 61,000 crowns.")


def _passage(text: str, title: str) -> Passage:
    return Passage(chunk_id=f"{title}#0", doc_id=title, title=title, text=text, score=0.9)


def test_a_limit_cut_denies_that_it_was_raised():
    found = find_contradiction("the long partition's time limit raised to 14 days in September 2023",
                               [_passage(CUT, "Heron partitions")], 0.6)
    assert found is not None and found.kind == "antonym"


def test_an_opposite_said_of_something_else_on_the_page_denies_nothing():
    # the title names the fire; "finished dials" (read "end") is no end of it
    assert find_contradiction("the fire on Uhrgasse started", [_passage(FIRE, "Uhrgasse fire of 1923")], 0.6) is None


def test_no_noun_denies_that_noun_only():
    lost = "No data on the Marrow file system was lost."
    assert find_contradiction("jobs lost in the November 2018 outage", [_passage(lost, "November 2018 outage")],
                              0.6) is None
    # "no one" denies the act; a plain "never" denies it of the page's subject
    killed = "The buildings were empty, and no one was killed or injured."
    found = find_contradiction("people killed by the Grisalp avalanche of 1951",
                               [_passage(killed, "Grisalp avalanche of 1951")], 0.6)
    assert found is not None and found.kind == "negation"
    never = "It was never rebuilt, and the enamellers moved to the Upper Workshop."
    found = find_contradiction("the enamel room rebuilt after the fire", [_passage(never, "Enamel room")], 0.6)
    assert found is not None and found.kind == "negation"
