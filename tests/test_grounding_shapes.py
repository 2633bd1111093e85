"""The six failure shapes of grounding, each on the real embedded LM over a corpus written for this test
(a mountain valley and a software project the program has never seen; not the bundled corpus).

1. a plain look-up is never refused as a false premise;
2. an unanswerable question gets no topical non-answer;
3. the sentence that answers is chosen, not another sentence of the right passage;
4. a multi-hop bridge is retrieved;
5. "Did X ever …?" is answered "No" with the citation that says so, and refused when the corpus is silent;
6. a premise the corpus contradicts gets a cited correction (premise_contradicted).
"""

from __future__ import annotations

import pytest
from embedded_programs import embedded_program

from groundqa.datasets.loaders import Document
from groundqa.programs.grounded_qa import GroundedQA
from groundqa.runtime.trace import RetrievalCall, Trace
from groundqa.signatures.types import AbstainReason, ExitReason, GroundedResult

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("embedded_dspy")]

CORPUS = [
    Document(id="mount-kestrel", title="Mount Kestrel", text=(
        "Mount Kestrel is the highest peak of the Orlo range. It rises to 3,412 metres above sea level. "
        "The first ascent of Mount Kestrel was led by the surveyor Tomas Reyne in 1871. "
        "Its north face is climbed only in late summer.")),
    Document(id="tomas-reyne", title="Tomas Reyne", text=(
        "Tomas Reyne (1840-1902) was a surveyor and mountaineer. He was born in the city of Alsberg, "
        "where his father kept a bookshop. He mapped most of the Orlo range between 1865 and 1880.")),
    Document(id="lake-orlo", title="Lake Orlo", text=(
        "Lake Orlo lies at the foot of Mount Kestrel. The lake is 9 kilometres long. At its deepest point "
        "Lake Orlo is 212 metres deep. A ferry crosses the lake twice a day in summer.")),
    Document(id="tessaly-museum", title="Tessaly Museum", text=(
        "The Tessaly Museum shows the history of the Orlo valley. Entry to the museum is free on Sundays. "
        "It was founded in 1954 by the valley's teachers.")),
    Document(id="brannock-garden", title="Brannock Garden", text=(
        "The Brannock Garden is a botanic garden in the Orlo valley, founded in 1889. The garden opens from "
        "April to October. Its seed bank stores the seeds of alpine plants at minus 18 degrees Celsius. "
        "A ferry from the lake shore stops at the garden gate.")),
    Document(id="ilse-varga", title="Ilse Varga", text=(
        "Ilse Varga is the director of the Brannock Garden. Before she studied botany, Ilse Varga trained as a "
        "carpenter in Alsberg. She has never worked as a pilot, although her brother flies for the mountain "
        "rescue service.")),
    Document(id="tessel", title="Tessel build engine", text=(
        "Tessel is a build engine written in Rust. Tessel 2.0, released in 2023, removed the OpenSSL "
        "dependency and uses rustls instead. Its steering committee has five members.")),
    Document(id="tessel-vault", title="Tessel Vault", text=(
        "Tessel Vault is the secret store of the Tessel project. Tessel Vault stores passwords only as salted "
        "hashes, never in plaintext. It was added in version 1.4.")),
    # the shapes the development corpora (datasets/workbench/) added
    Document(id="harrow-labs", title="Harrow Labs", text=(
        "Development of Tessel is funded by Harrow Labs, a company based in Alsberg. Harrow Labs also runs the "
        "yearly Tessel meeting. Harrow Labs was founded in 2009 by two former Tessel contributors.")),
    Document(id="tessel-summit", title="Tessel Summit", text=(
        "The Tessel Summit is held every May in Alsberg, in the old corn exchange, and is organised by the Orlo "
        "Software Guild. About 300 people attend.")),
    Document(id="orlo-software-guild", title="Orlo Software Guild", text=(
        "The Orlo Software Guild is an association of software firms in the Orlo valley. The guild was founded "
        "in 1998 and has forty member firms.")),
    Document(id="orlo-observatory", title="Orlo Observatory", text=(
        "The Orlo Observatory stands above Lake Orlo. It was built in 1932 by the engineer Karl Mende.")),
    Document(id="karl-mende", title="Karl Mende", text=(
        "Karl Mende (1881-1950) was an engineer of the Orlo valley. He was born in Tessaly, the second son of a "
        "miller. From 1905 he built observatories and bridges across the Orlo range for the engineering firm "
        "of his uncle.")),
    Document(id="anna-dorn", title="Anna Dorn", text=(
        "Anna Dorn painted the lakes of the Orlo valley. Dorn never exhibited outside the Orlo valley during "
        "her lifetime.")),
]


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> GroundedQA:
    return embedded_program(tmp_path_factory, CORPUS, "shapes")


def answered(result: GroundedResult) -> str:
    assert result.exit_reason is ExitReason.COMPLETED, result.exit_reason
    assert not result.abstained, (result.abstain_reason, result.abstain_message)
    retrieved = {p.chunk_id for p in result.passages}
    assert result.citations and all(c.chunk_id in retrieved for c in result.citations)
    return result.answer


