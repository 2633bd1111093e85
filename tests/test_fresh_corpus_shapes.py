"""Shapes found on two corpora written in session 38 and never seen before (a porcelain works, a programming
language's documentation): a premise a passage contradicts while a relative clause about the premise's object
repeats its verb, an acronym the passage writes out, a bridged answer read off another person's page, a founder
named by "set up … by", the kind a "which" question asks for that is the answer's, not the bridge's, what people
say for a strike, a "yes" read off another page, and a rank before a name.

Unit tests of the question reading, the bridge ranking, the answer check and the contradiction finder, on sentences
written for them.
"""

from __future__ import annotations

import pytest
from embedded_programs import embedded_program

from groundqa.datasets.loaders import Document
from groundqa.programs.answerability import asked, check, plain_words
from groundqa.programs.bridging import Bridge, find_bridges
from groundqa.programs.context import build_context
from groundqa.programs.contradiction import find_contradiction, without_object_clauses
from groundqa.programs.extractive import extractive_answer
from groundqa.signatures.types import Passage
from groundqa.text import acronyms, spells_out


def passage(doc: str, title: str, text: str, position: int = 0) -> Passage:
    return Passage(chunk_id=f"{doc}#{position}", doc_id=doc, title=title, text=text, score=0.6)


RELEASE = ("Its best-known change was the removal of the Gantry build driver and, with it, of the bundled Java "
           "runtime, which had added about 140 megabytes to every installation.")


def test_a_clause_about_the_premises_object_does_not_state_the_premises_act():
    claim = "Quennet 2.0 add a bundled Java runtime"
    assert "which had added" not in without_object_clauses(RELEASE, claim)
    found = find_contradiction(claim, [passage("release-2-0", "Quennet 2.0", RELEASE)], 0.6)
    assert found is not None and found.kind == "antonym" and "removal" in found.detail
    # a clause said of the claim's subject stays: it is what the subject did
    canal = "The canal, which closed in 1967, reopened as a leisure route in 2002."
    assert without_object_clauses(canal, "the canal close in 1967") == canal


def test_a_release_that_added_it_is_no_contradiction():
    added = "Quennet 2.0 added a bundled Java runtime, which made every installation larger."
    assert find_contradiction("Quennet 2.0 add a bundled Java runtime",
                              [passage("release-2-0", "Quennet 2.0", added)], 0.6) is None


def test_an_acronym_is_named_where_the_passage_writes_it_out():
    assert acronyms("In which version was the tracing GC dropped?") == ["GC"]
    assert acronyms("Which LSPs does it speak?") == ["LSP"]
    assert spells_out("GC", "It removed the tracing garbage collector entirely.")
    assert spells_out("LSP", "the Language Server Protocol implementation")
    assert not spells_out("GC", "The garbage was collected weekly.")  # initials of consecutive words only
    what = asked("In which version was the tracing GC dropped?")
    written_out = check(what, "Version 3.0 removed the tracing garbage collector entirely.", "Quennet 3.0")
    assert not any("gc" in m for m in written_out.missing)
    elsewhere = check(what, "Version 3.0 removed the bundled build driver entirely.", "Quennet 3.0")
    assert any("gc" in m for m in elsewhere.missing)


def test_what_an_acronym_stands_for_is_answered_where_a_sentence_writes_it_out():
    """Session 53: the small words between its initials are no letters of it ("*E*xecutable and *L*inkable *F*ormat")."""
    assert spells_out("ELF", "programs in the Executable and Linkable Format (ELF)")
    assert spells_out("DoD", "the Department of Defense")
    what = asked("What does QRS stand for?")
    assert check(what, "Its images are kept in the Quarterly Record of Surveys (QRS) format.").score == 1.0
    assert check(what, "The QRS format was adopted in 1998.").score == 0.0  # named, not written out


def test_a_person_named_in_full_is_spoken_of_by_the_surname_alone():
    """Session 53: after its first mention a page calls a person by the surname; a namesake, or a word that is no name
    ("the *canal* boats" for the Panama Canal), is not the person asked of."""
    what = asked("In what city did Tobias Wrenfield have surgery on his knee?")
    assert check(what, "During a break in filming, Wrenfield was flown to Lorvin for surgery on his knee.").score >= 0.6
    namesake = check(what, "During a break in filming, Ada Wrenfield was flown to Lorvin for surgery on her knee.")
    assert namesake.score == 0.0
    canal = check(asked("In what year did the Panama Canal open?"), "Cargo moved to canal boats at the basin, which "
                                                                     "opened in April 1831.")
    assert any("panama canal" in m for m in canal.missing)


