"""Comparisons of two named sides (:mod:`groundqa.programs.comparison`): each side's own page gives its start or its
size, and the side the values favour is the answer, said first, with both sentences cited. Shapes from the
perfumery, clockworks and radio corpora (sessions 40-41)."""

from __future__ import annotations

import pytest
from embedded_programs import embedded_program

from groundqa.datasets.loaders import Document
from groundqa.programs.comparison import compared_question, decide, side_value
from groundqa.programs.grounded_qa import GroundedQA
from groundqa.programs.presuppositions import heuristic_presuppositions
from groundqa.signatures.types import Passage


def _page(doc: str, title: str, text: str) -> Passage:
    return Passage(chunk_id=f"{doc}#0", doc_id=doc, title=title, text=text, score=0.8)


def test_a_comparison_names_its_two_sides_and_which_way_wins():
    first = compared_question("Which came first: the opening of the Boutique du Quai Sorel or the founding of the "
                              "Montbrac distillery?")
    assert first is not None and first.measure == "year" and first.smaller_wins
    assert first.sides == ("the opening of the Boutique du Quai Sorel", "the founding of the Montbrac distillery")
    born = compared_question("who was born earlier, Aurèle Velloury or Eudes Drevanne")
    assert born is not None and born.born and born.sides == ("Aurèle Velloury", "Eudes Drevanne")
    assert compared_question("Which of the two was older, Marthe Quillaud or Ormand Vey?").sides == (
        "Marthe Quillaud", "Ormand Vey")
    taller = compared_question("which mast is taller, brackenfell or corrin head")
    assert taller is not None and taller.measure == "size" and not taller.smaller_wins
    assert not compared_question("Which is younger, Ada Lund or Bo Vik?").smaller_wins
    # no pair, or no comparison: not one
    assert compared_question("Which came first in the 1998 regatta?") is None
    assert compared_question("Was the mast taller or shorter after 1997?") is None
    assert compared_question("Who founded the Montbrac distillery or the shop?") is None


def test_each_side_is_dated_by_its_start():
    compared = compared_question("Which came first, the Kelmgasse Factory opening or the founding of the watchmaking "
                                 "school in Brevaz?")
    factory = _page("kelmgasse", "Kelmgasse Factory", (
        "The Kelmgasse Factory is the main production site of Orlund Watchworks. Eduard Orlund opened it in 1896 after "
        "buying a disused sawmill; the building was connected to electricity in 1908."))
    school = _page("school", "Brevaz School of Horology", (
        "The Brevaz School of Horology is a vocational school for watchmakers in Brevaz. It was founded in 1889 by "
        "Eduard Orlund together with the town council. The course was extended to four years in 1952."))
    a, b = side_value(compared, compared.sides[0], [factory]), side_value(compared, compared.sides[1], [school])
    assert (a.value, b.value) == (1896, 1889)  # its start, not the electricity of 1908 nor the course of 1952
    verdict = decide(compared, a, b)
    assert verdict is not None and verdict.winner == compared.sides[1]
    assert verdict.lead == "The founding of the watchmaking school in Brevaz."


def test_a_term_stated_of_the_side_itself_dates_its_start():
    compared = compared_question("Which came first: the Osk Varrow office opening or the Town Hall clock?")
    branch = _page("northern", "Northern Branch (Osk Varrow)", (
        "The Northern Branch was the regional office of the Survey at Osk Varrow from 1871 to 1988. Tobiah Wenlock "
        "opened it in his home town; in 1899 it moved into a purpose-built office."))
    assert side_value(compared, compared.sides[0], [branch]).value == 1871  # not the move of 1899


def test_a_lifespan_or_a_birth_dates_a_person():
    born = compared_question("who was born earlier, Aurèle Velloury or Eudes Drevanne")
    aurele = _page("aurele", "Aurèle Velloury", "Aurèle Velloury (1829–1898) was the founder of Maison Velloury.")
    eudes = _page("drevanne", "Maison Drevanne", "It was founded in 1874 by Eudes Drevanne, born in 1842 in Cassaroy.")
    verdict = decide(born, side_value(born, born.sides[0], [aurele]), side_value(born, born.sides[1], [eudes]))
    assert verdict is not None and verdict.winner == "Aurèle Velloury"
    assert [v.value for v in verdict.values] == [1829, 1842]


