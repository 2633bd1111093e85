"""What is asked of a bridge is answered by a sentence said of it: not by what the page that led to it says of its own
subject ("It was founded in 1650" on Harwick's page, for Harwick's twin town), nor by a sentence whose subject is
someone else ("Ruth Adler served from 1990 to 1998", for the mayor named Henrik Moll); "stay in office" is said as
"served" (:mod:`groundqa.programs.extractive`, :mod:`groundqa.programs.answerability`)."""

from __future__ import annotations

from groundqa.programs.answerability import asked, check
from groundqa.programs.bridging import Bridge, find_bridges, hop_question
from groundqa.programs.context import NumberedContext
from groundqa.programs.extractive import _of_someone_else, extractive_answer
from groundqa.signatures.types import Passage

OPENING = Passage(chunk_id="harwick#0", doc_id="harwick", title="Harwick", score=0.70,
                  text="Harwick is a harbor town on the northern shore of the Stell Strait. "
                       "It was founded in 1650 as a salt-trading post.")
TWINNED = Passage(chunk_id="harwick#1", doc_id="harwick", title="Harwick", score=0.64,
                  text="Harwick has been twinned with Lindby, a fishing port across the sea, since 1998.")
LINDBY = Passage(chunk_id="lindby#0", doc_id="lindby", title="Lindby", score=0.60,
                 text="Lindby is known for smoked herring and for its harbor festival in June.")
TWIN = Bridge(entity="Lindby", chunk_id=TWINNED.chunk_id, sentence=TWINNED.text, query="Lindby founded")


def _answer(question: str, bridge: Bridge, *passages: Passage) -> str:
    return extractive_answer(question, NumberedContext(list(passages), ""), floor=0.0, answerability=0.5,
                             bridge=bridge).answer


def test_the_page_that_led_to_the_bridge_does_not_answer_for_it():
    question = "In what year was Harwick's twin town founded?"
    assert "1650" not in _answer(question, TWIN, TWINNED, LINDBY, OPENING)  # Harwick's founding, not Lindby's
    founded = Passage(chunk_id="lindby#1", doc_id="lindby", title="Lindby", score=0.6,
                      text="It was founded in 1702 by herring fishermen.")
    answer = _answer(question, TWIN, TWINNED, founded, OPENING)
    assert "1702" in answer and "1650" not in answer


PLAN = Passage(chunk_id="plan#0", doc_id="plan", title="Stell bridge plan", score=0.7,
               text="The plan was championed by mayor Henrik Moll, and its cost was put at 380 million crowns.")
MAYORS = Passage(chunk_id="mayors#0", doc_id="mayors", title="Mayors of Harwick", score=0.5,
                 text="Ruth Adler served from 1990 to 1998 and extended the harbor office. "
                      "Henrik Moll served from 2004 to 2012; his terms were dominated by the bridge debate.")
MAYOR = Bridge(entity="Henrik Moll", chunk_id=PLAN.chunk_id, sentence=PLAN.text.split(", and")[0] + ".",
               query="Henrik Moll served")
QUESTION = "Until what year did the mayor who championed the Stell bridge plan stay in office?"


def test_staying_in_office_is_serving():
    what = asked(QUESTION)
    assert "stay" not in what.main and check(what, "Henrik Moll served from 2004 to 2012.", lead=MAYOR.sentence).score > 0.5
    assert "2012" in _answer(QUESTION, MAYOR, PLAN, MAYORS)


def test_a_sentence_whose_subject_is_someone_else_does_not_answer_for_the_bridge():
    others = Passage(chunk_id="mayors#1", doc_id="mayors", title="Mayors of Harwick", score=0.5,
                     text="Ruth Adler served from 1990 to 1998 and extended the harbor office.")
    assert "1998" not in _answer(QUESTION, MAYOR, PLAN, others)
    # a sentence that names the bridge beside someone else may
    both = Passage(chunk_id="mayors#2", doc_id="mayors", title="Mayors of Harwick", score=0.5,
                   text="Ruth Adler handed over to Henrik Moll, who served from 2004 to 2012.")
    assert "2012" in _answer(QUESTION, MAYOR, PLAN, both)