def test_a_sentence_about_another_persons_life_does_not_answer_for_the_bridge():
    works = passage("works", "Strenholm Works", "It was set up in 1761 by Count Aurel Vessendorf in his granary.")
    arcanist = passage("matthias-kolbeck", "Matthias Kolbeck",
                       "Born in Orlenz, he trained as an apothecary before Count Aurel Vessendorf engaged him in 1759.")
    count = passage("aurel-vessendorf", "Aurel Vessendorf",
                    "He was born at Lindholt Castle, the younger son of a family of landowners.")
    bridge = Bridge(entity="Count Aurel Vessendorf", chunk_id="works#0",
                    sentence="It was set up in 1761 by Count Aurel Vessendorf in his granary.",
                    query="Count Aurel Vessendorf born")
    question = "Where was the man who founded the Strenholm Works born?"
    found = extractive_answer(question, build_context([works, arcanist, count], 4000), bridge=bridge)
    assert "Lindholt Castle" in found.answer and "Orlenz" not in found.answer


def test_a_founder_is_named_by_set_up_by_and_a_native_was_born_there():
    school = passage("drawing-school", "Strenholm Drawing School",
                     "The school is on Kiln Street. It was set up in 1809 by Ansgar Pohlmann, then director of the "
                     "Strenholm Porcelain Manufactory.")
    ranked = find_bridges("In which hamlet was the founder of the Strenholm Drawing School born?", [school])
    assert ranked[0].entity == "Ansgar Pohlmann"
    born = check(asked("Where was Ansgar Pohlmann born?"),
                 "A native of Tessing, the hamlet that supplied the clay, he trained as a land surveyor.",
                 "Ansgar Pohlmann")
    assert born.score > 0.0, born.missing


def test_the_kind_a_which_question_asks_for_is_the_answer_not_the_bridge():
    page = passage("ysolde-kettering", "Ysolde Kettering",
                   "Ysolde Kettering is best known as the author of Tallyhold. She then worked for six years at the "
                   "logistics firm Grenmark Freight.")
    ranked = find_bridges("Which firm employed the author of Tallyhold before she joined the project?", [page])
    assert ranked[0].entity == "Ysolde Kettering"
    # where the question says the kind *is* what the description describes, the name of that kind is the bridge
    firm = passage("renovation", "Renovation", "The project, designed by the Castrelle firm Aldous & Venn, replaced the "
                                               "stage machinery of the Castrelle State Opera.")
    assert find_bridges("Which firm was the architect of the 2009 renovation?", [firm])[0].entity == "Aldous & Venn"


def test_a_walk_out_is_a_strike():
    assert "strike" in plain_words("Why did the Strenholm painters walk out in 1911?")


class _Entails:
    """An entailment judge that entails a claim wherever the passage does not open on a denial, as a judge reading the
    whole passage might: the polar answer's rules then decide."""

    def judge(self, claim: str, passages: list[str]):
        from groundqa.judges.base import Verdict

        return Verdict(entailed="has never" not in passages[0], confidence=1.0, rationale="scripted")


def test_a_denial_on_the_subjects_own_page_outweighs_a_yes_read_off_another():
    from groundqa.programs.polar import polar_answer

    town = passage("strenholm", "Strenholm", "Strenholm is a small town on the River Brell. The town has never had its "
                                             "own railway station: goods travelled by barge.")
    city = passage("oderwick", "Oderwick", "The city's railway station opened in 1868; it remained the nearest station to "
                                           "Strenholm, which never received a line of its own.")
    question = "Has Strenholm ever had a railway station of its own?"
    answer = polar_answer(question, build_context([town, city], 4000), _Entails(), 0.5, 0.6)
    assert answer is not None and answer.verdict == "no" and "never had its own" in answer.sentence
    # with no denial on its own page, the other page's sentence stands as it did
    alone = polar_answer(question, build_context([city], 4000), _Entails(), 0.5, 0.6)
    assert alone is not None and alone.verdict == "yes"


