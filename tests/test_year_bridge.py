"""A question dated by an event ("Who was warden when the lighthouse was first lit?") is bridged by the event's year
to a term of office that holds it; a year inside a stated term counts as said.

Unit tests of the span reading, the question split, the event's year and the bridge; then the whole program on the
real embedded LM over a corpus written for this test (not the bundled one).
"""

from __future__ import annotations

import pytest
from embedded_programs import embedded_program

from groundqa.datasets.loaders import Document
from groundqa.judges.lexical import features
from groundqa.programs.answerability import asked, check
from groundqa.programs.contradiction import conflict
from groundqa.programs.gates import Gates
from groundqa.programs.grounded_qa import GroundedQA
from groundqa.programs.year_bridge import dated_question, event_year, find_year_bridge
from groundqa.signatures.types import Passage


@pytest.mark.parametrize("text, year, held", [
    ("Anton Belair served from 1998 to 2004.", "2001", True),
    ("Anton Belair served from 1998 to 2004.", "2005", False),
    ("The bridge was rebuilt between 1921 and 1934.", "1921", True),
    ("She chaired the 1998–2004 committee.", "2003", True),
    ("Ilse Varga (1921–2009) was a painter.", "1950", False),  # a lifespan in brackets dates a life, not a term
    ("The hall opened in 1998 and closed in 2004.", "2001", False),  # two dates, no term
])
def test_a_year_inside_a_stated_term_is_covered(text: str, year: str, held: bool):
    assert features(text).covers(year) is held


def test_a_year_inside_a_term_is_no_other_year():
    claim = features("Port Vessany had a mayor in 2001")
    assert conflict(claim, features("Anton Belair served as mayor of Port Vessany from 1998 to 2004.")) is None
    assert conflict(claim, features("Dora Feld served as mayor of Port Vessany from 2012 to 2016."))[0] == "year"


def test_a_term_that_holds_the_asked_year_answers_who_held_the_post():
    what = asked("Who was mayor of Port Vessany in 2001?")
    title = "Mayors of Port Vessany. This list covers the mayors of Port Vessany."
    assert check(what, "Anton Belair served from 1998 to 2004 and resigned.", title=title).has_type
    assert not check(what, "Dora Feld served from 2012 to 2016.", title=title).has_type
    # the holder is the name written last before the term, wherever the sentence starts
    collector = asked("Who was Collector of Customs at Varnholt in 1867?")
    title = "Collectors of Customs at Varnholt. Aldous Penry, the first collector, served from 1841 to 1858."
    assert check(collector, "He was succeeded by Tobias Wrenfield, who was collector from 1858 to 1873.",
                 title=title).has_type
    assert not check(collector, "He was succeeded by Tobias Wrenfield, who was collector from 1873 to 1889.",
                     title=title).has_type


@pytest.mark.parametrize("question, sentence", [
    # a thing's years of service: who drowned in 1921 is not said
    ("What was the name of the pilot who drowned when the Petrel capsized in 1921?",
     "The Petrel was a sailing pilot cutter operated by the Skerran Lights and Pilotage Board from 1884 to 1931."),
    # an officer's term says who held the post, not the union's membership that year
    ("What was the membership of the Platers' and Riveters' Union in 1926?",
     "Jory Calloway served as its general secretary from 1919 to 1946."),
])
def test_a_term_says_only_who_held_it_in_its_years(question: str, sentence: str):
    assert check(asked(question), sentence, title="Sallow Coast. ").score < Gates().answerability


@pytest.mark.parametrize("question, main, event", [
    ("Which mayor was in charge of Port Vessany when the Museum of the Sea first opened?",
     "Which mayor was in charge of Port Vessany", "the Museum of the Sea first opened"),
    ("Who was Port Vessany's mayor in the year Colm Ardley became harbor master?",
     "Who was Port Vessany's mayor", "Colm Ardley became harbor master"),
    ("Who was the abbot at the time the great fire destroyed the library?",
     "Who was the abbot", "the great fire destroyed the library"),
])
def test_a_question_dated_by_an_event_is_split_at_its_clause(question: str, main: str, event: str):
    dated = dated_question(question)
    assert dated is not None and (dated.main, dated.event) == (main, event)
    assert dated.at("2001") == f"{main} in 2001?"


@pytest.mark.parametrize("question", [
    "When did the Museum of the Sea open?",  # asks for the date itself
    "Who was mayor of Port Vessany in 2001?",  # gives its year
    "What was the fare when the bridge opened?",  # a term holds a name, not a fare
    "Who was mayor when it opened?",  # nothing to find the event by
    # something asked of the holder: a term gives the holder's name only
    "What was the maiden name of the mother of the harbour master in office when the Varnholt Bridge opened?",
    "Who was the mayor's wife when the museum opened?",
])
def test_other_questions_are_not_dated_by_an_event(question: str):
    assert dated_question(question) is None


