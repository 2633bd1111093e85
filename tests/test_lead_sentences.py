"""Questions led by a sentence that says what they ask about (session 36): "Orla Penhale's brother builds
organs. What year was he born?". The question sentence gives the answer type and the main clause, the lead
describes, and the bridge is the name the lead's act points to ("*docking at* Trevane" for "the steamer *docks at*
a granite quay"). Also from session 36: a "which depot" answered by "It was the home depot …" is quoted after its page's
name ("Harl Street Depot: It was …").

Unit tests of the question reading and of the candidate ranking, on sentences written for them.
"""

from __future__ import annotations

import pytest

from groundqa.judges.lexical import stem
from groundqa.programs.answerability import asked, check, describes_entity
from groundqa.programs.bridging import find_bridges
from groundqa.programs.context import build_context
from groundqa.programs.extractive import extractive_answer
from groundqa.signatures.types import Passage


def passage(doc: str, title: str, text: str) -> Passage:
    return Passage(chunk_id=f"{doc}#0", doc_id=doc, title=title, text=text, score=0.6)


@pytest.mark.parametrize("question, kind, main", [
    ("Orla Penhale's brother builds organs. What year was he born?", "date", {"born"}),
    ("The steamer from Polwick docks at a granite quay on Inish Mor. In what year was that quay rebuilt?", "date",
     {"rebuilt"}),
    ("The Harrow Institute was set up by a guild in Carrick. Who founded that guild?", "person", {"found"}),
    ("A mill on the Tamar ground flour for the fleet. When did it close?", "date", {"close"}),
    ("A mill on the Tamar ground flour for the fleet. How tall was its wheel?", "number", {"tall", "wheel"}),
])
def test_the_question_sentence_gives_the_type_and_the_lead_describes(question: str, kind: str, main: set[str]):
    what = asked(question)
    assert what.kind == kind
    assert set(what.main) == {stem(w) for w in main}
    # every word of the lead weighs as a description's does
    lead = question.split(". ")[0]
    assert all(w <= 0.5 for t, w in what.weight.items() if t[:4] in lead.lower() and t not in what.main)
    assert describes_entity(question)


def test_a_lead_question_is_answered_only_by_a_sentence_of_its_type():
    what = asked("Orla Penhale's brother builds organs. What year was he born?")
    # the lead's own words are no answer to "what year": the year of birth is
    assert check(what, "He builds organs in oak and tin for the chapels of the coast.", "Ewan Penhale").score == 0.0
    assert check(what, "Ewan Penhale (born 1961) is an organ builder from Polwick.", "Ewan Penhale").score > 0.0


@pytest.mark.parametrize("question, kind", [
    ("Where is St. Piran's chapel?", "place"),  # an abbreviation opens no question sentence
    ("Who owns locomotive No. 4?", "person"),
    ("Is it true? Who built it?", "yes_no"),  # two questions: the second is no lead's question
])
def test_no_lead_is_read_where_there_is_none(question: str, kind: str):
    what = asked(question)
    assert what.question == question and what.kind == kind


QUAY = "The steamer from Polwick docks at a granite quay on Inish Mor. In what year was that quay rebuilt?"


@pytest.mark.parametrize("act, bridged", [
    ("docking at Trevane", True),  # the lead's verb and preposition
    ("docking beside Trevane", False),  # another preposition points nowhere
])
def test_the_name_the_leads_act_points_to_is_the_bridge(act: str, bridged: bool):
    ferry = passage("polwick-steamer", "The Polwick Steamer",
                    f"A steamer links Polwick and Inish Mor twice a day, {act}. The steamer Curlew has served the "
                    "route since 1990; she replaced the older Gannet.")
    ranked = find_bridges(QUAY, [ferry])
    assert (bool(ranked) and ranked[0].entity == "Trevane") is bridged
    if bridged:
        assert "rebuilt" in ranked[0].query


def test_a_which_noun_answer_that_says_it_is_quoted_with_its_pages_name():
    depot = passage("harl-street-depot", "Harl Street Depot",
                    "Harl Street Depot was the oldest tram depot in Tamby. It was the home depot of Lines 2 and 5, "
                    "including the steep Kell Hill service.")
    answer = extractive_answer("Which depot was home to the Kell Hill service?", build_context([depot], 4000),
                               floor=0.0, answerability=0.5).answer
    assert answer.startswith("Harl Street Depot: It was the home depot of Lines 2 and 5")
    # a page of another kind lends no name ("Which depot …?" is not answered by the line's page title)
    line = passage("kell-hill-line", "Kell Hill Line", "It was worked from the home depot of Lines 2 and 5.")
    quoted = extractive_answer("Which depot was home to the Kell Hill service?", build_context([line], 4000),
                               floor=0.0, answerability=0.0).answer
    assert not quoted.startswith("Kell Hill Line:")
