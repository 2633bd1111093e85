"""A year bridge whose list of office holders runs over several chunks (the dairy corpus, session 39): the chunk whose
term holds the event's year ("Dorli Amsel chaired the cooperative from 1990 to 2008" for the museum's opening in
1994) shares no word with the year and ranks below the first ``k`` passages; a wider pool is read for a term that
holds it (:meth:`groundqa.programs.grounded_qa.GroundedQA._spanning`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from embedded_programs import embedded_program

from groundqa.datasets.loaders import load_corpus
from groundqa.programs import grounded_qa
from groundqa.programs.grounded_qa import GroundedQA

DAIRY = Path(__file__).parents[1] / "datasets" / "workbench" / "dairy" / "corpus.jsonl"
QUESTION = "Who was chairman of the Orvelin Dairy Cooperative when the Orvelin Cheese Museum opened?"


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> GroundedQA:
    return embedded_program(tmp_path_factory, load_corpus(DAIRY).items, "year_pool")


@pytest.mark.integration
@pytest.mark.usefixtures("embedded_dspy")
def test_the_term_that_holds_the_year_is_found_beyond_the_first_passages(program: GroundedQA,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # the first k passages alone hold no term with 1994
    with monkeypatch.context() as patched, program.gates.overridden(k=2):
        patched.setattr(grounded_qa, "_YEAR_POOL", 1)
        narrow = program.run(QUESTION)
    assert "Dorli Amsel" not in narrow.answer, narrow.notes
    with program.gates.overridden(k=2):  # as few passages as the CLI's store ranks above the term's chunk
        result = program.run(QUESTION)
    assert not result.abstained, result.abstain_message
    assert "Dorli Amsel" in result.answer and "Josef Ambrunner" not in result.answer
    assert {c.doc_id for c in result.citations} == {"orvelin-cheese-museum", "chairmen-of-the-orvelin-dairy-cooperative"}
