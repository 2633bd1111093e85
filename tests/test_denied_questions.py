"""A question that asks what is *not* so needs a sentence that denies or excludes something.

"What is not a side effect of glucocorticoids?" is most often made from an answerable question by putting a "not" in
it (SQuAD 2.0's negation questions), and the sentence that answered the original ("these drugs can have many
undesirable side effects, such as …") is then a topical non-answer. Unit tests of which questions deny
(:attr:`~groundqa.programs.answerability.Asked.denied`), which sentences deny
(:func:`~groundqa.programs.answerability.says_denial`), the answerability check and the judge's rescue; then the
whole program on the real embedded LM, with the shipped answer judge, over a corpus written for this test.
"""

from __future__ import annotations

import pytest
from embedded_programs import embedded_program

from groundqa.datasets.loaders import Document
from groundqa.programs.answerability import asked, check, says_denial
from groundqa.programs.context import NumberedContext
from groundqa.programs.grounded_qa import GroundedQA
from groundqa.programs.rescue import rescue_answer
from groundqa.signatures.types import AbstainReason, Passage


@pytest.mark.parametrize("question", [
    "What is not a side effect of glucocorticoids?",
    "Which day of the week can't you visit the Harlow Museum?",
    "Which day of the week can’t you visit the Harlow Museum?",  # a typographic apostrophe
    "What cell never reacts with self peptides?",
    "What cell is unable to act as a scavenger?",
    "What cannot be solved by mechanical application of mathematical steps?",
    "A flow of water can not be considered an artifact of what?",
])
def test_a_question_that_asks_what_is_not_so_is_denied(question: str) -> None:
    assert asked(question).denied


@pytest.mark.parametrize("question", [
    "Did Ilse Varga ever work as a pilot?",  # yes/no: "No" is answered by polar questions' own rules
    "Why couldn't the firefighters reach the summit?",  # the failure is taken for granted; its cause is asked
    "Is the ferry running whether or not it rains?",
    "What may or may not make one Turing machine more powerful than another?",
    "Which museums are not only free but also open at night?",
    "Which hotel is not far from the station?",  # an idiom that asserts: near it
    "What is the annual budget of the garden?",
])
def test_other_questions_are_not(question: str) -> None:
    assert not asked(question).denied


@pytest.mark.parametrize(("sentence", "denies"), [
    ("The slug does not have a metric counterpart.", True),
    ("The museum is closed on Mondays.", True),
    ("It is open every day except Mondays.", True),
    ("Only four main interactions are known.", True),
    ("Immunodeficiency occurs when part of the immune system is inactive.", True),  # the asked word, negated by prefix
    ("The pound-force has a metric counterpart, the kilogram-force.", False),
    ("The museum has an information desk.", False),  # "in" + "formation" is no negation of a word asked
])
def test_which_sentences_deny(sentence: str, denies: bool) -> None:
    assert says_denial(sentence, "What is not active when the immune system is not formed?") is denies


def test_the_check_refuses_the_sentence_that_says_it_without_the_negation() -> None:
    what = asked("What does not have a metric counterpart?")
    positive = check(what, "The pound-force has a metric counterpart, the kilogram-force. [1]")
    assert positive.score == 0.0 and "the sentence does not say what is not so" in positive.missing
    assert check(what, "The slug does not have a metric counterpart. [1]").score == 1.0
    # a question without the negation is answered by the positive sentence, as before
    assert check(asked("What has a metric counterpart?"),
                 "The pound-force has a metric counterpart, the kilogram-force. [1]").score == 1.0


def test_the_rescue_reads_only_sentences_that_deny() -> None:
    page = Passage(chunk_id="drugs#0", doc_id="drugs", title="Immunosuppressive drugs", score=0.6, text=(
        "Glucocorticoids can have many undesirable side effects, such as weight gain. "
        "Hair loss is not a side effect of glucocorticoids."))
    judged: list[str] = []

    def reads(title: str, before: str, sentence: str, question: str) -> float:
        judged.append(sentence)
        return 5.0

    rescued = rescue_answer("What is not a side effect of glucocorticoids?", NumberedContext([page], ""), reads,
                            floor=3.0, candidates=6)
    assert rescued is not None and rescued.text.startswith("Hair loss")
    assert judged == ["Hair loss is not a side effect of glucocorticoids."]


CORPUS = [
    Document(id="harlow-museum", title="Harlow Museum", text=(
        "The Harlow Museum shows the history of the salt trade in the Orlo valley. It is open every day except "
        "Mondays. The museum's collection includes forty paintings by Anna Dorn.")),
    Document(id="glucocorticoids", title="Glucocorticoids", text=(
        "Glucocorticoids are the most powerful immunosuppressive drugs. These drugs can have many undesirable side "
        "effects, such as weight gain and high blood sugar.")),
    Document(id="orlo-ferry", title="Orlo ferry", text=(
        "A ferry crosses Lake Orlo twice a day in summer. The ferry Tern was built in Alsberg in 1931.")),
]


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> GroundedQA:
    return embedded_program(tmp_path_factory, CORPUS, "denied")


@pytest.mark.integration
@pytest.mark.usefixtures("embedded_dspy")
def test_a_sentence_that_excludes_answers_a_denied_question(program: GroundedQA) -> None:
    result = program.run("On which day is the Harlow Museum not open?")
    assert not result.abstained, result.abstain_message
    assert "Mondays" in result.answer and {c.doc_id for c in result.citations} == {"harlow-museum"}


@pytest.mark.integration
@pytest.mark.usefixtures("embedded_dspy")
@pytest.mark.parametrize("question", [
    "What is not a side effect of glucocorticoids?",
    "Where was the ferry Tern not built?",
])
def test_the_positive_sentence_is_no_answer(program: GroundedQA, question: str) -> None:
    result = program.run(question)
    assert result.abstained, result.answer
    assert result.abstain_reason == AbstainReason.NOT_ANSWERED


@pytest.mark.integration
@pytest.mark.usefixtures("embedded_dspy")
def test_the_same_question_without_the_negation_is_answered(program: GroundedQA) -> None:
    result = program.run("What are the side effects of glucocorticoids?")
    assert not result.abstained, result.abstain_message
    assert "weight gain" in result.answer