def test_a_rank_before_a_name_is_not_pinned_by_a_denial():
    count = passage("aurel-vessendorf", "Aurel Vessendorf",
                    "He never married, and on his death in 1788 the estate passed to his nephew.")
    found = find_contradiction("Count Aurel Vessendorf marry", [count], 0.6)
    assert found is not None and found.kind == "negation"


def test_a_relation_held_when_another_event_happened_is_two_facts():
    from groundqa.programs.presuppositions import heuristic_presuppositions

    claims = [p.claim for p in heuristic_presuppositions("Who chaired the steering committee when Quennet 3.0 shipped?")]
    assert claims == ["chaired the steering committee", "Quennet 3.0 released"]  # a release ships
    timed = [p.claim for p in heuristic_presuppositions(
        "Who headed the security response team at the time Quennet 3.4 was released?")]
    assert timed == ["headed the security response team", "Quennet 3.4 was released"]
    # not any "while" or "during": one passage says what astronauts experience while in free-fall
    assert len(heuristic_presuppositions("What do astronauts experience while in free-fall?")) == 1


def test_a_term_in_brackets_is_a_span_of_years_and_dates_the_year_bridge():
    from groundqa.judges.lexical import features
    from groundqa.programs.year_bridge import dated_question

    chairs = features("The chairs have been Maren Oskvold (2012 to 2017) and Halvard Brisk (2017 to 2021).")
    assert chairs.spans == {(2012, 2017), (2017, 2021)} and chairs.covers("2018")
    assert not features("Ilse Varga (1921–2009) was a botanist.").spans  # a lifespan is no term
    dated = dated_question("Who chaired the steering committee when Quennet 3.0 shipped?")
    assert dated is not None and dated.event == "Quennet 3.0 released"


def test_a_city_where_she_was_born_is_her_birthplace():
    life = passage("irmina-falkstedt", "Irmina Falkstedt",
                   "She lived for forty years in a narrow house on Kiln Street with her sister Lotte. She was born in "
                   "Oderwick, the daughter of a bookbinder.")
    ranked = find_bridges("In what year did the city where Irmina Falkstedt was born get its railway station?", [life])
    assert ranked[0].entity == "Oderwick"


def test_what_something_was_called_before_an_event_asks_for_a_name():
    assert asked("What was the Guild of Ossel Merchants called before 1850?").kind == "name"
    assert asked("what was the strenholm manufactory called before the province bought it").kind is None  # no name


WORKS = [
    Document(id="tessing-pit", title="Tessing Clay Pit", text=(
        "The Tessing clay pit supplied the Strenholm Works with kaolin for two centuries. Digging ceased in 1967, "
        "when the best seams were exhausted.")),
    Document(id="strenholm-works", title="Strenholm Works", text=(
        "The Strenholm Works is a maker of hard-paste porcelain. Its recipe was worked out by Matthias Kolbeck, who "
        "became the first director. Clay came from the Tessing pit until 1967 and afterwards from the Harrel "
        "quarries.")),
    Document(id="directors", title="Directors of the Strenholm Works", text=(
        "The director is the head of the works. Viktor Saalberg was director from 1934 to 1962. Henrik Oldeborg "
        "held the post from 1962 to 1979, and Marta Sillan from 1979 to 1998.")),
]


@pytest.fixture(scope="module")
def works(tmp_path_factory: pytest.TempPathFactory):
    return embedded_program(tmp_path_factory, WORKS, "fresh_shapes")


@pytest.mark.integration
@pytest.mark.usefixtures("embedded_dspy")
def test_a_year_bridge_is_answered_by_the_term_that_holds_the_year(works):
    # the works' page has the year ("until 1967") beside a director; the list of directors has the term, though
    # its retrieval score for "Who was running the works 1967" is under every floor
    result = works.run("Who was running the works when digging stopped at the Tessing pit?")
    assert not result.abstained, result.abstain_message
    assert "Henrik Oldeborg" in result.answer and "Harrel" not in result.answer
    assert {c.doc_id for c in result.citations} == {"tessing-pit", "directors"}
