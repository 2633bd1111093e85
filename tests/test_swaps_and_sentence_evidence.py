"""Readings the rules got wrong on development data and SQuAD's training articles (session 51), each a unit test of
the rule that now reads it.

* A question made from a sentence by turning one of its relations round is not answered by that sentence: the way
  back ("from the pathogen to the host" for "from the host to the pathogen"), the opposite modifier ("a *non-zero*
  velocity" for "a zero velocity"), the other side of an order ("*After* they bind" for "*before* they bind"), the
  question's person as someone else's relative ("Bohemond and *his nephew Tancred*" for "Tancred's nephew"), or only
  as a relative's owner ("Malcolm married *Edgar's sister* Margaret" for "Who did Edgar marry?"). Where the
  best-ranked sentence of the context is such a swap or an opposite, the question was made from it: it is refused
  whole, and the answer judge does not overrule that.
* Words said otherwise: "how quickly" is answered by a time it takes ("within 48 hours"), illustrations by
  miniatures, what "took over from" something by what replaced it, who "followed" someone by who succeeded them,
  control by domination, a circus by its company, "used" by "utilised", "get together" by "meet"; "working" is not
  "writing" (a writer's "works" were read as any work).
* A bridge is the thing the description's relative clause describes ("the *firm* that built the engines"), not a
  thing its clause names ("the beam *engines* Prudence and Hesper").
* A passage that holds a sentence close to the question is evidence, whatever its own retrieval score
  (``Gates.sentence_evidence``): "The team acknowledges reports within 48 hours" follows a list of five products
  and embeds far from the question as a passage.
"""

from __future__ import annotations

from groundqa.programs.answerability import asked, check
from groundqa.programs.bridging import find_bridges
from groundqa.programs.context import build_context
from groundqa.programs.contradiction import direction_reversed, negated_modifier, order_swapped
from groundqa.programs.extractive import extractive_answer
from groundqa.programs.gates import Gates
from groundqa.programs.grounded_qa import GroundedQA, QAConfig
from groundqa.signatures.types import Passage


def test_the_way_back_does_not_answer_the_way_there() -> None:
    question = "What do bacteria use to move proteins from the host to the pathogen?"
    back = "Using a secretion system, bacteria provide a direct route for proteins to move from the pathogen to the host."
    assert direction_reversed(question, back)
    assert direction_reversed(question, back.replace("from the pathogen to the host", "from the host to the pathogen")
                              ) is None
    assert check(asked(question), back).score == 0.0


def test_the_opposite_modifier_does_not_answer() -> None:
    question = "What continues to move with a zero velocity?"
    sentence = "Since the object started with a non-zero velocity, it continues to move with a non-zero velocity."
    assert negated_modifier(question, sentence)
    assert negated_modifier("What continues to move with a non-zero velocity?", sentence) is None
    assert negated_modifier(question, "An object at rest has zero velocity and no net force.") is None
    assert check(asked(question), sentence).score == 0.0


def test_after_does_not_answer_before() -> None:
    question = "What do complement proteins activate before they bind to the microbe?"
    sentence = "After complement proteins initially bind to the microbe, they activate their protease activity."
    assert order_swapped(question, sentence)
    assert order_swapped(question, sentence.replace("After", "Before")) is None
    assert order_swapped("What do complement proteins activate?", sentence) is None
    assert check(asked(question), sentence).score == 0.0


def test_the_questions_person_as_someone_elses_relative() -> None:
    question = "What was the name of Tancred's nephew?"
    assert check(asked(question), "Crusaders were joined by Bohemond of Taranto and his nephew Tancred.").score == 0.0
    assert check(asked(question), "Tancred travelled with his nephew Roger of Salerno.").score > 0.0


def test_the_questions_person_only_as_a_relatives_owner() -> None:
    question = "Who did Edgar marry?"
    verdict = check(asked(question), "King Malcolm III of Scotland married Edgar's sister Margaret in 1070.")
    assert verdict.score == 0.0 and any("relative (sister)" in m for m in verdict.missing)
    assert check(asked(question), "Edgar married Margaret of Wessex, and Edgar's sister lived in York.").score > 0.0
    asked_of_her = check(asked("Who did Edgar's sister marry?"), "King Malcolm III of Scotland married Edgar's sister "
                                                                  "Margaret in 1070.")
    assert not any("relative" in m for m in asked_of_her.missing)  # the question asks of the relative herself
    assert any("relative (sister)" in m for m in check(asked(question), "Edgar's younger sister was married to King "
                                                                        "Malcolm in 1070.").missing)
    succeeded = check(asked("Who did Edgar succeed?"), "Edgar's predecessor on the throne was Harold.")
    assert not any("relative" in m for m in succeeded.missing)  # a predecessor is whom he succeeded, no relative


