"""scripts/where_answers_are.py: where a wrong answer's gold answer was (shown, retrieved, in the corpus, nowhere)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]


@pytest.fixture(scope="module")
def script():
    spec = importlib.util.spec_from_file_location("where_answers_are", ROOT / "scripts/where_answers_are.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["where_answers_are"] = module
    spec.loader.exec_module(module)
    return module


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

        def retrieve(self, query: str, k: int) -> list[Passage]:
            return [Passage(chunk_id=f"{query}#{i}", doc_id=query, title=query, text=f"{query} {i}", score=0.5)
                    for i in range(k)]

    recording = script.RecordingRetriever(Inner())
    assert len(recording.retrieve("lake", 2)) == 2 and recording.k == 4
    assert recording.seen == {"lake#0": "lake 0", "lake#1": "lake 1"}


def test_bad_input_is_one_line(script, tmp_path, capsys):
    assert script.main(["--questions", str(tmp_path / "missing.jsonl"), "--corpus", str(tmp_path / "none.jsonl")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("where_answers_are:") and "\n" not in err
