"""A sentence that says what the question asks about is not so corrects the question (session 36).

"What was the name of the locomotive owned by Circus Harwell?" against "The circus never owned a locomotive; engines
were hired for each journey": the sentence is about the question, and it says the premise is false. It is no answer,
the answer judge may not quote it, and where no other sentence answers the program abstains
``premise_contradicted`` with it as the correction. Unit tests of the check on sentences written for them, and of the
program with a scripted retriever and answer judge.
"""

from __future__ import annotations

import pytest
from scripted_retrieval import judged_program, passage

from groundqa.programs.answerability import asked, check, denies_asked
from groundqa.signatures.types import AbstainReason

CIRCUS = ("Circus Harwell toured the northern towns by rail from 1921. The circus never owned a locomotive; engines were "
          "hired from the Ardley Railway for each journey. Its train had eleven wagons.")


@pytest.mark.parametrize("question, sentence", [
    ("What was the name of the locomotive owned by Circus Harwell?", "The circus never owned a locomotive."),
    ("In what year was the Tarrow Packet Company nationalised?", "The company has never been nationalised."),
    ("In which year did Ivo Brant win his second Tour of Hessel?", "Brant never won the race again."),
])
def test_a_sentence_that_says_it_is_not_so_denies_the_question(question: str, sentence: str):
    what = asked(question)
    assert denies_asked(what, sentence)
    verdict = check(what, sentence)
    assert verdict.score == 0.0 and verdict.other_question
    assert "the sentence says it is not so" in verdict.missing


@pytest.mark.parametrize("question, sentence", [
    ("When did the museum open?", "The museum was opened in 1990, not in 1989 as often said."),  # a denial in passing
    ("Which locomotives did the circus not own?", "The circus never owned a tank engine."),  # asks what is not so
    ("Did the circus own a locomotive?", "The circus never owned a locomotive."),  # "No" answers it
    ("How many ships did the yard build?", "The yard built no ships after 1950 but repaired 40."),  # not the asked act
    ("Who succeeded Ivo Marr as club secretary?", "Marr never played a match for the club himself."),  # not what is asked
    # the negation governs another act than the question's
    ("What was the name of Ada Lorn's husband?", "She never remarried after the death of her husband, the pilot Ivo Gale."),
    # a negation that dates or times the act says when it happened
    ("Who identified the comet as periodic?", "The comet was not identified as periodic until the work of Ada Lind."),
    ("How long did it take to improve on Hessel's tables?", "Hessel's tables were not improved on for ninety years."),
    # the question denies as well
    ("In what kind of chamber are there no unbalanced forces?", "In a sealed chamber there are no forces that are "
                                                                "unbalanced."),
])
def test_a_negation_that_does_not_deny_the_asked_act_is_no_denial(question: str, sentence: str):
    assert not denies_asked(asked(question), sentence)


def test_the_program_gives_the_denying_sentence_as_the_correction(monkeypatch: pytest.MonkeyPatch) -> None:
    program, read = judged_program(monkeypatch, passage("circus-harwell#0", 0.6, CIRCUS, "Circus Harwell"),
                                   {"never owned": 6.0})
    result = program.run("What was the name of the locomotive owned by Circus Harwell?")
    assert result.abstain_reason is AbstainReason.PREMISE_CONTRADICTED, (result.answer, result.abstain_message)
    assert result.correction is not None and result.correction.doc_id == "circus-harwell"
    assert result.correction.snippet.startswith("The circus never owned a locomotive")
    assert "never owned a locomotive" in result.abstain_message
    assert result.premises[-1].status == "contradicted"
    assert not any("never owned" in sentence for sentence in read)  # the judge was not asked to overrule it
