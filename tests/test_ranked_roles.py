"""A role picked by its rank ("the school's *second director*", "Orlund's *third managing director*") describes a
holder a hop away, and a sentence about another holder of the role ("… is the *seventh* managing director") says who
that one was; it denies nothing of the third (:mod:`groundqa.programs.contradiction`)."""

from __future__ import annotations

from groundqa.programs.answerability import describes_entity, description_span
from groundqa.programs.contradiction import find_contradiction
from groundqa.signatures.types import Passage

SEVENTH = ("Noor Delacasse (born 1969) is the seventh and current managing director of Orlund Watchworks, a post she "
           "has held since 2015.")


def _span(question: str) -> str | None:
    span = description_span(question)
    return None if span is None else question[span[0]:span[1]]


def test_a_role_picked_by_rank_is_a_description():
    assert _span("what textbook did the horology school's second director write") == (
        "the horology school's second director")
    assert _span("Who did Orlund's third managing director marry?") == "Orlund's third managing director"
    assert describes_entity("Who did Orlund's third managing director marry?")
    # a thing of a name, asked about as such, is still no description
    assert _span("What was Newton's third law about?") is None


def _passage(text: str, title: str) -> Passage:
    return Passage(chunk_id=f"{title}#0", doc_id=title, title=title, text=text, score=0.9)


def test_another_holder_of_a_ranked_role_denies_nothing():
    passages = [_passage(SEVENTH, "Noor Delacasse")]
    assert find_contradiction("Orlund's third managing director married", passages, 0.6) is None
    # a claim that names its holder is denied by another rank said of that holder
    named = [_passage("Marta Ilgen was the third director of the Brevaz School of Horology, from 1928 to 1961.",
                      "Marta Ilgen")]
    found = find_contradiction("Marta Ilgen was the second director of the Brevaz School of Horology", named, 0.6)
    assert found is not None and found.kind == "antonym"
    # a rank of a thing, not of someone who holds a post, is still another member of the set
    laws = [_passage("Newton's fifth law of motion concerns rotating bodies.", "Laws")]
    assert find_contradiction("Newton's third law of motion concerns rotating bodies", laws, 0.6) is not None


def test_a_role_picked_by_two_words_describes_its_holder():
    """"the *first head* cheesemaker of the Kessweil Dairy", "the first abbot of Holmbrake": a holder to bridge to."""
    assert describes_entity("When did the first head cheesemaker of the Kessweil Dairy die?")
    assert describes_entity("When did the first abbot of Holmbrake die?")
    assert not describes_entity("What is the number of the house?")
