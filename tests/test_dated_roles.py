"""Year bridges in the regatta corpus's wording (session 41): holders listed by rank with their terms in brackets
("first, Tobias Wrenfield (1862–1879); second, Hugh Lastry (1879–1902)"), a question dated by "the year …" without
"in", "called off", a role asked without its article ("who was club *captain* …"), and a year whose own clause goes on
to say the event ("in 1911, when a long drought …")."""

from __future__ import annotations

from groundqa.judges.lexical import features
from groundqa.programs.answerability import asked, check, plain_words
from groundqa.programs.year_bridge import dated_question, event_year

PRESIDENTS = ("Eight people have held the office since 1862: first, Tobias Wrenfield (1862–1879), co-founder of the "
              "club; second, Hugh Lastry (1879–1902); third, Ambrose Fenwyck (1902–1931).")


def test_brackets_in_a_list_by_rank_are_terms():
    said = features(PRESIDENTS)
    assert said.spans_year("1881") and said.spans_year("1920")
    assert not features("Ilse Varga (1921–2009) was a botanist, the first of her family.").spans  # still a lifespan


def test_a_question_dated_by_the_year_of_an_event_without_in():
    dated = dated_question("who was club captain the year the regatta was called off because of drought")
    assert dated is not None and dated.main == "who was club captain"
    assert "cancelled" in dated.event and "called off" not in plain_words(dated.event)


def test_a_role_without_its_article_is_what_the_answer_must_say():
    what = asked("who was club captain the year the regatta was called off because of drought")
    assert what.event == "captain"
    assert asked("Who was mayor in 2001?").event == "mayor"
    assert check(asked("who was club captain in 1880?"), "Crews from Ostley Reach Boat Club have entered every "
                                                          "regatta since 1880.").score == 0.0
    # a role a description goes by is not asked of the answer itself; one asked with its article still is
    assert asked("who is the founding chair of the allocation committee married to").event == ""
    assert asked("Who was the architect of the boathouse the ladies' club used on Tuesday evenings?").event == (
        "architect")


def test_a_year_whose_clause_goes_on_to_say_the_event_dates_it():
    cancelled = ("The event has been cancelled only twice: in 1911, when a long drought left too little water over "
                 "Gallow Shoal, and in 1947, after the Great Vellow Flood.")
    assert event_year("the regatta was cancelled because of drought", cancelled) == "1911"
    assert event_year("the regatta was cancelled after the flood", cancelled) == "1947"
    assert event_year("the mill burned", "The mill, built in 1850, burned in 1911.") == "1911"


def test_a_term_still_running_holds_the_years_since():
    directors = ("Its executive directors have been Maren Oskvold, from 2017 to 2020, who took the post after stepping "
                 "down as chair, and Bertil Ashcombe, since 2020.")
    assert features(directors).spans_year("2021") and not features(directors).spans_year("2016")
    assert features("eighth, Declan Furze (2016–present).").spans_year("2023")
    assert not features("He worked there from 1921 and retired in 1930.").spans_year("1935")


def test_the_sentence_that_says_the_event_itself_dates_it():
    from groundqa.programs.year_bridge import find_year_bridge
    from groundqa.signatures.types import Passage

    dated = dated_question("who was executive director of the Quennet Foundation when release 4.0 came out")
    assert dated is not None and dated.event == "release 4.0 released"
    passages = [Passage(chunk_id=f"release-4-0#{n}", doc_id="release-4-0", title="Quennet 4.0", score=0.7, text=text)
                for n, text in enumerate((
                    "The 4.x line is supported for three years. A point release, 4.1, followed in March 2022 and "
                    "fixed a crash in the new diagnostics format.",
                    "Quennet 4.0, code-named Marram, was released on 22 November 2021. It removed a module."))]
    bridge = find_year_bridge(dated, passages)
    assert bridge is not None and bridge.entity == "2021"


def test_a_running_term_holds_no_year_to_come():
    from datetime import date

    later = str(date.today().year + 5)
    assert not features("Bertil Ashcombe has been director, since 2020.").spans_year(later)


def test_it_on_another_page_of_the_same_kind_is_not_the_question_s_one():
    what = asked("When did Silas Brandwood found Harnsey Cross Rowing Club?")
    other = check(what, "It was founded in 1879 by Silas Brandwood, a former member of the Harnsey club.",
                  title="Ostley Reach Boat Club. Ostley Reach Boat Club is a rowing club.")
    assert other.score == 0.0 and any("Ostley Reach Boat Club" in m for m in other.missing)
    own = check(asked("When was Harnsey Cross Rowing Club founded?"), "It was founded on 14 April 1862.",
                title="Harnsey Cross Rowing Club")
    assert own.score > 0.6
    house = check(asked("When did Eudes Drevanne found Maison Velloury?"), "It was founded in 1874 by Eudes Drevanne.",
                  title="Maison Drevanne")
    assert house.score == 0.0  # a house named after a family: its kind is its first word
    # the same one, shortened by the question ("the Vennick Foundry" for the Vennick Bell Foundry)
    same = check(asked("what was the Vennick Foundry called before 1809"),
                 "It was known as Vennick's Brass and Bell Works until 1809.", title="Vennick Bell Foundry")
    assert not any("speaks of it" in m for m in same.missing)


def test_a_running_term_starts_the_year_after():
    said = features("Dr. Hanne Rusk has been rector, since 2017.")
    assert said.spans_year("2018") and not said.spans_year("2017")  # in 2017 the one before may have held it
