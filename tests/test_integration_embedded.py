"""GroundedQA end to end on the real embedded LM, a real Chroma store and the CLI — no network."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import dspy
import pytest

from groundqa.cli.main import main
from groundqa.config import load_settings
from groundqa.programs.grounded_qa import GroundedQA, QAConfig
from groundqa.programs.retriever import Retriever
from groundqa.runtime.guarded_lm import GuardedLM
from groundqa.signatures.types import ExitReason
from groundqa.store.chroma_store import CorpusStore

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory, embedded_lm) -> GroundedQA:
    from groundqa.datasets.bundled import load_bundled

    store = CorpusStore(tmp_path_factory.mktemp("chroma"))
    store.ingest(load_bundled("dev")[0])
    return GroundedQA(Retriever(store, k=4), QAConfig.for_lm("embedded"))


@pytest.fixture(autouse=True)
def _lm(embedded_lm) -> None:
    dspy.configure(lm=GuardedLM(embedded_lm), adapter=dspy.ChatAdapter(use_json_adapter_fallback=False))


def test_answer_is_cited_from_retrieved_passages(program: GroundedQA):
    question = "Who designed the tidal-powered harbor lights of Port Vessany?"
    # the embedded default: a passage sentence holds the answer, so the LM is not asked
    default = program.run(question)
    assert not default.abstained and default.mode == "extractive" and default.usage.lm_calls == 0
    with program.gates.overridden(extractive_first=1.0):  # the LM first, as for any other LM
        result = program.run(question)
    assert result.exit_reason is ExitReason.COMPLETED
    assert not result.abstained and result.mode in ("generated", "extractive")
    retrieved = {p.chunk_id for p in result.passages}
    assert result.citations and all(c.chunk_id in retrieved for c in result.citations)
    assert all(1 <= c.index <= len(result.passages) for c in result.citations)
    assert "Marchetti" in result.answer and "Marchetti" in default.answer
    assert result.usage.lm_calls >= 1 and result.usage.prompt_tokens > 0


@pytest.mark.parametrize("question", [
    "When did Paolo Marchetti design the harbor lights of Port Vessany?",  # cross-entity
    "What was the population of Calder Island in 2031?",  # time shift
    "What is the boiling point of liquid nitrogen?",  # off corpus
])
def test_abstains_on_unsupported_questions(program: GroundedQA, question: str):
    result = program.run(question)
    assert result.abstained and result.abstain_reason is not None
    assert result.answer == "" and result.citations == []


def test_cli_ingest_then_ask_json_offline(tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch):
    corpus = Path(__file__).resolve().parents[1] / "datasets" / "demo" / "corpus.jsonl"
    assert main(["ingest", str(corpus), "--home", str(home)]) == 0
    count = load_settings(home=home)
    assert CorpusStore(count.chroma_dir).count() > 0
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["ask", "Who designed the harbor lights of Port Vessany?", "--home", str(home), "--json",
                     "--save-trace", str(tmp_path / "trace.json")])
    assert code == 0
    data = json.loads(out.getvalue())
    assert data["exit_reason"] == "COMPLETED" and not data["abstained"]
    # both pages say who designed the lights; any citation must be one of them
    assert data["citations"] and {c["doc_id"] for c in data["citations"]} <= {"harbor-lights", "marchetti"}
    assert "Marchetti" in data["answer"]
    assert {"answer", "citations", "abstained", "exit_reason", "usage", "confidence", "premises"} <= set(data)
    # replaying the recorded trace reproduces the answer without running the model
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["ask", "Who designed the harbor lights of Port Vessany?", "--home", str(home), "--json",
                     "--replay", str(tmp_path / "trace.json")]) == 0
    assert json.loads(out.getvalue())["answer"] == data["answer"]
