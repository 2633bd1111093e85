"""The answer judge's second opinion on the sentence the rules chose, for a question without an asked type.

"Why was the strike called?" or "What kind of unit is the infirmary today?" asks for no date, number or name, so no
type check keeps the rules off a topical sentence that shares the question's words ("The Blowers' Strike of 1934 was
called off after 47 days"). Where the tuned answer judge reads another of the best-ranked sentences as the answer
(margin above 0) by ``answer_preference`` (2 on the embedded default) more than the rules' choice, that sentence is
quoted instead; a choice the judge gives ``preference_trust`` (1) or more is kept without reading the others. Where it reads no other sentence so and gives the rules' choice less than ``preference_floor`` (-4 on the
embedded default), nothing is quoted: the program abstains ``not_answered``. Unit tests with a scripted judge and retriever; then the whole program on the real embedded LM with the
shipped judge over a corpus written for this test.
"""

from __future__ import annotations

import pytest
from embedded_programs import CORRAN_MILL, embedded_program
from scripted_retrieval import judged_program, passage

from groundqa.programs.gates import JUDGE_OFF, RESCUE_OFF, Gates
from groundqa.programs.grounded_qa import GroundedQA, QAConfig
from groundqa.signatures.types import AbstainReason

STRIKE = ("The Blowers' Strike of 1934 was called off by the union after 47 days. "
          "The blowers stopped work when the management cut piece rates by 15 percent. "
          "The Orlanc works reopened on 14 May 1934.")
QUESTION = "Why was the Blowers' Strike of 1934 called?"


def scripted_program(monkeypatch: pytest.MonkeyPatch, margins: dict[str, float], **gates: float) -> tuple[
        GroundedQA, list[str]]:
    """The embedded default's program over one passage, its answer judge scripted (:func:`judged_program`)."""
    return judged_program(monkeypatch, passage("orlanc-glassworks#1", 0.6, STRIKE, "Orlanc Glassworks"), margins, **gates)


def test_the_gate_is_on_for_the_embedded_default_only_and_round_trips() -> None:
    embedded, other = QAConfig.for_lm("embedded").gates, QAConfig.for_lm("openai/gpt-4o-mini").gates
    assert (embedded.answer_preference, embedded.preference_trust, embedded.preference_floor) == (2.0, 1.0, -4.0)
    assert other.answer_preference >= RESCUE_OFF and other.preference_floor <= JUDGE_OFF
    assert Gates().answer_preference >= RESCUE_OFF and Gates().preference_floor <= JUDGE_OFF
    loaded = Gates(**Gates(answer_preference=3.0, preference_floor=-2.0).model_dump())
    assert (loaded.answer_preference, loaded.preference_floor) == (3.0, -2.0)


def test_the_rules_quote_the_topical_sentence_without_the_judge(monkeypatch: pytest.MonkeyPatch) -> None:
    program, read = scripted_program(monkeypatch, {}, answer_preference=RESCUE_OFF)
    result = program.run(QUESTION)
    assert not result.abstained and "called off" in result.answer and "piece rates" not in result.answer
    assert read == []


def test_the_sentence_the_judge_prefers_is_quoted(monkeypatch: pytest.MonkeyPatch) -> None:
    program, _ = scripted_program(monkeypatch, {"piece rates": 2.5, "called off": -1.0})
    events: list[dict] = []
    result = program.run(QUESTION, on_event=events.append)
    assert not result.abstained, result.abstain_message
    assert "piece rates" in result.answer and "called off" not in result.answer
    assert result.citations[0].doc_id == "orlanc-glassworks"
    assert any("preferred another passage sentence" in note for note in result.notes)
    assert [e for e in events if e.get("type") == "preference"][0]["replaced"] == -1.0


@pytest.mark.parametrize("margins", [
    {"piece rates": 2.5, "called off": 0.8},  # leads by 1.7 < 2 (and 0.8 is below preference_trust)
    {"piece rates": -0.5, "called off": -3.5},  # leads by 3, but the judge reads no answer in it either
])
def test_without_the_lead_or_a_yes_the_rules_choice_stands(monkeypatch: pytest.MonkeyPatch,
                                                             margins: dict[str, float]) -> None:
    program, read = scripted_program(monkeypatch, margins)
    result = program.run(QUESTION)
    assert "called off" in result.answer and "piece rates" not in result.answer
    assert any("piece rates" in sentence for sentence in read)  # asked, and not followed


def test_a_choice_the_judge_trusts_is_kept_without_reading_the_others(monkeypatch: pytest.MonkeyPatch) -> None:
    program, read = scripted_program(monkeypatch, {"called off": 1.5, "piece rates": 6.0})
    assert "called off" in program.run(QUESTION).answer
    assert read and not any("piece rates" in sentence for sentence in read)  # trusted from 1 on the embedded default
    program, read = scripted_program(monkeypatch, {"called off": 1.5, "piece rates": 6.0}, preference_trust=RESCUE_OFF)
    assert "piece rates" in program.run(QUESTION).answer  # always read: it leads by 4.5


def test_a_choice_the_judge_doubts_is_not_quoted_where_it_prefers_none(monkeypatch: pytest.MonkeyPatch) -> None:
    program, _ = scripted_program(monkeypatch, {"called off": -4.5})  # every other sentence -6
    result = program.run(QUESTION)
    assert result.abstained and result.abstain_reason == AbstainReason.NOT_ANSWERED
    assert "margin -4.5 < -4.0" in result.abstain_message
    assert any("nothing is quoted" in note for note in result.notes)
    program, _ = scripted_program(monkeypatch, {"called off": -3.5})  # above the floor: the rules' choice stands
    assert "called off" in program.run(QUESTION).answer
    program, _ = scripted_program(monkeypatch, {"called off": -4.5}, preference_floor=JUDGE_OFF)
    assert "called off" in program.run(QUESTION).answer


def test_a_question_with_an_asked_type_gets_no_second_opinion(monkeypatch: pytest.MonkeyPatch) -> None:
    program, read = scripted_program(monkeypatch, {"piece rates": 6.0})
    result = program.run("When did the Orlanc works reopen?")
    assert "14 May 1934" in result.answer, result.abstain_message
    assert read == []


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> GroundedQA:
    return embedded_program(tmp_path_factory, CORRAN_MILL, "answer-preference")


@pytest.mark.integration
@pytest.mark.usefixtures("embedded_dspy")
def test_the_judge_prefers_the_sentence_that_answers(program: GroundedQA) -> None:
    question = "Why was the Corran Mill strike called?"
    result = program.run(question)
    assert not result.abstained, result.abstain_message
    assert "eleven hours" in result.answer and "longest dispute" not in result.answer
    assert result.citations[0].doc_id == "corran-mill-strike"
    with program.gates.overridden(answer_preference=RESCUE_OFF):  # the rules alone quote the topical sentences
        assert "eleven hours" not in program.run(question).answer