@pytest.mark.parametrize("event, sentence, year", [
    ("the museum first opened", "The Museum of the Sea opened in 2001 in a former salt warehouse.", "2001"),
    ("Colm Ardley became harbor master", "Colm Ardley (born 1950) was the harbor master from 1996 to 2013.", "1996"),
    ("Colm Ardley retired as harbor master", "Colm Ardley (born 1950) was the harbor master from 1996 to 2013.", "2013"),
    ("the series was first shown", "The series was painted in 2014 and first shown in 2015 at the museum.", "2015"),
    ("the mill burned", "The mill, built in 1850, burned in 1911.", "1911"),
])
def test_the_event_sentence_gives_the_year_of_the_event(event: str, sentence: str, year: str):
    assert event_year(event, sentence) == year


def test_a_year_bridge_asks_the_question_of_the_event_year():
    passages = [
        Passage(chunk_id="m#0", doc_id="m", title="Museum of the Sea", score=0.7,
                text="The Museum of the Sea is in Port Vessany. The Museum of the Sea opened in 2001 on Quay Street."),
        Passage(chunk_id="h#0", doc_id="h", title="Halloran Boatworks", score=0.6,
                text="Halloran Boatworks built its first boat in 1989."),
    ]
    bridge = find_year_bridge(dated_question("Who was mayor when the Museum of the Sea first opened?"), passages)
    assert bridge is not None and bridge.entity == "2001" and bridge.chunk_id == "m#0"
    assert bridge.asks == "Who was mayor in 2001?"
    assert find_year_bridge(dated_question("Who was mayor when the ferry terminal opened?"), passages) is None


CORPUS = [
    Document(id="kestel-harbour", title="Kestel Harbour", text=(
        "Kestel Harbour is a fishing port on the Brisk estuary. Its harbour wardens are appointed by the town "
        "council. Fishing boats have landed herring there since the sixteenth century.")),
    Document(id="wardens", title="Wardens of Kestel Harbour", text=(
        "This list covers the wardens of Kestel Harbour from 1902 to 1960. Oskar Fenn served from 1902 to 1925 "
        "and dredged the inner basin. Marit Solberg served from 1925 to 1947; she was the first woman in the post. "
        "Pieter Lund served from 1947 to 1960 and oversaw the harbour's rebuilding.")),
    Document(id="brisk-light", title="Brisk Point Lighthouse", text=(
        "Brisk Point Lighthouse guards the mouth of the Brisk estuary. The lighthouse was first lit in 1931, "
        "after a storm wrecked three trawlers on the point. Its lamp was electrified in 1958.")),
    Document(id="fish-market", title="Kestel Fish Market", text=(
        "Kestel Fish Market stands on the north quay. The old market hall burned down in 1891 and was rebuilt in "
        "brick. Auctions are held every weekday at six in the morning.")),
]


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> GroundedQA:
    return embedded_program(tmp_path_factory, CORPUS, "year_bridge")


@pytest.mark.integration
@pytest.mark.usefixtures("embedded_dspy")
def test_the_warden_when_the_lighthouse_was_first_lit(program: GroundedQA):
    events: list[dict] = []
    result = program.run("Who was harbour warden of Kestel Harbour when Brisk Point Lighthouse was first lit?",
                         on_event=events.append)
    assert not result.abstained, result.abstain_message
    assert "Marit Solberg" in result.answer and "Oskar Fenn" not in result.answer
    assert {c.doc_id for c in result.citations} == {"brisk-light", "wardens"}
    assert [e["entity"] for e in events if e["type"] == "bridge"] == ["1931"]


@pytest.mark.integration
@pytest.mark.usefixtures("embedded_dspy")
def test_a_year_no_term_holds_is_refused(program: GroundedQA):
    # the market hall burned in 1891; the list starts in 1902
    result = program.run("Who was harbour warden of Kestel Harbour when the old market hall burned down?")
    assert result.abstained and result.answer == ""


@pytest.mark.integration
@pytest.mark.usefixtures("embedded_dspy")
def test_a_year_the_question_gives_is_read_inside_a_term(program: GroundedQA):
    result = program.run("Who was harbour warden of Kestel Harbour in 1950?")
    assert not result.abstained, result.abstain_message
    assert "Pieter Lund" in result.answer and "Marit Solberg" not in result.answer
