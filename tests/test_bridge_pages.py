"""A bridge reads the way a reader follows a name to its page: the sentence that says the description names the bridge,
the page's own "he" or "she" names its subject, the whole page (not only the chunk that repeats the asked word) may
answer, and of several candidates the one whose answer says most of the question wins.

Unit tests of the candidate ranking and of the answer check; then the whole program on the real embedded LM over a
corpus written for this test (not the bundled one).
"""

from __future__ import annotations

import pytest
from embedded_programs import embedded_program

from groundqa.datasets.loaders import Document
from groundqa.programs.answerability import asked, check
from groundqa.programs.bridging import find_bridges
from groundqa.programs.grounded_qa import GroundedQA
from groundqa.signatures.types import Passage


def passage(doc: str, title: str, text: str, position: int = 0) -> Passage:
    return Passage(chunk_id=f"{doc}#{position}", doc_id=doc, title=title, text=text, score=0.6)


def test_a_page_names_its_subject_where_it_says_he_or_she():
    clinic = passage("tarne-clinic", "Tarne Clinic",
                     "The Tarne Clinic is the only practice on Orrby. It was founded in 1953 by the island's first "
                     "resident doctor.")
    doctor = passage("hanna-vell", "Hanna Vell",
                     "Hanna Vell (1921-2004) was a physician. She came to Orrby in 1950 as its first resident doctor "
                     "and founded a clinic in Tarne in 1953.")
    ranked = find_bridges("When did the doctor who founded the Tarne Clinic die?", [clinic, doctor])
    top = ranked[0]
    assert top.entity == "Hanna Vell" and top.chunk_id == "hanna-vell#0"
    assert top.sentence.startswith("She came to Orrby")  # the sentence that says the description, not her lifespan


def test_the_naming_sentence_is_the_one_that_says_the_description():
    works = passage("holmby-glassworks", "Holmby Glassworks",
                    "The Holmby Glassworks was founded in 1888. In 1925 it made the new windows of Saint Olaf's church.")
    town = passage("holmby", "Holmby",
                   "Holmby is a market town. The church of Saint Olaf was completed in 1604, and its tower is 48 metres "
                   "tall.")
    # the town's sentence says more of the question (tall, tower, church, the town's name) than the works' does
    question = "How tall is the tower of the church that received new windows from the Holmby Glassworks in 1925?"
    olaf = next(b for b in find_bridges(question, [town, works], limit=4) if b.entity == "Saint Olaf")
    assert olaf.chunk_id == "holmby-glassworks#0"  # so the town's sentence, which answers, may be the second hop
    assert "windows" in olaf.sentence


def test_a_light_verb_does_not_favour_the_wrong_description():
    mountain = passage("skarn", "Mount Skarn",
                       "The first ascent was made in 1850 by a party led by the guide Emil Rask. The first winter "
                       "ascent followed in 1899, when Tove Brandt reached the summit with two clients.")
    ranked = find_bridges("In what year was the man who made the first winter ascent of Mount Skarn born?", [mountain])
    assert ranked[0].entity == "Tove Brandt"


def test_the_year_of_a_plaque_on_the_house_where_he_was_born_is_no_birth_year():
    what = asked("In what year was Emil Rask born?")
    plaque = "A plaque on the house where he was born was unveiled by the Skarn Alpine Club in 1930."
    assert check(what, plaque, title="Emil Rask").score == 0.0
    assert check(what, "He was born in 1820 in Holmby.", title="Emil Rask").score > 0.0
    where = asked("Where was Emil Rask born?")  # the clause still says where
    assert check(where, "He was born in Holmby, where his father kept the inn.", title="Emil Rask").score > 0.0


