"""How a multi-hop question's description is read (session 31): the question word is no relative pronoun, the name
a description calls for is the one whose *head* says what it is, the one who did the described act is named after
"<done> by", and a date written only from another event ("four years later") is no date of the asked event.

Unit tests of the question reading, the candidate ranking and the answer check, on sentences written for them.
"""

from __future__ import annotations

import pytest

from groundqa.judges.lexical import stem
from groundqa.programs.answerability import asked, check, describes_entity
from groundqa.programs.bridging import find_bridges
from groundqa.signatures.types import Passage


def passage(doc: str, title: str, text: str, position: int = 0) -> Passage:
    return Passage(chunk_id=f"{doc}#{position}", doc_id=doc, title=title, text=text, score=0.6)


def test_a_date_written_only_from_another_event_is_not_the_asked_date():
    what = asked("When did Osric Thale die?")
    later = check(what, "He left Brenmoor in 1911 to teach in Lusk, where he died six years later.", "Osric Thale")
    assert later.score == 0.0 and "the sentence dates it only from another event" in later.missing
    # the same sentence with the year of the death, or a lifespan, answers
    assert check(what, "He retired in 1911 and died in 1917, six years later.", "Osric Thale").score == 1.0
    assert check(what, "Osric Thale (1850–1917) was a surveyor.", "Osric Thale").score == 1.0
    # the clause that says most of what is asked is read, not another that dates something else
    reopened = asked("When did the Pellick museum reopen?")
    assert check(reopened, "The Pellick museum closed in 1940 and reopened two years later.", "Pellick").score == 0.0
    assert check(reopened, "The Pellick museum closed in 1940 and reopened in 1942.", "Pellick").score == 1.0


@pytest.mark.parametrize("question, main, described", [
    # the question word after a preposition opens no relative clause: the verb after the description is asked
    ("In which year did the breeder of Corran Gold graduate from the college?", {"graduat", "colleg"}, "breeder"),
    ("On which island was the pilot who testified at the Ambry Inquiry born?", {"born"}, "pilot"),
])
def test_the_question_word_is_no_relative_pronoun(question: str, main: set[str], described: str):
    what = asked(question)
    assert set(what.main) == main
    assert what.weight[described] == 0.5  # the description's head weighs as description


def test_a_breeder_is_the_one_by_whom_it_was_bred_not_the_college_the_question_mentions():
    wheat = passage("corran-gold", "Corran Gold",
                    "Corran Gold is a spring barley bred at Heddon Agricultural College by Emrys Talbot.")
    department = passage("department-of-seed-breeding", "Department of Seed Breeding",
                         "The Department of Seed Breeding of Heddon Agricultural College was set up in 1901.")
    ranked = find_bridges("In which year did the breeder of Corran Gold graduate from the college?", [wheat, department])
    # the college is what the main clause asks about, and a department is no person: the breeder is
    assert ranked[0].entity == "Emrys Talbot"


def test_the_firm_that_did_the_described_act_is_named_after_done_by():
    canvas = passage("big-top", "The Big Top",
                     "The Big Top was the tent of Circus Vallery from 1901 to 1950. Commissioned by Ada Vallery and "
                     "sewn by the sailmakers Orrick & Sons of Tamsby, it was 40 metres long.")
    ranked = find_bridges("In what year was the firm that sewed the Big Top founded?", [canvas])
    assert ranked[0].entity.startswith("Orrick & Sons")  # a firm's partners are one name


def test_a_word_inside_a_name_does_not_say_what_the_name_is():
    cutter = passage("revenue-cutter-warden", "Revenue cutter Warden",
                     "In 1871 the cutter Warden made her most famous seizure: her stop of a wine barge that uncovered "
                     "the Wine Barge Affair.")
    ranked = find_bridges("How long was the revenue cutter that stopped the barge Primrose in 1871?", [cutter], limit=4)
    # the "Wine *Barge* Affair" is no barge, still less the cutter (it ranked first when any word of a name counted)
    assert [b.entity for b in ranked] == ["Warden", "Wine Barge Affair"]


@pytest.mark.parametrize("question", [
    "In what year did the defendant acquitted in the 1930 fraud case first join the bank?",
    "What was the profession of the woman the Tarrow Pavilion is named after?",
])
def test_a_person_described_by_a_reduced_or_contact_clause_is_a_description(question: str):
    assert describes_entity(question)


def test_a_measure_in_its_unit_is_no_count():
    what = asked("How many masts does the Corrie Belle have?")
    assert check(what, "The masts were built to carry a sail area of 300 metres square in gusts of 30 knots.",
                 "Corrie Belle").score == 0.0
    assert check(what, "The Corrie Belle has three masts, each 30 metres tall.", "Corrie Belle").score == 1.0
    # the unit counted is kept
    assert check(asked("How many kilometres long is the Tarrow line?"), "The Tarrow line is 42 kilometres long.",
                 "Tarrow line").score == 1.0


