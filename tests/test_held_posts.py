"""A question asked of whoever held a post when an event happened ("In which town was the Collector of Customs in
office when the Salt Barge Affair came to light born?", session 44): three hops. The event's year, the term that holds
it and so the holder's name, and what is said of that name. A holder whose birthplace no passage gives is refused,
not answered with another holder's.

Unit tests of the question split and of the term's holder; then the whole program on the real embedded LM over a
corpus written for this test."""

from __future__ import annotations

import pytest
from embedded_programs import embedded_program

from groundqa.datasets.loaders import Document
from groundqa.judges.lexical import features
from groundqa.programs.answerability import held_terms
from groundqa.programs.grounded_qa import GroundedQA
from groundqa.programs.year_bridge import dated_question, held_post


@pytest.mark.parametrize("question, main, event, asks", [
    ("In which town was the Collector of Customs in office when the Salt Barge Affair came to light born?",
     "who was Collector of Customs", "the Salt Barge Affair came to light", "In which town was {} born?"),
    ("in which town was the person who chaired the allocation committee when the Stowe archive opened born",
     "who chaired the allocation committee", "the Stowe archive opened", "in which town was {} born?"),
    ("Where was the man born who was club president when the regatta course was metricated?",
     "who was club president", "the regatta course was metricated", "Where was {} born?"),
    ("In what year was the mayor who held office when the Falkenkamm Funicular opened born?",
     "who was mayor", "the Falkenkamm Funicular opened", "In what year was {} born?"),
])
def test_a_question_asked_of_a_dated_holder_is_split(question: str, main: str, event: str, asks: str):
    held = held_post(question)
    assert held is not None and dated_question(question) is None
    assert (held.holder.main, held.holder.event, held.asks) == (main, event, asks)


@pytest.mark.parametrize("question", [
    "When was the engineer who designed the Orsevin Summit Road born?",  # no post held at a time
    "When was the man who was mayor of Port Vessany in 2010 born?",  # its own year: no bridge needed
    "what year was the union president who was in office at the time of the 1981 collective agreement born",
    "Who was chairman of the cooperative when the avalanche destroyed the cheese hut on Grisalp?",  # the holder asked
])
def test_other_questions_ask_nothing_of_a_dated_holder(question: str):
    assert held_post(question) is None


def test_the_holder_is_the_name_before_the_narrowest_term_that_holds_the_year():
    listed = ("She was followed by Tobias Wrenfield, chair from October 2014 to September 2018, and then by Meera "
              "Castellane, who served from October 2018 until September 2022.")
    assert features(listed).spans_year("2016")  # a term whose years come with months
    assert held_terms("2017", listed) == [(4, "Tobias Wrenfield")]
    assert held_terms("2020", listed) == [(4, "Meera Castellane")]
    assert held_terms("2023", listed) == []
    # a list's own span is wider than the term of the one who held the post
    page = "This list covers the wardens of Kestel Harbour from 1902 to 1960. Marit Solberg served from 1925 to 1947."
    assert held_terms("1931", page)[0] == (22, "Marit Solberg")


CORPUS = [
    Document(id="wardens", title="Wardens of Kestel Harbour", text=(
        "This list covers the wardens of Kestel Harbour from 1902 to 1960. Oskar Fenn served from March 1902 to "
        "June 1925 and dredged the inner basin. Marit Solberg served from 1925 to 1947; she was the first woman in "
        "the post. Pieter Lund served from 1947 to 1960 and oversaw the harbour's rebuilding.")),
    Document(id="brisk-light", title="Brisk Point Lighthouse", text=(
        "Brisk Point Lighthouse guards the mouth of the Brisk estuary. The lighthouse was first lit in 1931, "
        "after a storm wrecked three trawlers on the point. Its lamp was electrified in 1958.")),
    Document(id="fish-market", title="Kestel Fish Market", text=(
        "Kestel Fish Market stands on the north quay. The new market hall opened in 1952, built in brick after a "
        "fire. Auctions are held every weekday at six in the morning.")),
    Document(id="marit-solberg", title="Marit Solberg", text=(
        "Marit Solberg was a harbour warden and a pilot's daughter. She was born in Tessvik and went to sea on her "
        "father's cutter at fourteen.")),
    Document(id="oskar-fenn", title="Oskar Fenn", text=(
        "Oskar Fenn was an engineer and harbour warden. He was born in Aldmouth and trained at the naval "
        "dockyard.")),
]


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> GroundedQA:
    return embedded_program(tmp_path_factory, CORPUS, "held_posts")


@pytest.mark.integration
@pytest.mark.usefixtures("embedded_dspy")
def test_where_the_warden_when_the_lighthouse_was_first_lit_was_born(program: GroundedQA):
    events: list[dict] = []
    result = program.run("In which town was the person who was harbour warden of Kestel Harbour when Brisk Point "
                         "Lighthouse was first lit born?", on_event=events.append)
    assert not result.abstained, result.abstain_message
    assert "Tessvik" in result.answer and "Aldmouth" not in result.answer
    assert [e["entity"] for e in events if e["type"] == "bridge"] == ["Marit Solberg"]
    assert {"marit-solberg", "wardens"} <= {c.doc_id for c in result.citations}


@pytest.mark.integration
@pytest.mark.usefixtures("embedded_dspy")
def test_a_holder_whose_birthplace_is_not_given_is_refused(program: GroundedQA):
    # Pieter Lund held the post in 1952; only Oskar Fenn's and Marit Solberg's birthplaces are given
    result = program.run("Where was the man born who was harbour warden of Kestel Harbour when the new market hall "
                         "opened?")
    assert result.abstained and result.answer == ""


CHAIRS = ("This page lists the people who have chaired the Resource Allocation Committee. The first chair was Orla "
          "Brennick, who held the post from March 2010 to September 2014. She was followed by Tobias Wrenfield, chair "
          "from October 2014 to September 2018, and then by Meera Castellane, who served from October 2018 until "
          "September 2022.")


@pytest.mark.parametrize("question, neighbour", [
    ("what post did the allocation committee chair who preceded Tobias Wrenfield take up after her term",
     "Orla Brennick"),
    ("Which institute did the allocation committee chair who came before Meera Castellane leave Velmark to direct?",
     "Tobias Wrenfield"),
    ("Where was Tobias Wrenfield's successor as chair of the allocation committee born?", "Meera Castellane"),
])
def test_the_holder_whose_term_hands_on_to_the_named_one_is_the_bridge(question: str, neighbour: str):
    from groundqa.programs.bridging import find_bridges
    from groundqa.signatures.types import Passage

    passages = [Passage(chunk_id="c#0", doc_id="c", title="Chairs of the Resource Allocation Committee", score=0.7,
                        text=CHAIRS)]
    assert find_bridges(question, passages)[0].entity == neighbour