@pytest.mark.parametrize("question, expected", [
    ("How high is Mount Kestrel?", "3,412"),
    ("How deep is Lake Orlo at its deepest point?", "212"),
    ("On which day is entry to the Tessaly Museum free?", "Sunday"),
    ("Which language is Tessel written in?", "Rust"),
    ("How many members does the Tessel steering committee have?", "five"),
])
def test_plain_look_ups_are_not_refused_as_false_premises(program: GroundedQA, question: str, expected: str):
    result = program.run(question)
    assert result.premise_check == "passed", [(p.claim, p.status) for p in result.premises]
    assert expected in answered(result)


@pytest.mark.parametrize("question", [
    "What is the annual budget of the Brannock Garden?",
    "How many people visit the Tessaly Museum each year?",
])
def test_unanswerable_questions_get_no_topical_answer(program: GroundedQA, question: str):
    result = program.run(question)
    assert result.abstained and result.citations == [] and result.answer == ""


@pytest.mark.parametrize("question, expected, wrong", [
    ("At what temperature does the Brannock Garden seed bank store its seeds?", "18 degrees", "April"),
    ("What did Ilse Varga train as before she studied botany?", "carpenter", "director"),
])
def test_the_sentence_that_answers_is_chosen(program: GroundedQA, question: str, expected: str, wrong: str):
    answer = answered(program.run(question))
    assert expected in answer and wrong not in answer


def test_multi_hop_bridge_is_retrieved_and_visible(program: GroundedQA):
    trace = Trace(question="")
    events: list[dict] = []
    result = program.run("In which city was the man who led the first ascent of Mount Kestrel born?", trace=trace,
                         on_event=events.append)
    assert "Alsberg" in answered(result)
    assert {c.doc_id for c in result.citations} >= {"tomas-reyne"}
    bridges = [e for e in events if e["type"] == "bridge"]
    assert bridges and bridges[0]["entity"] == "Tomas Reyne"
    assert any(r.stage == "bridge" for r in trace.records if isinstance(r, RetrievalCall))


def test_a_bridged_answer_comes_from_the_sentence_that_states_it(program: GroundedQA):
    # the naming sentence holds names (Karl Mende, Lake Orlo) but not the birthplace, and the hop's sentence
    # about his career shares the description's words (built, observatories) and follows the one that
    # answers: only "He was born in Tessaly" answers
    result = program.run("In which town was the engineer who built the Orlo Observatory born?")
    answer = answered(result)
    assert "born in Tessaly" in answer and "From 1905" not in answer
    assert "karl-mende" in {c.doc_id for c in result.citations}


def test_a_bridge_whose_second_hop_does_not_answer_gives_way_to_the_next(program: GroundedQA):
    # the best sentence names Alsberg first; nothing about Alsberg says when it was founded, so the next
    # name of the description's sentence, the Orlo Software Guild, is the bridge
    events: list[dict] = []
    result = program.run("In what year was the association that organises the Tessel Summit founded?",
                         on_event=events.append)
    assert "1998" in answered(result)
    assert [e["entity"] for e in events if e["type"] == "bridge"] == ["Orlo Software Guild"]


def test_negative_existence_is_a_cited_no_or_a_refusal(program: GroundedQA):
    no = program.run("Did Ilse Varga ever work as a pilot?")
    assert answered(no).startswith("No.") and "never worked as a pilot" in no.answer
    assert no.citations[0].doc_id == "ilse-varga"
    silent = program.run("Did Ilse Varga ever live in Tessaly?")
    assert silent.abstained and silent.citations == []


@pytest.mark.parametrize("question, says", [
    ("Why did Tessel 2.0 add the OpenSSL dependency?", "removed the OpenSSL dependency"),
    ("Why does Tessel Vault store passwords in plaintext?", "salted hashes"),
])
def test_contradicted_premise_gets_a_cited_correction(program: GroundedQA, question: str, says: str):
    result = program.run(question)
    assert result.abstained and result.abstain_reason is AbstainReason.PREMISE_CONTRADICTED
    assert result.correction is not None and says in result.correction.snippet
    assert result.correction.chunk_id and says in result.abstain_message
    assert result.citations == []  # a correction is not an answer


def test_a_silent_corpus_is_still_premise_unsupported(program: GroundedQA):
    result = program.run("Why did Tomas Reyne abandon the second expedition to the Orlo range?")
    assert result.abstained and result.abstain_reason is AbstainReason.PREMISE_UNSUPPORTED


def test_an_asked_relation_worded_otherwise_is_answered(program: GroundedQA):
    # "sponsors development" is what the question asks, not a premise it asserts: the passage words it "funded"
    result = program.run("Which company sponsors development of Tessel?")
    assert result.premise_check == "passed", [(p.claim, p.status, p.confidence) for p in result.premises]
    assert "Harrow Labs" in answered(result)


def test_another_holder_of_the_relation_is_no_answer(program: GroundedQA):
    result = program.run("When did Tomas Reyne build the Orlo Observatory?")
    assert result.abstained and result.citations == [] and "1932" not in result.answer


def test_no_in_other_words(program: GroundedQA):
    result = program.run("Did Anna Dorn ever show her paintings in an exhibition outside the Orlo valley?")
    assert answered(result).startswith("No.") and "never exhibited" in result.answer
    assert result.citations[0].doc_id == "anna-dorn"
