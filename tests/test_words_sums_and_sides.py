"""Readings the rules got wrong on development data (session 49), each a unit test of the rule that now reads it.

* A word said otherwise counts when sentences are ranked, as it does when the answer is checked: "What *registration*
  did Gannet's Reach carry?" ranks "… and *registered* it as MI-KAA" above the answer floor.
* A who-question is answered by what a person's own page says of "her" ("*Her works* include … the opera The
  Lamplighter" on Greta Voss's page): the page's title names the one asked for.
* What a thing cost is not a salary paid while it was made; a sum won *for Marrowby* is not one *for Dunhallow Town*;
  the years of a list of office-holders are terms, not lifespans; a date or a day and month needs a month.
* A who-question about a woman a building is *named after* asks of the eponym (here her profession), not for a name.
* The plane that carried someone is the one they flew *aboard*; a parent is the one someone is "the daughter of"; the
  mother of the one described is that one's mother.
* A first hop answers by itself only with a sentence over the answer floor (else the bridge that would quote the answer
  was dropped); a premise is judged on the question's own best passages too; "now" is no part of a named thing; a
  place or a lone opening word is no name for "the man who …".

Every test fails on session 48's code.
"""

from __future__ import annotations

import pytest
from scripted_retrieval import ScriptedRetriever

from groundqa.judges.lexical import features
from groundqa.programs.answer_values import has_type, pay_not_cost
from groundqa.programs.answerability import asked, check
from groundqa.programs.bridging import find_bridges, hop_question
from groundqa.programs.context import build_context
from groundqa.programs.contradiction import side_swapped
from groundqa.programs.extractive import rank_sentences
from groundqa.programs.gates import Gates
from groundqa.programs.grounded_qa import GroundedQA, QAConfig
from groundqa.programs.judge_budget import budgeted
from groundqa.programs.premises import PremiseVerifier
from groundqa.programs.presuppositions import heuristic_presuppositions
from groundqa.signatures.types import Passage

GANNET = ("Gannet's Reach was the first aircraft owned by Kestrelwing Air, a single-engine, six-seat Calder C-6 Petrel "
          "built in Kellaby in 1958. Oswin Halloran bought the craft second-hand in 1970 for 4,200 pounds and "
          "registered it as MI-KAA. On 2 June 1971 he flew it from Vessary to Cairnholm on the airline's inaugural "
          "scheduled service, carrying four passengers and a sack of mail.")


def test_a_word_said_otherwise_counts_in_the_ranking() -> None:
    context = build_context([Passage(chunk_id="gannets-reach#0", doc_id="gannets-reach", title="Gannet's Reach",
                                     text=GANNET, score=0.6)], 4000)
    ranked = {s.text: s.score for s in rank_sentences("What registration did Gannet's Reach carry?", context)}
    registered = next(t for t in ranked if "MI-KAA" in t)
    assert ranked[registered] >= Gates().answer_floor  # "registered" says "registration" (SYNONYMS)


VOSS_WORKS = ("Her works include three string quartets, a cello concerto, music for a harbor festival, and the opera "
              "The Lamplighter (2005), about a lighthouse keeper's daughter.")


def test_a_page_of_a_person_answers_who_by_its_title() -> None:
    what = asked("Who wrote the opera The Lamplighter?")
    assert check(what, VOSS_WORKS, title="Greta Voss. She moved to Lorvin in 1972.").score >= Gates().answerability
    # on a page about a place, "her" names no one
    assert check(what, VOSS_WORKS, title="Lorvin Conservatory. It was founded in 1851.").score == 0.0
    # nor on the question's own person's page
    own = asked("Who wrote Greta Voss's opera The Lamplighter?")
    assert check(own, VOSS_WORKS, title="Greta Voss").score == 0.0


