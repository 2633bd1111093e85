"""A sentence that holds the kind of value asked for needs less of the answer judge's margin to be quoted.

Where the rules find no sentence that answers (``not_answered``), the tuned answer judge reads the best-ranked
sentences and quotes the one it is surest of from a margin of ``answer_rescue`` (3 on the embedded default). Where
none reaches it, a second reading (gate ``typed_rescue``, 1.5 on the embedded default) takes only sentences that hold
a value of the type the question asks for: "Who supplied the winding engine …?" against "A horizontal steam winding
engine built by Pellow Brothers of Aldwick …" (a maker, worded otherwise). A question without such a type is not read
again. Unit tests with a scripted judge and retriever; then the whole program on the real embedded LM with the
shipped judge over a corpus written for this test.
"""

from __future__ import annotations

import pytest
from embedded_programs import embedded_program
from scripted_retrieval import judged_program, passage

from groundqa.datasets.loaders import Document
from groundqa.programs.gates import RESCUE_OFF, Gates
from groundqa.programs.grounded_qa import GroundedQA, QAConfig
from groundqa.signatures.types import AbstainReason

ENGINE = ("A horizontal steam winding engine built by Pellow Brothers of Aldwick was installed in 1874. "
          "The headframe, of riveted iron, still stands.")


def scripted_program(monkeypatch: pytest.MonkeyPatch, margins: dict[str, float], **gates: float) -> tuple[
        GroundedQA, list[str]]:
    """The embedded default's program over one passage, its answer judge scripted (:func:`judged_program`)."""
    return judged_program(monkeypatch, passage("corvin-shaft#1", 0.6, ENGINE, "Corvin Shaft"), margins, **gates)


def test_the_gate_is_on_for_the_embedded_default_only_and_round_trips() -> None:
    assert QAConfig.for_lm("embedded").gates.typed_rescue == 1.5
    assert QAConfig.for_lm("openai/gpt-4o-mini").gates.typed_rescue >= RESCUE_OFF
    assert Gates().typed_rescue >= RESCUE_OFF
    assert Gates(**Gates(typed_rescue=2.0).model_dump()).typed_rescue == 2.0


def test_a_typed_sentence_below_answer_rescue_is_quoted(monkeypatch: pytest.MonkeyPatch) -> None:
    program, _ = scripted_program(monkeypatch, {"Pellow": 2.0})
    result = program.run("Who supplied the winding engine installed at the Corvin Shaft?")
    assert not result.abstained, result.abstain_message
    assert "Pellow Brothers" in result.answer and result.citations[0].doc_id == "corvin-shaft"
    assert any("holding a value of the asked type" in note for note in result.notes)


def test_below_the_typed_gate_or_with_it_off_the_refusal_stands(monkeypatch: pytest.MonkeyPatch) -> None:
    question = "Who supplied the winding engine installed at the Corvin Shaft?"
    program, _ = scripted_program(monkeypatch, {"Pellow": 1.0})
    assert program.run(question).abstain_reason is AbstainReason.NOT_ANSWERED
    program, _ = scripted_program(monkeypatch, {"Pellow": 2.0}, typed_rescue=RESCUE_OFF)
    assert program.run(question).abstain_reason is AbstainReason.NOT_ANSWERED


def test_only_sentences_of_the_asked_type_are_read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    # the headframe sentence holds no person or organisation: the judge's 2.5 for it is not enough
    program, read = scripted_program(monkeypatch, {"headframe": 2.5})
    result = program.run("Who supplied the winding engine installed at the Corvin Shaft?")
    assert result.abstain_reason is AbstainReason.NOT_ANSWERED
    # a who-question's rescues read only sentences that name someone (session 50): neither reading reads it (before,
    # answer_rescue read it once and the typed reading did not read it again)
    assert sum("headframe" in sentence for sentence in read) == 0


def test_a_question_without_an_asked_type_is_not_read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    program, read = scripted_program(monkeypatch, {"Pellow": 2.0})
    result = program.run("What became of the Corvin Shaft's winding engine in its later years?")
    assert result.abstain_reason is AbstainReason.NOT_ANSWERED
    assert read and len(read) == len(set(read))  # answer_rescue read each sentence once: no second reading


DOME = ("The Ossing Reading Room was completed in 1874. It is a circular chamber 31 metres in diameter beneath a "
        "cast-iron dome. Its shelves hold 40,000 volumes.")


def test_a_sentence_that_answers_another_question_is_never_rescued(monkeypatch: pytest.MonkeyPatch) -> None:
    # the judge reads the diameter as the height (the topic is right, the dimension is not): the rules' reading of
    # another dimension stands, however sure the judge is
    program, read = judged_program(monkeypatch, passage("reading-room#0", 0.6, DOME, "Ossing Reading Room"),
                                   {"diameter": 6.0})
    result = program.run("How tall is the dome of the Ossing Reading Room?")
    assert result.abstain_reason is AbstainReason.NOT_ANSWERED
    assert not any("diameter" in sentence for sentence in read)  # not even read
    # asked for its width, the same sentence is the rules' own answer
    assert not program.run("How wide is the Ossing Reading Room?").abstained


