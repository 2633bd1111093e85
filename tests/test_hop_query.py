"""What the second hop of a multi-hop question retrieves with (session 47): the main clause's words, not the
description's; a succession the description is made of names the bridge before a like post does; and a contact
clause after "was" ("Where was the player Anselm Korvath *beat* in 1953 born?") is a description whose name is not
the one the answer is about.

"What building in Pellory was designed by the teacher of the Harbour Wing's architect?" asks of the teacher
(Thaddeus Morrow) what *building in Pellory* he designed; "architect" describes the one the first hop found, and
a query with it finds Morrow's page opening ("… was an architect from Bramford") instead of the chunk that says
"Morrow also designed the Corn Exchange at Pellory". Unit tests of the query and the candidate ranking, on
sentences written for them.
"""

from __future__ import annotations

import pytest
from scripted_retrieval import passage

from groundqa.programs.answerability import asked, check, describes_entity
from groundqa.programs.bridging import find_bridges


def _query(question: str, text: str, title: str, entity: str) -> str:
    bridges = find_bridges(question, [passage("first#0", 0.6, text, title)])
    return next(b.query for b in bridges if b.entity == entity)


def test_the_main_clause_words_are_asked_of_the_bridge_and_the_description_words_are_not():
    query = _query("What building in Pellory was designed by the teacher of the Harbour Wing's architect?",
                   "The architect was Edwin Lusk, a pupil of Thaddeus Morrow.", "Harbour Wing", "Thaddeus Morrow")
    words = query.split()
    assert words[:2] == ["Thaddeus", "Morrow"]
    assert {"building", "Pellory", "designed"} <= set(words)
    assert "architect" not in words and "teacher" not in words


def test_the_description_head_stays_in_the_query():
    # "Brandt" alone is a family, a shipyard and a street; "the shipyard that built …" says which
    query = _query("About how many people work at the shipyard that built the ferry Albatross?",
                   "She was built in 2003 at the Brandt shipyard and replaced the smaller ferry Petrel.",
                   "Albatross", "Brandt")
    assert {"shipyard", "work"} <= set(query.split())
    assert "ferry" not in query.split() and "Albatross" not in query.split()
    # a count's noun is the type asked for, not what is asked of the bridge: "Kellaby people" finds "The town is
    # home to the Brandt shipyard, which … employs about 400 people" before "with about 9,300 inhabitants"
    assert "people" not in query.split()


@pytest.mark.parametrize("question, text, title, entity, expected", [
    # a main clause that says nothing beyond what is asked of the name leaves the query as it was
    ("Where was the engineer who designed the Varnholt Bridge born?",
     "It was designed by the engineer Solveig Amberley and built by the Dallow Ironworks.", "Varnholt Bridge",
     "Solveig Amberley", "Solveig Amberley born"),
])
def test_a_main_clause_with_nothing_more_keeps_the_query(question: str, text: str, title: str, entity: str,
                                                        expected: str):
    assert _query(question, text, title, entity) == expected


def test_the_one_the_succession_names_is_the_bridge_before_one_who_holds_a_like_post():
    text = ("He succeeded Edmund Fairlie, under whom he had served as chief reporter. His editorials against the "
            "tramway scheme drew him into a long public feud with Bartholomew Quill, the editor of the Carrowmere "
            "Courier.")
    bridges = find_bridges("Which newspaper did Cornelius Ashby's predecessor as editor go on to edit?",
                           [passage("cornelius-ashby#0", 0.6, text, "Cornelius Ashby")])
    assert [b.entity for b in bridges][:2] == ["Edmund Fairlie", "Bartholomew Quill"]


def test_what_was_asks_no_kind_and_an_owned_description_keeps_its_head():
    query = _query("What was the debut independent creation of the house's current master perfumer?",
                   "Creative direction is held separately by the master perfumer, a post created in 1872 (see Master "
                   "perfumers of Maison Velloury).", "Maison Velloury", "Master")
    assert "was" not in query.split() and "perfumer" in query.split()


def test_a_contact_clause_after_was_describes_the_one_asked_about():
    question = "Where was the player Anselm Korvath beat in 1953 born?"
    assert describes_entity(question)
    # the name in the description is not the one the answer must be about: the player he beat is
    assert asked(question).named == ()
    assert asked("When was the architect Clara Vennick born?").named == (("clara", "vennick"),)
    # a measure's name is what the measure is of, not a description's: the answer must be about the Lettice Shaft
    assert asked("What was the diameter of the Lettice Shaft?").named == (("lettic", "shaft"),)
    assert not describes_entity("When was the company Pellory Systems founded?")
    text = ("Anselm Korvath (1915–1989) was a Calvonian chess player. He is best remembered for defeating the "
            "Velgarian master Radomir Eszeny in the Meirholt Match of 1953.")
    bridges = find_bridges(question, [passage("anselm-korvath#0", 0.6, text, "Anselm Korvath")])
    assert bridges and bridges[0].entity == "Radomir Eszeny"


def test_a_dotted_identifier_is_a_name_a_bridge_can_be():
    # technical documentation names its modules in lower case: "qstd.tide" is the module that superseded qstd.weave
    text = ("Quennet 4.0, code-named Marram, was released on 22 November 2021. It removed the deprecated qstd.weave "
            "module, completing the move to qstd.tide.")
    bridges = find_bridges("Who designed the module that superseded qstd.weave?",
                           [passage("quennet-4-0#0", 0.6, text, "Quennet 4.0")])
    assert bridges[0].entity == "qstd.tide"
    assert "qstd.weave" not in [b.entity for b in bridges]  # the question's own name is no bridge
    # what only the description says ("qstd", "weave") would pull the second hop back to the first hop's page
    assert bridges[0].query == "qstd.tide designed module"
    # the second hop's answer, read after the sentence that named the bridge: "in favour of" says "superseded"
    what = asked("Who designed the module that superseded qstd.weave?")
    answer = ("Designed by Ottilie Wrenmarsh and Pell Amundsen-Roe and introduced in release 3.4, it provides the "
              "runtime behind the async and await keywords.")
    lead = "qstd.weave (removed module). Release 3.4 deprecated the module in favour of qstd.tide."
    assert check(what, answer, "qstd.tide", lead=lead).score == 1.0
