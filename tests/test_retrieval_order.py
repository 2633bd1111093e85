"""The passages the LM is shown come in the retriever's order: dense hits re-ranked with word overlap.

The embedded default shows three passages (``max_passages``). Twice ``k`` dense hits are re-ranked by
``score + lexical_weight * coverage`` and the best ``k`` kept; re-sorting those ``k`` by the dense score alone put the
passage the overlap had brought in last, where the context cut dropped it: "As principal she admitted women as full
diploma students from 1907" (cosine 0.26) lost its place to passages about students that say nothing of women.
Unit tests of :func:`~groundqa.programs.context.merge_passages` and of the program's retrieval order with a scripted
retriever; then the whole program on the real embedded LM over a corpus written for this test.
"""

from __future__ import annotations

import pytest
from embedded_programs import embedded_program
from scripted_retrieval import ScriptedRetriever, passage

from groundqa.datasets.loaders import Document
from groundqa.programs.context import merge_passages
from groundqa.programs.grounded_qa import GroundedQA, QAConfig


def test_merge_interleaves_by_rank() -> None:
    first = [passage("a", 0.3), passage("b", 0.9)]
    second = [passage("c", 0.5), passage("d", 0.8), passage("e", 0.1)]
    assert [p.chunk_id for p in merge_passages(first, second)] == ["a", "c", "b", "d", "e"]


def test_merge_keeps_a_chunk_once_where_it_ranks_first_with_its_best_score() -> None:
    merged = merge_passages([passage("a", 0.3), passage("b", 0.4)], [passage("b", 0.7), passage("a", 0.6)])
    assert [(p.chunk_id, p.score) for p in merged] == [("a", 0.6), ("b", 0.7)]


def test_merge_of_nothing() -> None:
    assert merge_passages() == [] and merge_passages([], []) == []


QUESTION = "From what year were women admitted as full diploma students?"
HITS = [
    passage("degrees", 0.46, "After degree-awarding powers came in 1952, most students took a degree."),
    passage("enrolment", 0.32, "Enrolment grew slowly: 52 students in 1895."),
    passage("lecturer", 0.28, "Maud Arle was the first female lecturer at the college."),
    passage("principal", 0.26, "As principal she admitted women as full diploma students from 1907."),
    passage("union", 0.19, "The union runs the college bar."),
]


def test_retrieval_keeps_the_reranked_order() -> None:
    retriever = ScriptedRetriever(HITS)
    program = GroundedQA(retriever, QAConfig.for_lm("embedded"))  # type: ignore[arg-type]
    ranked = program._retrieve(QUESTION)
    assert retriever.asked == [2 * program.gates.k]  # twice k dense hits for the re-ranking
    assert [p.chunk_id for p in ranked][:2] == ["degrees", "principal"]
    assert "principal" in [p.chunk_id for p in ranked[: program.gates.max_passages]]
    assert [p.score for p in ranked if p.chunk_id == "principal"] == [0.26]  # the gates still read the dense score


def test_without_word_overlap_the_dense_order_stands() -> None:
    program = GroundedQA(ScriptedRetriever(HITS), QAConfig.for_lm("embedded", lexical_weight=0.0))  # type: ignore[arg-type]
    assert [p.chunk_id for p in program._retrieve(QUESTION)] == ["degrees", "enrolment", "lecturer", "principal"]


CORPUS = [
    Document(id="tarrow-college", title="Tarrow Agricultural College", text=(
        "Tarrow Agricultural College is a college of farming and land management near the market town of Ebbsford. "
        "It opened in 1889 with a first intake of 31 students, all of them the sons of tenant farmers. "
        "Its diploma course lasted two years and combined lectures with work on the college farm.")),
    Document(id="tarrow-enrolment", title="Enrolment at Tarrow Agricultural College", text=(
        "Enrolment at Tarrow Agricultural College grew slowly in its first decades. The register recorded 52 students "
        "in 1895, 140 in 1920 and 410 in 1960. Most students came from the farms of the surrounding county, and "
        "about a third lived in the college hostel.")),
    Document(id="tarrow-degrees", title="Tarrow degrees", text=(
        "After degree-awarding powers came in 1952, the share of students on three-year courses rose steadily, and "
        "by 1970 most students took a degree rather than the old diploma.")),
    Document(id="ada-crennell", title="Ada Crennell", text=(
        "Dr Ada Crennell (1861–1939) was principal of Tarrow Agricultural College from 1901 to 1928. A chemist trained "
        "at Wexcombe, she joined the staff as a lecturer in soil science in 1890. As principal she admitted women as "
        "full diploma students from 1907, founded the college museum and bought the neighbouring Holt Farm in 1912.")),
    Document(id="maud-arle", title="Maud Arle", text=(
        "Maud Arle (1870–1950) was the first female lecturer at Tarrow Agricultural College, where she taught botany "
        "from 1899. Her pupils remembered her field classes on the college farm, and a prize for botany is named "
        "after her.")),
    Document(id="tarrow-union", title="Tarrow students' union", text=(
        "Students at Tarrow Agricultural College have elected a union president every year since 1921. The union "
        "runs the college bar, a debating society and the spring dance, and its members sit on the board of "
        "governors.")),
    Document(id="ebbsford", title="Ebbsford", text=(
        "Ebbsford is a market town on the River Lenn with a population of about 9,000. Its cattle market is held on "
        "Tuesdays, and the college's students have long worked at the autumn show.")),
]


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> GroundedQA:
    return embedded_program(tmp_path_factory, CORPUS, "retrieval-order")


@pytest.mark.integration
@pytest.mark.usefixtures("embedded_dspy")
def test_the_passage_the_overlap_brings_in_is_shown_and_answers(program: GroundedQA) -> None:
    result = program.run(QUESTION)
    assert not result.abstained, result.abstain_message
    assert "1907" in result.answer and {c.doc_id for c in result.citations} == {"ada-crennell"}
    assert "ada-crennell" in [p.doc_id for p in result.passages]