def test_a_salary_is_not_what_it_cost() -> None:
    question = "How much did it cost to build the Threlkirk and Domeny Canal?"
    salary = "Quayle was paid a salary of £300 a year while the canal was being built."
    assert pay_not_cost(question, salary) == "salary"
    verdict = check(asked(question), salary, title="Threlkirk and Domeny Canal")
    assert verdict.score == 0.0 and verdict.other_question  # the answer judge may not quote it either
    assert pay_not_cost(question, "The canal cost £41,000 to build, twice the estimate.") == ""
    assert pay_not_cost("What salary was Quayle paid?", salary) == ""  # asked for the salary itself


def test_a_sum_for_another_side_is_no_answer() -> None:
    question = "How many goals did Declan Sowerby score for Dunhallow Town?"
    other = ("For Marrowby he scored 38 goals in 164 appearances and was named the Fennish Combination League's Young "
             "Player of the Year in 2010.")
    assert side_swapped(question, other) is not None
    assert check(asked(question), other, title="Declan Sowerby").score == 0.0
    assert side_swapped(question, "For Dunhallow Town he scored 12 goals in 40 games.") is None
    assert check(asked(question), "For Dunhallow Town he scored 12 goals in 40 games.", title="Declan Sowerby").score > 0


DIRECTORS = ("The firm has had seven managing directors: first, Matthias Orlund (1847–1879); second, Eduard Orlund "
             "(1879–1911); third, Helena Orlund-Vask (1911–1938).")


def test_terms_in_a_list_of_holders_are_no_lifespans() -> None:
    what = asked("what year did Matthias Orlund die")
    assert check(what, DIRECTORS, title="Orlund Watchworks").score == 0.0
    assert check(what, "Matthias Orlund (1819–1891) was a clockmaker.", title="Matthias Orlund").score > 0


def test_a_day_and_month_needs_a_month() -> None:
    question = "On what day and month was Casimir Drevet born?"
    words = features(question).tokens
    assert not has_type("date", "Casimir Drevet (1878–1957) was a track cyclist.", words, question)
    assert has_type("date", "Casimir Drevet was born on 3 May 1878 in Halvering.", words, question)


def test_named_after_asks_of_the_eponym() -> None:
    what = asked("What was the profession of the woman the Orsmund Pavilion is named after?")
    assert what.kind == "occupation"  # it was read as asking for a name, which any sentence of her page "gave"
    assert not check(what, "She never married, and on her death she left her library of 2,300 chess books to the "
                           "Pellin Rooks Club.", title="Helga Orsmund").score


AMBULANCE = Passage(
    chunk_id="isles-air-ambulance#0", doc_id="isles-air-ambulance", title="Isles Air Ambulance", score=0.6,
    text="Isles Air Ambulance is the medical evacuation service of the Merrowen Isles, run jointly by Kestrelwing Air "
         "and the Merrowen Health Board since 1992. The service carried its first patient on 21 November 1992, when "
         "Nessa Quarrie flew a farmer with a fractured skull from Cairnholm to Vessary aboard the Saltmarsh Lady.")


def test_the_plane_is_the_one_flown_aboard() -> None:
    bridges = find_bridges("what was the registration of the plane that carried the air ambulance's first patient?",
                           [AMBULANCE])
    assert bridges[0].entity == "Saltmarsh Lady"


def test_a_relative_of_the_one_described_is_asked_of_their_name() -> None:
    question = "What year was the mother of the aviation museum's current curator born?"
    assert hop_question(question, "Lowell Tavener") == "What year was Lowell Tavener's mother born?"
    # the curator's own birth year does not answer it
    what = asked(question)
    assert check(what, "Lowell Tavener (born 1966) is a local historian who has been curator of the Merrowen "
                       "Aviation Museum since 2003.", title="Lowell Tavener").score == 0.0


TALLACK = Passage(chunk_id="ismay-tallack#0", doc_id="ismay-tallack", title="Ismay Tallack", score=0.6,
                  text="Ismay Tallack (born 17 August 1961) is a Kelvenna politician who has served as convener of the "
                       "Kelvenna Island Council since 2015. She was born in Port Aldric, the only daughter of Corra "
                       "Bell Tallack and the boatbuilder Neil Tallack. As convener she led the 2018 campaign to keep "
                       "the secondary department of Kelvenna Island School open.")