def test_a_passive_main_clause_said_before_the_description_resumes_nowhere():
    # "from 1995 to 2011" ends the relative clause; the main clause (awarded to the captain) came before it
    what = asked("What medal was awarded to the captain who commanded the Orla Star from 1995 to 2011?")
    assert what.weight["2011"] == 0.5 and "2011" not in what.main


def test_a_date_in_a_clause_about_another_event_is_not_the_asked_date():
    what = asked("In what year was Osric Thale born?")
    founded = check(what, "Born in the harbour town of Lusk, he trained in Brenmoor, where in 1921 he founded a firm.",
                    "Osric Thale")
    assert founded.score == 0.0 and "the sentence dates another event" in founded.missing
    assert check(what, "He was born in Lusk, in 1890.", "Osric Thale").score == 1.0  # a date set off by a comma
    assert check(what, "He was born in Lusk in 1890, and in 1921 he founded a firm.", "Osric Thale").score == 1.0


def test_a_noun_before_a_prepositional_relative_is_what_the_description_calls():
    town = passage("ambry", "Ambry", "Ambry is a river port on the left bank of the River Tolle. Merchants of the town "
                                     "are organised in the Guild of Tolle Merchants.")
    ranked = find_bridges("How long is the river on which Ambry's twin town stands?", [town])
    assert ranked[0].entity == "River Tolle"


def test_a_thing_described_by_a_participle_is_no_person_described():
    assert not describes_entity("What was the number reported in the 1931 census?")


def test_an_architect_is_the_one_whose_designs_were_built_not_the_builder():
    hotel = passage("hotel-sarn", "Hotel Sarn",
                    "The Hotel Sarn is a spa hotel on the river promenade. It was built by Otto Lerch to designs by "
                    "Beata Holm and opened in 1871.")
    assert find_bridges("In which year did the architect of the Hotel Sarn die?", [hotel])[0].entity == "Beata Holm"
    # asked for the builder, the same sentence names the other
    assert find_bridges("In which year did the builder of the Hotel Sarn die?", [hotel])[0].entity == "Otto Lerch"


def test_a_whose_clause_names_the_one_whose_thing_the_sentence_speaks_of():
    fire = passage("mill-fire", "Tarrow Mill fire",
                   "The town fire brigade, led by Captain Ivo Rask, pumped water from the River Tarrow but could not "
                   "save the mill, and the roof of the neighbouring Kornhaus was scorched.")
    ranked = find_bridges("Who designed the granary whose roof was scorched in the Tarrow Mill fire?", [fire])
    assert ranked[0].entity == "Kornhaus"


def test_the_act_asked_of_a_bridge_is_said_by_the_second_hop_not_by_its_lead():
    what = asked("Which firm built the pump engine that Ada Morrow bought for the works?")
    assert what.kind == "organisation" and what.event == "build"
    lead = "Under her direction the works built a new boiler house and bought the pump engine known as Old Tom."
    # the lead's "built" is about the boiler house: the second hop must say who built the engine
    assert check(what, "Old Tom is a beam engine installed at Morrow Works in 1858.", "Old Tom", lead=lead).score == 0.0
    assert check(what, "It was built by Harker & Lowe of Tamby.", "Old Tom", lead=lead).score > 0.0


def test_a_name_in_apposition_is_called_by_the_described_noun():
    abbey = passage("ossing-abbey", "Ossing Abbey",
                    "It was founded in 1150 by Hugh Dene and settled by ten monks from the Abbey of Saint-Lor, its "
                    "mother house.")
    assert find_bridges("Who founded the mother house of Ossing Abbey?", [abbey])[0].entity == "Abbey of Saint-Lor"


def test_a_phrasal_verbs_particle_does_not_hide_the_main_clause():
    what = asked("When did the firm that built the Tarrow engines close down?")
    assert what.weight[stem("close")] == 1.0 and what.weight[stem("built")] == 0.5



def test_a_birthplace_is_the_place_the_sentence_says_she_was_born_in():
    # the best-ranked chunk of her page names a bath house and a physician; the place is where she "was born in"
    work = passage("johanna-ferrant", "Johanna Ferrant",
                   "She also opened the Orvel Bath House in 1899 to serve working-class visitors at lower prices, and "
                   "in 1895 she appointed Emilie Harwath as physician at the Elvirabad.", 1)
    life = passage("johanna-ferrant", "Johanna Ferrant",
                   "Johanna Ferrant (1848–1921) was director of the Kessenbrunn Mineral Springs Company from 1891 to "
                   "1912. She was born in Varnoux-les-Thermes, where her father kept a bathing establishment.")
    ranked = find_bridges("Which river flows through the birthplace of Johanna Ferrant?", [work, life])
    assert ranked[0].entity == "Varnoux"