def test_words_said_otherwise() -> None:
    cases = [
        ("How quickly does the security response team acknowledge a vulnerability report?",
         "The security response team acknowledges reports within 48 hours."),
        ("How many full-page illustrations are in the Carrowby Psalter?",
         "The Carrowby Psalter contains 186 parchment leaves and 11 full-page miniatures."),
        ("What took over from tuning forks at the Vennick foundry in 1986?",
         "In 1986 the forks at the Vennick foundry were replaced by an electronic strobe tuner."),
        ("Who followed Anton Brisk as captain of the guild?", "Anton Brisk was succeeded as captain of the guild by "
                                                            "his pupil Britta Holm."),
        ("How long did Western Europe control Cyprus?",
         "Cyprus would be under Western European domination for the following 380 years."),
        ("Why did Jonah Quistle leave the circus?",
         "Jonah Quistle quarrelled over the cost of a second ring and left the company in 1884."),
        ("How often does the Velloury perfume committee get together?",
         "The Velloury perfume committee meets four times a year."),
    ]
    for question, sentence in cases:
        assert check(asked(question), sentence).score >= 0.6, question
    assert check(asked("How quickly does the security response team acknowledge a vulnerability report?"),
                 "The security response team has five members.").score == 0.0


def _passage(chunk: str, title: str, text: str, score: float) -> Passage:
    return Passage(chunk_id=chunk, doc_id=chunk.split("#")[0], title=title, text=text, score=score)


def test_one_close_sentence_makes_its_passage_evidence() -> None:
    assert 0.3 <= Gates().sentence_evidence <= 1.0 and "sentence_evidence" in Gates.search_space()
    question = "How quickly does the security response team acknowledge a vulnerability report?"
    policy = _passage("policy#1", "Quennet security policy",
                      "Vulnerabilities in Quennet, qnc, Tallyhold, Lodgewire or the Tallyhold Registry should be "
                      "reported privately to the Quennet Security Response Team rather than on the public issue "
                      "tracker. The team acknowledges reports within 48 hours and aims to publish a fix within 90 "
                      "days.", 0.27)
    other = _passage("lodgewire#1", "Lodgewire", "Its maintainers meet fortnightly and report to the steering "
                                                 "committee twice a year.", 0.31)
    context = build_context([policy, other], 4000, "truncate")
    qa = GroundedQA(None, QAConfig.for_lm("embedded"))  # the citable passages need no retrieval
    assert qa._citable(question, context, (), set(), None) == {1, 2}  # the policy by its second sentence
    with qa.gates.overridden(sentence_evidence=1.01):  # off: the retrieval scores alone decide
        assert qa._citable(question, context, (), set(), None) == {2}


def test_working_is_no_writing() -> None:
    question = 'Who wrote "On the Computational Complexity of Science"?'
    assert check(asked(question), "The field began to flourish in 1971 when Stephen Cook and, working independently, "
                                  "Leonid Levin proved that such problems exist.").score == 0.0
    assert check(asked("Who wrote The Salt Ledger?"), "The Salt Ledger is a 1991 play by Ione Barrowclough, who wrote "
                                                      "it in Brasswick.").score > 0.0
    assert check(asked("Who wrote the opera The Lamplighter?"), "Her works include three string quartets and the opera "
                                                                "The Lamplighter.", title="Greta Voss").score > 0.0


def test_a_bridge_is_not_what_the_described_thing_made() -> None:
    question = "When did the firm that built the Fenwright Street engines close down?"
    passages = [
        _passage("station#1", "Fenwright Street Pumping Station", "The Fenwright Street Pumping Station is a former "
                 "waterworks pumping station in Quellingford. Its two beam engines were supplied in 1861.", 0.6),
        _passage("firm#1", "Drummond & Laverick", "Drummond & Laverick was an engineering firm founded in 1838 at "
                 "Pellbridge. Its best-known products are the beam engines Prudence and Hesper, built in 1861 for the "
                 "Fenwright Street Pumping Station.", 0.5)]
    named = [b.entity for b in find_bridges(question, passages, limit=3)]
    assert "Drummond & Laverick" in named and "Prudence" not in named and "Hesper" not in named


def test_a_question_made_from_its_best_sentence_by_a_swap_is_refused_whole() -> None:
    question = "What do complement proteins activate before they bind to the microbe?"
    made_from = _passage("complement#1", "Complement system", "After complement proteins initially bind to the "
                         "microbe, they activate their protease activity. In humans, this response is activated by "
                         "complement binding to antibodies that have attached to these microbes.", 0.7)
    found = extractive_answer(question, build_context([made_from], 4000, "truncate"), answerability=0.6)
    assert found.swapped and not found.chosen and found.shortfall is not None
    # not a negation ("not identified … until" answers who identified it), nor another person or year
    newton = _passage("force#1", "Force", "What we now call gravity was not identified as a universal force until "
                      "the work of Isaac Newton.", 0.7)
    assert not extractive_answer("Who identified gravity as a force?", build_context([newton], 4000, "truncate"),
                                 answerability=0.6).swapped
    founders = _passage("yard#1", "Halloran & Vesk", "It was founded in 1838 by Edwin Halloran and Piet Vesk, two "
                        "shipwrights.", 0.7)
    assert not extractive_answer("Who founded the boatbuilders Halloran & Vesk?",
                                 build_context([founders], 4000, "truncate"), answerability=0.6).swapped