def test_a_parent_is_named_as_whose_child_someone_is() -> None:
    bridges = find_bridges("What was the occupation of Ismay Tallack's mother?", [TALLACK])
    assert {b.entity for b in bridges[:2]} == {"Corra Bell Tallack", "Neil Tallack"}


CHAIRS = Passage(chunk_id="rac#0", doc_id="rac", title="Resource Allocation Committee", score=0.55,
                 text="The allocation committee meets four times a year, in February, May, August and November. Its "
                      "members are a chair, eight academics and a non-voting secretary.")
AWARDS = Passage(chunk_id="rac#1", doc_id="rac", title="Resource Allocation Committee", score=0.52,
                 text="Requests of up to 2 million core-hours a year are approved by the secretary. In 2023 the "
                      "committee awarded 310 million core-hours to 164 projects.")


def test_a_premise_is_also_judged_on_the_passages_found_for_the_question() -> None:
    # the claim's own retrieval finds only the list of chairs; the question's finds the sentence that says it
    question = "how many core-hours did the allocation committee hand out in 2023"
    verifier = PremiseVerifier(ScriptedRetriever([CHAIRS]), extractor="heuristic", judge="offline")
    assert verifier(question=question, gates=Gates()).status == "failed"
    assert verifier(question=question, gates=Gates(), near=[AWARDS]).status == "passed"


FARRENHALL = Passage(
    chunk_id="ludo-farrenhall#0", doc_id="ludo-farrenhall", title="Ludo Farrenhall", score=0.62,
    metadata={"position": 0},
    text="Ludo Farrenhall (1838–1904) was an architect and engineer of the province of Aster. Born in Kelvasund, he "
         "trained as a stonemason in his father's yard before studying at the provincial college of building there "
         "from 1857 to 1861. He settled in Orrenbeck in 1866. His principal buildings are the Orrenbeck Town Hall "
         "(1879), with its clock turret, and the covered market at Kelvasund (1883).")
ORRENBECK = Passage(
    chunk_id="orrenbeck#1", doc_id="orrenbeck", title="Orrenbeck", score=0.6,
    text="The lower town around the river quays is served by St Brannoc's Church. The Town Hall on Market Square, "
         "completed in 1879 to designs by Ludo Farrenhall, carries the Concord Bell in its clock turret.")


def test_a_first_hop_answers_by_itself_only_over_the_answer_floor(monkeypatch: pytest.MonkeyPatch) -> None:
    # the architect's own page is the first hop's best passage, and its sentence about his studies is below the answer
    # floor for the question's words: kept only through the bridge (his name) is it read and quoted
    monkeypatch.setattr(GroundedQA, "_answer_judge", staticmethod(lambda: budgeted(lambda *a: -6.0)))
    program = GroundedQA(ScriptedRetriever([FARRENHALL, ORRENBECK]), QAConfig.for_lm("embedded"))  # type: ignore[arg-type]
    result = program.run("where did the architect of Orrenbeck Town Hall study")
    assert not result.abstained, result.abstain_message
    assert "provincial college of building" in result.answer


def test_now_is_no_part_of_a_named_thing() -> None:
    claims = [p.claim for p in heuristic_presuppositions("who hosts the Morning Table these days")]
    assert claims == ["hosts the Morning Table"]  # not "Morning Table now", which no passage says
    assert "Calder Island airport" in [p.claim for p in heuristic_presuppositions(
        "Who founded the Calder Island airport?")]


def test_a_place_or_an_opening_word_is_no_name_for_the_man_who() -> None:
    question = "What was the name of the man who founded the Lorvin Glassworks?"
    words = features(question).tokens
    assert not has_type("person", "Guided tours start at the Palm House on Sunday afternoons.", words, question)
    assert has_type("person", "Aurel Marovell founded it in 1871.", words, question)