CLOCK = ("The Harlow Exchange was completed in 1784. A clock tower was added above the east wing in 1838. "
         "The tower is 24 metres tall.")


def test_a_physical_measure_is_read_only_in_a_sentence_that_gives_one_in_its_unit(monkeypatch: pytest.MonkeyPatch):
    # the judge reads the clock tower's date as its height: a sentence with no number in a unit is never read for
    # "how tall", "how deep", "how heavy" ...
    program, read = judged_program(monkeypatch, passage("exchange#0", 0.6, CLOCK.rsplit(" The tower", 1)[0],
                                                        "Harlow Exchange"), {"clock tower was added": 6.0})
    result = program.run("How tall is the clock tower of the Harlow Exchange?")
    assert result.abstain_reason is AbstainReason.NOT_ANSWERED
    assert not any("1838" in sentence for sentence in read)  # not even read
    # where a sentence gives the height, it is the answer
    program, _ = judged_program(monkeypatch, passage("exchange#0", 0.6, CLOCK, "Harlow Exchange"), {})
    assert "24 metres" in program.run("How tall is the clock tower of the Harlow Exchange?").answer


@pytest.mark.parametrize("question, text, lacks", [
    ("How tall were the king poles of the Great Canvas?", "It was supported by four king poles and seated 2,900.", True),
    ("How deep is Lake Orm?", "Lake Orm was dammed in 1902.", True),
    ("How deep is Lake Orm?", "Lake Orm is 87 m deep at its deepest point.", False),
    ("How heavy is the tenor bell?", "The tenor bell weighs 2,140 kg.", False),
    ("How tall is the mill?", "The mill is six storeys high.", False),
    ("How high were the fares in 1920?", "A return ticket cost 4 shillings.", False),
    ("How long did she serve?", "She served from 1901 to 1934.", False),  # a time: not a physical measure
])
def test_lacks_measure(question: str, text: str, lacks: bool) -> None:
    from groundqa.programs.answer_values import lacks_measure

    assert lacks_measure(question, text) is lacks


def test_a_span_from_top_to_bottom_is_a_depth_not_a_distance() -> None:
    from groundqa.programs.answerability import asked, check

    deep = asked("How deep did the Penrhos quarry go?")
    span = check(deep, "Worked in twelve galleries, its pit spanned 310 metres from its highest to its lowest level.",
                 title="Penrhos quarry")
    assert span.score > 0.0 and not span.other_question
    away = check(deep, "The quarry lies about 310 metres from the River Ogwen.", title="Penrhos quarry")
    assert away.score == 0.0 and away.other_question


CORPUS = [
    Document(id="corvin-shaft", title="Corvin Shaft", text=(
        "The Corvin Shaft is the main shaft of the Harnby Colliery, sunk between 1868 and 1871 to a depth of 402 "
        "metres. A horizontal steam winding engine built by Pellow Brothers of Aldwick was installed in 1874; it "
        "was replaced by an electric winder in 1949. The headframe, of riveted iron, still stands.")),
    Document(id="harnby-colliery", title="Harnby Colliery", text=(
        "Harnby Colliery was a coal mine in the Wenlow valley, worked from 1871 until 1983. At its peak in 1923 it "
        "employed 1,640 men and raised 510,000 tons of coal a year. The colliery closed after the seams to the west "
        "were found to be faulted.")),
    Document(id="harnby-brigade", title="Harnby rescue brigade", text=(
        "The Harnby rescue brigade was formed in 1902 with twelve volunteers trained in the use of breathing "
        "apparatus. In the explosion of 1909 its members brought out forty-one survivors from the east district. "
        "The brigade was disbanded when the colliery closed.")),
]


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> GroundedQA:
    return embedded_program(tmp_path_factory, CORPUS, "typed-rescue")


@pytest.mark.integration
@pytest.mark.usefixtures("embedded_dspy")
@pytest.mark.parametrize(("question", "answer", "doc_id"), [
    ("Who supplied the winding engine installed at the Corvin Shaft?", "Pellow Brothers", "corvin-shaft"),
    ("How many tons of coal did Harnby Colliery produce in its best year?", "510,000 tons", "harnby-colliery"),
])
def test_the_judge_quotes_a_typed_sentence_the_rules_refuse(program: GroundedQA, question: str, answer: str,
                                                             doc_id: str) -> None:
    with program.gates.overridden(typed_rescue=RESCUE_OFF):
        assert program.run(question).abstain_reason is AbstainReason.NOT_ANSWERED
    result = program.run(question)
    assert not result.abstained, result.abstain_message
    assert answer in result.answer and result.citations[0].doc_id == doc_id


@pytest.mark.integration
@pytest.mark.usefixtures("embedded_dspy")
@pytest.mark.parametrize("question", [
    "What did the Corvin Shaft's winding engine cost?",
    "When was the Corvin Shaft's headframe painted?",
])
def test_a_typed_sentence_that_does_not_answer_is_not_quoted(program: GroundedQA, question: str) -> None:
    result = program.run(question)
    assert result.abstain_reason is AbstainReason.NOT_ANSWERED, result.answer