def test_a_name_titled_with_another_office_is_not_the_described_one():
    opened = Passage(chunk_id="funicular#0", doc_id="funicular", title="Stell Funicular", score=0.7,
                     text="The Stell Funicular was financed by the Stell Springs Company under director Johanna Ferran "
                          "and opened on 2 June 1897.")
    mayors = Passage(chunk_id="mayors#0", doc_id="mayors", title="Mayors of Stell", score=0.6,
                     text="Elsa Varrow held the post from 1890 to 1902.")
    question = "In what year was the mayor who held office when the Stell Funicular opened born?"
    assert find_bridges(question, [opened, mayors])[0].entity != "Johanna Ferran"
    # the office the question gives is the one the title gives: no one is set aside
    directed = "In what year was the director who financed the Stell Funicular born?"
    assert find_bridges(directed, [opened, mayors])[0].entity == "Johanna Ferran"


def test_an_opening_phrase_with_a_capitalised_office_is_no_other_subject():
    survey = Passage(chunk_id="survey#1", doc_id="survey", title="Harwick Survey", score=0.5, text="")
    assert not _of_someone_else(MAYOR, survey, "As Surveyor-General he saw the first edition through in 1874.")
    assert _of_someone_else(MAYOR, survey, "Ruth Adler served from 1990 to 1998.")


def test_a_porcelain_service_is_no_person_described():
    museum = Passage(chunk_id="museum#0", doc_id="museum", title="Stell Porcelain Museum", score=0.7,
                     text="The Heron Service was designed for the museum, which paid 4,800 thalers for it. The "
                          "building is by Edvin Korsvik.")
    question = "How much was the architect of the Stell Porcelain Museum paid for designing it?"
    assert [b.entity for b in find_bridges(question, [museum], limit=3)][0] == "Edvin Korsvik"


def test_a_possessive_descriptions_relation_names_the_bridge_either_way_round():
    question = "In which month does Harwick's twin town hold its harbor festival?"
    opening = Passage(chunk_id="harwick#0", doc_id="harwick", title="Harwick", score=0.7,
                      text="Harwick is a harbor town on the northern shore of the Stell Strait in Ondmere.")
    assert find_bridges(question, [opening, TWINNED])[0].entity == "Lindby"
    other_way = Passage(chunk_id="lindby#2", doc_id="lindby", title="Lindby", score=0.64,
                        text="In 1998 Lindby was twinned with Harwick, across the sea.")
    assert find_bridges(question, [opening, other_way])[0].entity == "Lindby"


def test_the_page_that_led_to_the_bridge_does_not_answer_by_its_own_name_either():
    question = "How long is the river on which Harwick's twin town stands?"
    river = Passage(chunk_id="harwick#2", doc_id="harwick", title="Harwick", score=0.6,
                    text="Harwick is a river port on the Stell, a river 38 kilometres long.")
    assert _answer(question, TWIN, TWINNED, LINDBY, river) == ""


def test_a_term_begun_after_the_questions_time_is_no_answer_to_it():
    question = "Who was rector of the institution that runs the Stell Observatory before 2017?"
    assert hop_question(question, "Harwick Polytechnic") == "Who was rector of Harwick Polytechnic before 2017?"
    # the year of the description's own event is no frame of the main clause
    dated = "What was the signature act of the family whose star trapeze artist broke her wrist in 1926?"
    assert hop_question(dated, "Vantorri") == "What was the signature act of Vantorri?"
    what = asked("Who was rector of Harwick Polytechnic before 2017?")
    assert check(what, "Dr. Hanne Rusk has been rector since 2017.").score == 0.0
    assert check(what, "Dr. Hanne Rusk has been rector since 2009.").score > 0.5
    assert check(asked("Who was rector of Harwick Polytechnic after 2017?"),
                 "Dr. Hanne Rusk has been rector since 2017.").score > 0.5