CORPUS = [
    Document(id="tarne-clinic", title="Tarne Clinic", text=(
        "The Tarne Clinic is the only medical practice on the island of Orrby. It was founded in 1953 by the island's "
        "first resident doctor. The clinic has four beds, and a nurse lives in Tarne all year.")),
    Document(id="hanna-vell", title="Hanna Vell", text=(
        "Hanna Vell (1921-2004) was a physician. She came to Orrby in 1950 as its first resident doctor and founded "
        "a clinic in Tarne in 1953. She rowed to the outer farms in all weathers. She retired in 1986 and died in "
        "Tarne in 2004.")),
    Document(id="skarn", title="Mount Skarn", text=(
        "Mount Skarn (2,904 metres) is the highest peak of the Holm range. The first ascent was made in 1850 by a "
        "party led by the guide Emil Rask. The first winter ascent followed in 1899, when Tove Brandt reached the "
        "summit with two clients after a night in a snow hole.")),
    Document(id="emil-rask", title="Emil Rask", text=(
        "Emil Rask (1820–1890) was a mountain guide of the Holm range. A plaque on the house where he was born was "
        "unveiled by the Skarn Alpine Club in 1930.")),
    Document(id="tove-brandt", title="Tove Brandt", text=(
        "Tove Brandt (12 May 1866 – 3 June 1940) was a mountain guide and hut builder of the Holm range. She guided "
        "for forty years and founded the Skarn Alpine Club.")),
    Document(id="holmby-glassworks", title="Holmby Glassworks", text=(
        "The Holmby Glassworks was founded in 1888 beside the river Holm. In 1925 it made the new windows of Saint "
        "Olaf's church. The works closed in 1979.")),
    Document(id="vasker-hall", title="Vasker Hall", text=(
        "The Vasker Hall is the reading room of the Holmby town library. It was badly damaged in the fire of 1923 "
        "and reopened in 1927 after a restoration overseen by Tobias Marne. Designed by Karl Drell and completed in "
        "1874, it has a dome 31 metres across.")),
    Document(id="tobias-marne", title="Tobias Marne", text=(
        "Tobias Marne (1868–1939) was head librarian of the Holmby town library from 1904 to 1933. He wrote its "
        "history.")),
    Document(id="karl-drell", title="Karl Drell", text=(
        "Karl Drell was an architect from Ostmark who designed public buildings across the Holm valley. He spent "
        "his last years in Ostmark, where he died on 17 February 1901.")),
    Document(id="holmby", title="Holmby", text=(
        "Holmby is a market town on the river Holm. The church of Saint Olaf was completed in 1604, and its tower is "
        "48 metres tall. A weekly market is held on the square.")),
]


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> GroundedQA:
    return embedded_program(tmp_path_factory, CORPUS, "bridge_pages")


@pytest.mark.integration
@pytest.mark.usefixtures("embedded_dspy")
def test_the_doctor_who_founded_the_clinic_is_found_on_her_own_page(program: GroundedQA):
    events: list[dict] = []
    result = program.run("When did the doctor who founded the Tarne Clinic die?", on_event=events.append)
    assert not result.abstained, result.abstain_message
    assert "2004" in result.answer and "hanna-vell" in {c.doc_id for c in result.citations}
    assert [e["entity"] for e in events if e["type"] == "bridge"] == ["Hanna Vell"]


@pytest.mark.integration
@pytest.mark.usefixtures("embedded_dspy")
def test_the_winter_ascent_is_not_the_first_ascent(program: GroundedQA):
    result = program.run("In what year was the man who made the first winter ascent of Mount Skarn born?")
    assert not result.abstained, result.abstain_message
    assert "1866" in result.answer and "1820" not in result.answer and "1930" not in result.answer


@pytest.mark.integration
@pytest.mark.usefixtures("embedded_dspy")
def test_the_church_is_named_by_the_windows_and_measured_by_the_town(program: GroundedQA):
    result = program.run("How tall is the tower of the church that received new windows from the Holmby Glassworks "
                         "in 1925?")
    assert not result.abstained, result.abstain_message
    assert "48 metres" in result.answer
    assert {c.doc_id for c in result.citations} == {"holmby-glassworks", "holmby"}


@pytest.mark.integration
@pytest.mark.usefixtures("embedded_dspy")
def test_the_candidate_that_says_the_whole_description_wins(program: GroundedQA):
    # "a restoration overseen by Tobias Marne" names someone of the hall, but only "Designed by Karl Drell" says who
    # its architect was
    result = program.run("When did the architect of the Vasker Hall die?")
    assert not result.abstained, result.abstain_message
    assert "1901" in result.answer and "1939" not in result.answer


@pytest.mark.parametrize("question, sentence, undefined", [
    ("what kind of vessel is the marigold", "Marigold is a preserved Vessary keel on display at the canal museum.",
     "The Marigold was restored between 1979 and 1990."),
    ("What kind of substance is norvaxolone?", "The sample tested positive for norvaxolone, a synthetic steroid.",
     "Norvaxolone was found in his sample in 1998."),
])
def test_a_definition_of_the_thing_says_its_kind(question: str, sentence: str, undefined: str):
    # the kind asked for is what the thing is defined as, whatever noun the question files it under
    what = asked(question)
    assert check(what, sentence).missing == ()
    assert what.category_term in check(what, undefined).missing  # a sentence that only mentions it says no kind
