"""scripts/where_answers_are.py: where a wrong answer's gold answer was (shown, retrieved, in the corpus, nowhere)."""

from __future__ import annotations

import pytest
from project_scripts import load_script


@pytest.fixture(scope="module")
def script():
    return load_script("where_answers_are")


def test_the_first_place_that_holds_a_gold_answer_counts(script):
    shown, retrieved, corpus = ["He was born in Selde."], ["He trained under Anselm Greiff."], ["It cost 4,200 crowns."]
    assert script.where(["Selde"], shown, retrieved + shown, corpus) == "shown"
    assert script.where(["anselm greiff", "Greiff"], shown, retrieved, corpus) == "retrieved"  # normalised
    assert script.where(["4,200 crowns"], shown, retrieved, corpus) == "in the corpus"
    assert script.where(["Ossendorf"], shown, retrieved, corpus) == "nowhere"
    assert script.where(["Greif"], shown, retrieved, corpus) == "nowhere"  # whole words, not a prefix


def test_the_recording_retriever_keeps_what_it_returns_and_passes_the_rest_through(script):
    from groundqa.signatures.types import Passage

    class Inner:
        k = 4

        def retrieve(self, query: str, k: int, contains: tuple[str, ...] = (), lexical: int = 0) -> list[Passage]:
            return [Passage(chunk_id=f"{query}#{i}", doc_id=query, title=query, text=f"{query} {i}", score=0.5)
                    for i in range(k + lexical)]

    recording = script.RecordingRetriever(Inner())
    assert len(recording.retrieve("lake", 2)) == 2 and recording.k == 4
    assert recording.seen == {"lake#0": "lake 0", "lake#1": "lake 1"}
    assert len(recording.retrieve("lake", 2, lexical=1)) == 3 and "lake#2" in recording.seen  # BM25's hits too


def test_bad_input_is_one_line(script, tmp_path, capsys):
    assert script.main(["--questions", str(tmp_path / "missing.jsonl"), "--corpus", str(tmp_path / "none.jsonl")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("where_answers_are:") and "\n" not in err
