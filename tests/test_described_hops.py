"""Descriptions a bridged question goes by, read from the radio and clockworks corpora's misses: a relative clause's
own auxiliary is not the main clause's ("what does the guy who *did* the weekend Morning Table … chair now"), a
contact clause with a described subject ("the building *the orchestra moved into*"), a thing mentioned only as "a
bookshop" has no name given, and a sentence about its page's subject that names "his teacher" says nothing of the
teacher (:mod:`groundqa.programs.answerability`, :mod:`groundqa.programs.bridging`)."""

from __future__ import annotations

from groundqa.hypernyms import names_a_kind_of
from groundqa.programs.answerability import asked, check, describes_entity, description_span, plain_words
from groundqa.programs.bridging import find_bridges
from groundqa.signatures.types import Passage

WEEKEND = "what does the guy who did the weekend Morning Table from 1979 to 1998 chair now"


def test_a_relative_clauses_auxiliary_pins_no_name():
    what = asked(WEEKEND)
    assert what.named == ()  # "did the weekend Morning Table" is the clause's, not the question's subject
    assert what.weight["chair"] == 1.0  # the main clause resumes at "chair", before the "now" that frames it
    # a name right after the main clause's auxiliary is still pinned
    assert asked("When did Henrik Voss compose the suite?").named == (("henrik", "voss"),)


def test_chairing_is_answered_a_hop_further_despite_the_description_names():
    what = asked(WEEKEND)
    lead = ("The Morning Table. A weekend edition, presented from 1979 to 1998 by Tobias Varnholt, was dropped when he "
            "became director-general.")
    assert check(what, "These days he chairs the Orrin Bay Lifeboat Trust.", lead=lead).score > 0.6


def test_a_contact_clause_with_a_described_subject_is_a_description():
    question = "Who designed the building the orchestra moved into in 1968?"
    assert describes_entity(question)
    assert not describes_entity("Who designed the building in 1968?")
    # prepositions and relatives are no contact clause ("the union *during the strike that* halted …")
    during = "Who was president of the union during the strike that halted Calibre 41 production?"
    assert description_span(during)[0] == during.index("the strike")
    passages = [Passage(chunk_id="o#0", doc_id="o", title="HRR Symphony Orchestra", score=0.9,
                        text="In 1968 the orchestra moved into Studio 1 of the new Greyhallow Broadcasting Centre, "
                             "from which its weekly concert was broadcast live.")]
    assert "Greyhallow Broadcasting Centre" in [b.entity for b in find_bridges(question, passages)]


def test_a_british_spelling_names_a_kind():
    assert names_a_kind_of("Centre", "building") == "Centre"  # WordNet has the building as "center"
    assert names_a_kind_of("harbour", "port") == "harbour"
    assert names_a_kind_of("Kettlemoor", "building") is None


def test_a_thing_said_only_as_a_kind_has_no_name_given():
    what = asked("What was the name of the bookshop kept by the father of the man who opened the Greyhallow "
                 "Broadcasting Centre?")
    unnamed = "He was born in 1921 in Kettlemoor, where his father kept a bookshop, and came to broadcasting in 1947."
    assert check(what, unnamed).score == 0.0  # Kettlemoor is where it was, not its name
    assert check(what, "He was born in 1921 in Kettlemoor, where his father kept a bookshop called Pagewell.").score > 0
    assert check(what, "His father kept a small bookshop, Pagewell, in Kettlemoor.").score > 0
    assert check(what, "His father kept the Pagewell bookshop in Kettlemoor.").score > 0


def test_what_a_page_says_of_its_subject_is_not_said_of_his_teacher():
    what = asked("Where was the teacher of Orlund's fourth managing director born?")
    subject = ("He was born in 1892 in Skellbach, the railway town at the foot of the Brevaz valley, and graduated from "
               "the Brevaz School of Horology in 1911; his teacher there was Aurel Pfendt.")
    verdict = check(what, subject)
    assert verdict.score == 0.0 and any("teacher" in m for m in verdict.missing)
    # the teacher's own page answers; a who-question is answered by the name the sentence gives
    assert check(what, "He was born in 1850 in Garnholm and taught at the Brevaz School of Horology.").has_type
    assert check(asked("Who was the teacher of Orlund's fourth managing director?"), subject).has_type


def test_a_founding_chair_is_the_first_and_is_asked_of_a_hop_further():
    what = asked("who is the founding chair of the allocation committee married to")
    assert "first" in what.attribute and "found" not in what.attribute
    assert what.event == ""  # the chair is the description; "married to" is what was asked of her
    lead = "Chairs of the Resource Allocation Committee. The first chair was Orla Brennick, who held the post from 2010."
    assert check(what, "She is married to the historian Piet Lammers.", lead=lead).score > 0.6
    # a who-question that asks for the holder itself still needs the role said
    assert asked("Who was the leader of the 1912 boatmen's strike on the Vessary Canal?").event == "leader"