def test_a_size_is_a_number_in_a_unit_of_the_compared_dimension():
    taller = compared_question("which mast is taller, Brackenfell or Corrin Head")
    brackenfell = _page("b", "Brackenfell transmitter", (
        "It opened in 1936 with an output of 20 kW. Osric Tallamer chose the site, and its steel lattice mast, "
        "212 metres tall, was raised in 1936."))
    corrin = _page("c", "Corrin Head transmitter", "Its guyed steel mast was originally 148 metres high.")
    a, b = side_value(taller, "Brackenfell", [brackenfell]), side_value(taller, "Corrin Head", [corrin])
    assert (a.value, b.value) == (212, 148)
    assert decide(taller, a, b).winner == "Brackenfell"


def test_a_side_without_a_value_or_a_tie_decides_nothing():
    compared = compared_question("Which came first, the Lower Workshop or the Town Hall clock?")
    clock = _page("clock", "Town Hall clock", "The Town Hall clock was built in 1858.")
    silent = _page("workshop", "Lower Workshop", "The Lower Workshop held twenty-eight benches.")
    assert side_value(compared, "the Lower Workshop", [silent]) is None
    assert decide(compared, None, side_value(compared, "the Town Hall clock", [clock])) is None
    same = side_value(compared, "the Town Hall clock", [clock])
    assert decide(compared, same, same) is None


def test_a_comparison_presupposes_only_its_named_sides():
    claims = [p.claim for p in heuristic_presuppositions(
        "Which came first: the opening of the Boutique du Quai Sorel or the founding of the Montbrac distillery?")]
    assert claims and all("came first" not in c for c in claims)


CORPUS = [
    Document(id="boutique", title="Boutique du Quai Sorel", text=(
        "The Boutique du Quai Sorel is the flagship shop of Maison Velloury in Ardecel. It was opened in 1896 at "
        "7 Quai Sorel, facing the river. After the flood of 1951 the shop moved in 1952 to a former bank.")),
    Document(id="montbrac", title="Montbrac distillery", text=(
        "The Montbrac distillery was Maison Velloury's first distillery, founded in 1899 by Céleste Velloury on a "
        "riverside plot in Montbrac. On 12 March 1937 a fire destroyed its still hall.")),
    Document(id="aurele", title="Aurèle Velloury", text=(
        "Aurèle Velloury (1829–1898) was the founder and first head of Maison Velloury. He was born in the hill "
        "village of Sorbecque.")),
    Document(id="drevanne", title="Maison Drevanne", text=(
        "Maison Drevanne is a perfume house in Vassance. It was founded in 1874 by Eudes Drevanne, born in 1842 in "
        "the mill town of Cassaroy.")),
]


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> GroundedQA:
    return embedded_program(tmp_path_factory, CORPUS, "comparison")


@pytest.mark.integration
@pytest.mark.usefixtures("embedded_dspy")
def test_the_side_that_came_first_is_answered_with_both_sentences_cited(program: GroundedQA) -> None:
    events: list[dict] = []
    result = program.run("Which came first: the opening of the Boutique du Quai Sorel or the founding of the "
                         "Montbrac distillery?", on_event=events.append)
    assert not result.abstained, result.abstain_message
    assert result.answer.startswith("The opening of the Boutique du Quai Sorel.")
    assert {c.doc_id for c in result.citations} == {"boutique", "montbrac"}
    compared = [e for e in events if e["type"] == "comparison"]
    assert len(compared) == 1 and compared[0]["values"] == {"the opening of the Boutique du Quai Sorel": 1896,
                                                            "the founding of the Montbrac distillery": 1899}
    born = program.run("who was born earlier, Eudes Drevanne or Aurèle Velloury")
    assert born.answer.startswith("Aurèle Velloury.") and {c.doc_id for c in born.citations} == {"aurele", "drevanne"}