def test_the_same_street_and_a_small_boat_name_nothing():
    street = asked("What is the name of the street where the founder of Halloran Boatworks and his cousin grew up?")
    assert check(street, "The two grew up on the same street in Port Vessany.").score == 0.0
    assert check(street, "The two grew up on Tarn Street in Port Vessany.").score > 0
    boat = asked("What was the boat called from which the reefs were first charted?")
    assert check(boat, "He surveyed the reefs from a small open boat and charted them first.").score == 0.0
    assert check(boat, "He surveyed the reefs from the Gull, a small open boat, and charted them first.").score > 0


HEADS = ("Its heads, in order, have been: first, Aurèle Velloury (1858–1891); second, his daughter Céleste Velloury "
         "(1891–1924); third, her nephew Ormand Vey (1924–1957); fourth, Liesse Darrenge (1957–1989).")


def _page(doc: str, title: str, text: str) -> Passage:
    return Passage(chunk_id=f"{doc}#0", doc_id=doc, title=title, text=text, score=0.9)


def test_an_acronym_owns_a_role_as_a_name_does():
    assert describes_entity("what year was HCRC's second captain born")
    assert not describes_entity("What is NASA's budget?")  # a value of the name itself


def test_a_rank_in_a_list_of_holders_names_the_bridge():
    bridges = find_bridges("Where was the third head of Maison Velloury born?", [_page("maison", "Maison Velloury", HEADS)])
    assert bridges[0].entity == "Ormand Vey"
    assert find_bridges("Where was the second head of Maison Velloury born?",
                        [_page("maison", "Maison Velloury", HEADS)])[0].entity == "Céleste Velloury"


def test_a_house_named_after_a_family_is_no_person_described():
    contract = ("Maison Velloury became a customer in 1966, when Liesse Darrenge signed a supply contract for six tonnes "
                "of dried vetiver roots a year.")
    bridges = find_bridges("Where was the head who signed the vetiver contract with the Tarsine estate born?",
                           [_page("tarsine", "Tarsine estate", contract)])
    assert bridges[0].entity == "Liesse Darrenge"


def test_what_people_say_for_a_fire_and_a_move():
    assert "destroyed" in plain_words("how many copper stills went up in smoke at Montbrac")
    assert plain_words("In which part of the Montbrac building did the fire begin?") == (
        "In which part of the Montbrac did the fire begin?")
    blaze = asked("On what date did the Montbrac blaze happen?")
    assert check(blaze, "On the night of 12 March 1937 a fire broke out in the drying loft above the still hall.",
                 title="Montbrac distillery").score > 0.6
    assert plain_words("what did the northern traverse end up costing") == "what did the northern traverse cost"
    assert plain_words("who's running the Pellmouth branch at the moment").endswith("branch now")
    moved = asked("what year did the flagship shop relocate")
    assert check(moved, "After the flood the shop moved in 1952 to larger premises.", title="Boutique").score > 0.6


def test_who_an_act_was_done_for_said_as_a_noun_names_the_doer():
    theodolite = _page("theodolite", "Great Theodolite", (
        "The Great Theodolite is the large triangulation instrument that Lorcan Maybridge built for the Orvelland "
        "Cartographic Survey in 1825–1826, on a commission from Ansel Korrigan."))
    assert find_bridges("What year did the man who commissioned the Great Theodolite die?",
                        [theodolite])[0].entity == "Ansel Korrigan"
    series = _page("qms", "Quarter-Million Series", (
        "The Quarter-Million Series was a small-scale map of Orvelland, begun in 1902 on the orders of Hester "
        "Quill-Amory for the use of motorists and cyclists."))
    assert find_bridges("birthplace of the Surveyor-General who started the quarter-million maps",
                        [series])[0].entity == "Hester Quill-Amory"


def test_where_someone_comes_from_is_where_they_were_born():
    assert plain_words("Which town did the man who drafted most of the Cartography Act come from?").endswith("born?")
    assert plain_words("Where did Tobias Wrenfield come from originally?") == "Where did Tobias Wrenfield born?"
    assert describes_entity("birthplace of the Surveyor-General who started the quarter-million maps")


def test_the_name_of_the_described_one_is_asked_of_the_naming_sentence():
    from groundqa.programs.answerability import asks_for_description

    assert asks_for_description("What was the name of the man who founded the Lorvin Glassworks?")
    assert find_bridges("What was the name of the man who founded the Lorvin Glassworks?", [
        _page("lorvin", "Lorvin", "The city is home to the Lorvin Polytechnic, founded in 1921.")]) == []
    assert asks_for_description("name of the cyclone that wrecked the vetiver plantation on Marazule")  # terse
    # a description inside the description is still a hop away
    assert not asks_for_description("What is the name of the street where the founder of Halloran Boatworks grew up?")


def test_a_name_before_a_place_noun_is_no_person():
    what = asked("What was the name of the man who founded the Lorvin Glassworks?")
    assert check(what, "It was established as a province in 1866, when three districts along the Tarn valley "
                       "were merged.").score == 0.0
    assert check(what, "The Lorvin Polytechnic was founded in 1921 as a school of engineering.").score == 0.0
    assert check(what, "The glassworks was founded in 1809 by Ottilie Brandt.").score > 0

